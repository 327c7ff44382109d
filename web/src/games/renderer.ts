// What a game may bring to the web table beyond the API's open vocabulary: its lobby blurb and
// default seat names, and every part of the table that depends on its own rules (its `rules`
// messages, its calls, its prompts). The lobby offers the games GetCatalog lists and builds
// their settings from it; the table draws the common view, names phases and actions by the
// server's titles, and asks the game's renderer (looked up by GameView.variant_name, see
// index.ts) for the rest. A game without one gets the generic renderer (generic.ts), which
// the words alone make playable.
import type { GameView, HandScore, LegalAction, SeatView, SideTotal } from "@cardgame/client/web";

import type { Child } from "../dom.js";

/** A seat's name as the table shows it: "You" for the viewer's own seat. */
export type SeatNamer = (seat: number) => string;

/** What the lobby adds to a game's catalog entry. */
export interface LobbyEntry {
  /** One sentence on the game. */
  blurb: string;
  /**
   * Default names, one per seat: the creator's seat 0 first, then the others clockwise from
   * its left (used when there are as many as the catalog's seats).
   */
  seatNames: readonly string[];
}

/** One completed hand of the score table, in words. */
export interface HandDetails {
  /** A note on the hand beside its number (trump, maker, a sweep); "" for none. */
  note: string;
  /** One line per entry of `hand.sides`, in the same order ("bid 4, took 5 · +1 bag"). */
  sides: string[];
}

/** The web table's renderer of one game. */
export interface GameRenderer {
  /** The game's registry name, as GameView.variant_name and CreateGameRequest.variant_name carry it. */
  readonly name: string;
  /** The game's name as a person reads it, when the view carries no variant_title. */
  readonly title: string;
  /** What the lobby adds to the catalog's entry; absent: a blurb and names of its own. */
  readonly lobby?: LobbyEntry;
  /** Sentences for the game's own refusal reasons, by reason code. */
  readonly reasons: Readonly<Record<string, string>>;
  /** The badge on the seat that deals (or starts) the hand, and its tooltip. */
  readonly dealer: { readonly badge: string; readonly title: string };
  /**
   * What choosing cards (the action of shape CARDS) does, when the action's title does not say
   * it well enough: its button ("Give to partner") and prompt verb ("give to your partner").
   */
  readonly exchange?: { readonly button: string; readonly prompt: string };

  /**
   * A button's label for a legal action the game words its own way; undefined leaves it to the
   * table (the action's title with its number or suit).
   */
  actionLabel?(action: LegalAction): string | undefined;
  /** A seat's last call (SeatView.last_call notation) in words; "" for none. */
  callText(call: string): string;
  /**
   * What the viewer is asked to do, when it may act in a phase of this game; undefined leaves
   * it to the table (from the legal actions' shapes and titles).
   */
  prompt(view: GameView): string | undefined;
  /** The game's badges on a seat (SeatView.rules, and what GameView.rules says of the seat). */
  seatBadges(seat: SeatView, view: GameView): Child[];
  /** The game's facts in the middle of the table (GameView.rules): trump, the turn-up, the draw... */
  facts(view: GameView, name: SeatNamer): Child[];
  /** A note beside a side's total (bags); "" for none. */
  totalNote(total: SideTotal): string;
  /** A completed hand in words: the only reader of the game's HandScore and SeatScore fields. */
  handDetails(hand: HandScore, name: SeatNamer): HandDetails;
}
