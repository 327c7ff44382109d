// What a game brings to the web table: its name and title, its lobby entry, and every part of
// the table that depends on its rules. The table and the lobby draw the common view and ask the
// game's renderer (looked up by GameView.variant_name, see index.ts) for the rest.
import type {
  GameServiceClient,
  GameView,
  HandScore,
  LegalAction,
  Phase,
  SeatView,
  SideTotal,
} from "@cardgame/client/web";

import type { Child } from "../dom.js";

/** The rule options of a CreateGame request, as the client takes them. */
export type RuleOptionsInit = NonNullable<Parameters<GameServiceClient["createGame"]>[0]["options"]>;

/** A seat's name as the table shows it: "You" for the viewer's own seat. */
export type SeatNamer = (seat: number) => string;

/** A number the lobby asks for, with its bounds and default. */
export interface NumberOption {
  /** The control's key, unique within the game (`option-<key>` is its element id). */
  key: string;
  label: string;
  min: number;
  max: number;
  step?: number;
  value: number;
}

/** How the lobby offers a game. */
export interface LobbyEntry {
  /** One sentence on the game. */
  blurb: string;
  /**
   * Default names, one per seat (so the seat count): the creator's seat 0 first, then the
   * others clockwise from its left.
   */
  seatNames: readonly string[];
  /** The rule options the lobby asks for. */
  options: readonly NumberOption[];
  /** The RuleOptions of the chosen values (by option key). */
  ruleOptions(values: Readonly<Record<string, number>>): RuleOptionsInit;
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
  /** The game's name as a person reads it. */
  readonly title: string;
  /** How the lobby offers the game; absent: not offered. */
  readonly lobby?: LobbyEntry;
  /** Names of the game's own phases (the table names Deal, Playing and Game over). */
  readonly phases: Readonly<Partial<Record<Phase, string>>>;
  /** Sentences for the game's own refusal reasons, by reason code. */
  readonly reasons: Readonly<Record<string, string>>;
  /** The badge on the seat that deals (or starts) the hand, and its tooltip. */
  readonly dealer: { readonly badge: string; readonly title: string };
  /** What choosing cards for the exchange action does: its button ("Discard") and prompt verb ("discard"). */
  readonly exchange: { readonly button: string; readonly prompt: string };

  /** The button label of a legal action (plays and exchanges are chosen on the cards instead). */
  actionLabel(action: LegalAction): string;
  /** A seat's last call (SeatView.last_call notation) in words; "" for none. */
  callText(call: string): string;
  /**
   * What the viewer is asked to do, when it may act in a phase of this game; undefined leaves
   * it to the table (an exchange, the deal, a card to play).
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
