// Hearts: four players, or three (the 2♦ left out, 17 cards each), each for themselves; the pass
// (left, right, across with four, hold), the 2♣ lead, hearts broken, and points that count against
// whoever takes them (with the Omnibus setting, the J♦'s -10 for its taker).
import type { GameView, HandScore } from "@cardgame/client/web";

import { cardList } from "../cards.js";
import { type Child, h } from "../dom.js";
import { plural } from "../text.js";
import type { GameRenderer, HandDetails, SeatNamer } from "./renderer.js";

const DIRECTIONS: Record<string, string> = { left: "to the left", right: "to the right", across: "across", hold: "none this hand" };

/**
 * Whether the hand's first trick is still to be completed: until then the pass (the cards given
 * and received) is shown in full in the middle of the table, after it as a small "Your pass" line.
 */
function beforeFirstTrick(view: GameView): boolean {
  return !view.lastTrick?.plays.length && view.seats.every((seat) => seat.tricksWon === 0);
}

/** Whether the seats show the points taken this hand: while it is played, and after it until the next deal. */
function showsPoints(view: GameView, points: readonly number[]): boolean {
  return view.phaseName === "play" || (view.phaseName !== "pass" && points.some((p) => p !== 0));
}

/** Whether the collapsed "Your pass" line is open: kept across redraws while the hand is played. */
let passOpen = false;

/** The score table's words for a Hearts hand: the pass, the moon; each player's points taken. */
function handDetails(hand: HandScore, name: SeatNamer): HandDetails {
  const rules = hand.rules.case === "hearts" ? hand.rules.value : undefined;
  const pass = rules ? `pass ${DIRECTIONS[rules.direction] ?? rules.direction}` : "";
  const moon = rules?.moonBy !== undefined ? `, ${name(rules.moonBy)} shot the moon` : "";
  const jack = rules?.jackOfDiamondsBy !== undefined ? `, J♦ -10 to ${name(rules.jackOfDiamondsBy)}` : "";
  return {
    note: `${pass}${moon}${jack}`,
    sides: hand.sides.map((side) => {
      const seat = hand.seats.find((s) => side.seats.includes(s.seat));
      const taken = seat?.rules.case === "hearts" ? seat.rules.value.pointsTaken : 0;
      return `${plural(seat?.tricksWon ?? 0, "trick")} · ${plural(taken, "point")} taken`;
    }),
  };
}

export const hearts: GameRenderer = {
  name: "hearts",
  title: "Hearts",
  lobby: {
    blurb: "Four players (or three, without the 2♦), each for themselves; pass three, avoid hearts and the Q♠; lowest score wins.",
    seatNames: ["South", "West", "North", "East"],
  },
  reasons: {
    INVALID_PASS: "Pass exactly three cards of your hand, once.",
    MUST_LEAD_TWO_OF_CLUBS: "The 2♣ leads the first trick.",
    NO_POINTS_ON_FIRST_TRICK: "No hearts or Q♠ on the first trick.",
    HEARTS_NOT_BROKEN: "Hearts are not broken yet: lead another suit.",
  },
  dealer: { badge: "dealer", title: "Dealer" },
  exchange: { button: "Pass", prompt: "pass" },
  callText: (call) => call,
  prompt: () => undefined,
  seatBadges(seat, view) {
    const passed = seat.rules.case === "hearts" && seat.rules.value.passed;
    const points = view.rules.case === "hearts" ? view.rules.value.pointsTaken : [];
    const taken = points[seat.seat] ?? 0;
    return [
      view.phaseName === "pass" && passed ? h("span", { class: "badge" }, "passed") : null,
      showsPoints(view, points)
        ? h("span", {
          class: `badge points${taken ? " taken" : ""}`, "data-field": "points", "data-value": taken,
          title: "Points taken this hand",
        }, plural(taken, "point"))
        : null,
    ];
  },
  facts(view, name) {
    if (view.rules.case !== "hearts") return [];
    const { passDirection, heartsBroken, passGiven, passReceived, jackOfDiamondsBy } = view.rules.value;
    const facts: Child[] = [
      h("div", { class: "trump", "data-role": "pass-direction" }, `Pass ${DIRECTIONS[passDirection] ?? passDirection}`),
    ];
    if (heartsBroken) facts.push(h("div", { class: "trump", "data-role": "hearts-broken" }, "Hearts broken"));
    if (jackOfDiamondsBy !== undefined) {
      facts.push(h("div", { class: "trump", "data-role": "jack-of-diamonds", "data-seat": jackOfDiamondsBy },
        `J♦ (-10) won by ${name(jackOfDiamondsBy)}`));
    }
    const pass: Child[] = [
      passGiven.length ? cardList("You passed", passGiven, "pass-given") : null,
      passReceived.length ? cardList("You received", passReceived, "pass-received") : null,
    ];
    if (!passGiven.length && !passReceived.length) return facts;
    if (view.phaseName === "pass" || (view.phaseName === "play" && beforeFirstTrick(view))) {
      passOpen = false;
      facts.push(...pass);
    } else if (view.phaseName === "play") {
      // After the first trick the pass gives the middle back to the tricks: a line to open.
      facts.push(h("details", {
        class: "pass-note", "data-role": "pass-summary", open: passOpen,
        ontoggle: (event: Event) => { passOpen = (event.currentTarget as HTMLDetailsElement).open; },
      }, h("summary", {}, "Your pass"), h("div", { class: "pass-cards" }, ...pass)));
    }
    return facts;
  },
  totalNote: () => "",
  handDetails,
};

export default hearts;
