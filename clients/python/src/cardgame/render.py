"""Rich renderables for a game: cards with suit symbols and colours, the table, trick, scores.

What every game has comes from a view's common fields; what only one game has comes from its
``rules`` oneof: the lines of :data:`GAME_LINES` for the games drawn with a layout of their own
(``view.spades``, ``view.spades_two_player``, ``view.buck_euchre``), and for any other game its
message read field by field (:func:`rules_lines`: "Pass direction: left", cards with their
symbols, one number per seat with the seat's name), so a game the API gains is drawn without
code of its own. A hand's score comes from the common fields of HandScore and its own ``rules``
oneof (``hand.spades``, ``hand.buck_euchre``, and ``seat.spades`` / ``seat.buck_euchre`` per
seat), or from the common fields alone. Games are named through :mod:`cardgame.games`.

>>> card_text("10H").plain, card_text("AS").plain
('10♥', 'A♠')
>>> str(card_text("QD").style)
'bold red'
>>> normalize_card(" 10h "), normalize_card("ZZ"), normalize_card("bj")
('10H', None, 'BJ')
>>> card_text("BJ").plain, card_text("LJ").plain
('★BJ', '☆LJ')
>>> view = view_pb2.GameView(variant_name="spades2", spades_two_player=view_pb2.SpadesTwoPlayerView(offered_card="8D"))
>>> rules_of(view), game_title(view)
('spades_two_player', 'Two-player Spades')
>>> action_text(view_pb2.LegalAction(word="name", shape=enums.ACTION_SHAPE_SUIT, title="Name trump",
...                                  suit=enums.SUIT_HEARTS)).plain
'Name trump: ♥ hearts'

Actions and phases are drawn from the words the server sends (a legal action's word, shape and
title; the view's phase title), so the renderer knows no game's phases or actions.
"""

from __future__ import annotations

import re

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from cardgame import games
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import score_pb2, view_pb2

SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
SUIT_LETTER: dict[int, str] = {enums.SUIT_CLUBS: "C", enums.SUIT_DIAMONDS: "D", enums.SUIT_HEARTS: "H",
                               enums.SUIT_SPADES: "S"}
RED, BLACK = "bold red", "bold"
SPADES_RULES = ("spades", "spades_two_player")  # the GameView `rules` cases of both Spades games
_CARD = re.compile(r"^(10|[2-9JQKA])([CDHS])$|^[BL]J$")
JOKERS = {"BJ": "★BJ", "LJ": "☆LJ"}  # the Big and Little Jokers of a Spades table with jokers


def normalize_card(text: str) -> str | None:
    """The card name ``text`` spells ("as" -> "AS", "10h" -> "10H"), or None when it is not a card."""
    match = _CARD.match(text.strip().upper())
    return match.group(0) if match else None


def card_text(card: str) -> Text:
    """A card with its suit symbol, red for hearts and diamonds: "10H" -> 10♥; a joker starred,
    the Big one red: "BJ" -> ★BJ."""
    if card in JOKERS:
        return Text(JOKERS[card], style=RED if card == "BJ" else BLACK)
    rank, suit = card[:-1], card[-1:]
    return Text(rank + SYMBOLS.get(suit, suit), style=RED if suit in "HD" else BLACK)


def cards_text(cards, separator: str = " ") -> Text:
    """Cards side by side, each coloured; "—" when there are none."""
    cards = list(cards)
    return Text(separator).join(card_text(card) for card in cards) if cards else Text("—", style="dim")


def suit_text(suit: int) -> Text:
    """A suit enum value as a coloured symbol and name, e.g. ♥ hearts."""
    letter = SUIT_LETTER.get(suit, "")
    if not letter:
        return Text("none")
    return Text(f"{SYMBOLS[letter]} {SUIT_NAMES[letter]}", style=RED if letter in "HD" else BLACK)


def rules_of(view: view_pb2.GameView) -> str | None:
    """Which game's own part the view carries: "spades", "spades_two_player", "buck_euchre", or None."""
    return view.WhichOneof("rules")


def game_title(view: view_pb2.GameView) -> str:
    """The game's display name: the title its view carries, else the one cardgame.games knows for
    its registry name ("spades2" -> "Two-player Spades")."""
    return games.title_of(view.variant_name, view.variant_title)


def seat_name(view: view_pb2.GameView, seat: int) -> str:
    """The display name of a seat, marked "(you)" for the viewer."""
    name = view.seats[seat].name if seat < len(view.seats) else f"seat {seat}"
    if view.HasField("viewer_seat") and view.viewer_seat == seat:
        return f"{name} (you)"
    return name


def side_name(view: view_pb2.GameView, seats) -> str:
    """The display name of a side: its players' names joined with "&"."""
    return " & ".join(view.seats[s].name for s in seats)


def action_text(action: view_pb2.LegalAction, view: view_pb2.GameView | None = None) -> Text:
    """A readable, coloured label for one legal action, from its title and what it carries."""
    title = action.title or action.notation or action.word or "?"
    shape = action.shape
    if shape == enums.ACTION_SHAPE_CARD:
        return Text(f"{title} ") + card_text(action.card)
    if shape == enums.ACTION_SHAPE_NUMBER:
        named = f" ({action.number_name.capitalize()})" if action.number_name else ""
        return Text(f"{title} {action.number}{named}")
    if shape == enums.ACTION_SHAPE_SUIT:
        return Text(f"{title}: ") + suit_text(action.suit)
    if shape == enums.ACTION_SHAPE_CARDS:
        count = str(action.min_cards) if action.min_cards == action.max_cards else \
            f"{action.min_cards} to {action.max_cards}"
        return Text(f"{title}: choose {count} card(s) from ") + cards_text(action.cards)
    return Text(title)


def _call_of(seat: view_pb2.SeatView) -> Text:
    if seat.buck_euchre.dropped_out:
        return Text("dropped out", style="dim")
    if seat.spades.double_nil:
        return Text("Double Nil", style="magenta")
    if seat.HasField("bid_tricks"):
        return Text("Nil", style="magenta") if seat.bid_tricks == 0 else Text(str(seat.bid_tricks))
    call = seat.last_call
    if call.startswith("name ") and call[5:] in SYMBOLS:
        return Text("name ") + Text(SYMBOLS[call[5:]], style=RED if call[5:] in "HD" else BLACK)
    return Text(call or "—", style="" if call else "dim")


def plural(count: int, word: str) -> str:
    """``count`` and ``word``, in the plural unless it is 1: "1 trick", "2 bags".

    >>> plural(1, "trick"), plural(0, "bag")
    ('1 trick', '0 bags')
    """
    return f"{count} {word}{'' if count == 1 else 's'}"


def has_calls(view: view_pb2.GameView) -> bool:
    """Whether any seat shows a bid or a call (a game without either gets no column for them)."""
    return any(seat.last_call or seat.HasField("bid_tricks") or seat.spades.double_nil or seat.buck_euchre.dropped_out
               for seat in view.seats)


def seats_table(view: view_pb2.GameView) -> Table:
    """One row per seat: name, bid or call (when any seat has one), tricks won, cards held,
    markers for turn/dealer/maker."""
    table = Table(box=None, pad_edge=False, show_header=True, header_style="bold")
    table.add_column("")
    table.add_column("Player")
    calls = has_calls(view)
    if calls:
        table.add_column("Bid" if rules_of(view) in SPADES_RULES else "Call")
    table.add_column("Tricks", justify="right")
    table.add_column("Cards", justify="right")
    for seat in view.seats:
        marks = []
        if view.HasField("turn") and view.turn == seat.seat:
            marks.append("▶")
        if view.dealer == seat.seat:
            marks.append("D")
        if view.buck_euchre.HasField("maker") and view.buck_euchre.maker == seat.seat:
            marks.append("M")
        name = Text(seat_name(view, seat.seat), style="bold cyan" if "▶" in marks else "")
        call = [_call_of(seat)] if calls else []
        table.add_row(" ".join(marks), name, *call, str(seat.tricks_won), str(seat.card_count))
    return table


def trick_text(view: view_pb2.GameView, trick: view_pb2.Trick) -> Text:
    """The cards of a trick in playing order, each with who played it."""
    return plays_text(view, [(play.seat, play.card) for play in trick.plays])


def plays_text(view: view_pb2.GameView, plays: list[tuple[int, str]]) -> Text:
    """Cards played, as (seat, card) in playing order, each with who played it."""
    parts = [Text(f"{view.seats[seat].name if seat < len(view.seats) else f'seat {seat}'}: ") + card_text(card)
             for seat, card in plays]
    return Text("   ").join(parts) if parts else Text("no card yet", style="dim")


def scores_text(view: view_pb2.GameView) -> Text:
    """Every side's running total (and bags in Spades)."""
    spades = rules_of(view) in SPADES_RULES
    parts = []
    for total in view.scores:
        part = Text(f"{side_name(view, total.seats)} {total.score}", style="bold")
        if spades:
            part.append(f" ({plural(total.bags, 'bag')})", style="dim")
        parts.append(part)
    return Text("   ").join(parts)


def euchre_lines(view: view_pb2.GameView) -> list[RenderableType]:
    """Buck Euchre's own lines: the turn-up, trump and the maker (none before the deal)."""
    part = view.buck_euchre
    if not part.turn_up:
        return []
    line = Text("Turn-up: ") + card_text(part.turn_up)
    if part.turn_up_turned_down:
        line.append(" (turned down)", style="dim")
    line.append("   Trump: ")
    line += Text("no trump", style="yellow") if part.no_trump else suit_text(part.trump) \
        if part.trump else Text("not settled yet", style="dim")
    if part.HasField("maker"):
        line.append(f"   Maker: {view.seats[part.maker].name}")
    return [line]


def spades_lines(view: view_pb2.GameView, part: view_pb2.SpadesView | view_pb2.SpadesTwoPlayerView
                 ) -> list[RenderableType]:
    """Either Spades game's own lines: spades broken, the draw (two players) and the Double Nil exchange."""
    lines: list[RenderableType] = []
    if view.phase_name == "play":
        lines.append(Text("Spades broken: " + ("yes" if part.spades_broken else "no")))
    if isinstance(part, view_pb2.SpadesTwoPlayerView) and part.offered_card:
        lines.append(Text("Offered card: ") + card_text(part.offered_card)
                     + Text(f"   ({part.stock_count} left in the stock)"))
    if isinstance(part, view_pb2.SpadesTwoPlayerView) and part.seen_discards:
        lines.append(Text("Your discards: ") + cards_text(part.seen_discards))
    if part.exchange_given or part.exchange_received:
        lines.append(Text("Exchange: gave ") + cards_text(part.exchange_given) + Text(", received ")
                     + cards_text(part.exchange_received))
    return lines


def field_label(name: str) -> str:
    """A field's name as a label: "pass_direction" -> "Pass direction"."""
    return name.replace("_", " ").capitalize()


def value_text(view: view_pb2.GameView, field, value) -> Text | None:
    """One set field of a game's own view message as text; None for a kind it does not draw
    (a nested message)."""
    if field.type == field.TYPE_MESSAGE:
        return None
    # protobuf 6.31 has ``is_repeated`` (and deprecates ``label``); older releases only ``label``
    repeated = field.is_repeated if hasattr(field, "is_repeated") else field.label == field.LABEL_REPEATED
    if field.type == field.TYPE_ENUM:   # VARIANT_BUCK_EUCHRE -> "buck euchre": the enum's own prefix off
        prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", field.enum_type.name).upper() + "_"
        names = field.enum_type.values_by_number
        return Text(", ".join(names[v].name.removeprefix(prefix).lower().replace("_", " ") if v in names else str(v)
                              for v in (value if repeated else [value])))
    if field.type == field.TYPE_BOOL:
        return Text("yes" if value else "no")
    if not repeated:
        return card_text(value) if isinstance(value, str) and normalize_card(value) == value else Text(str(value))
    values = list(value)
    if values and all(isinstance(v, str) and normalize_card(v) == v for v in values):
        return cards_text(values)
    if len(values) == len(view.seats) and all(isinstance(v, int) for v in values):
        return Text(", ".join(f"{view.seats[seat].name} {v}" for seat, v in enumerate(values)))
    return Text(", ".join(str(v) for v in values))


def rules_lines(view: view_pb2.GameView) -> list[RenderableType]:
    """The lines of a game's own view message read field by field: one line per field that is
    set (a bool that is set is true), in the message's order."""
    rules = rules_of(view)
    if rules is None:
        return []
    lines: list[RenderableType] = []
    for field, value in getattr(view, rules).ListFields():
        text = value_text(view, field, value)
        if text is not None:
            lines.append(Text(f"{field_label(field.name)}: ") + text)
    return lines


GAME_LINES = {
    "buck_euchre": euchre_lines,
    "spades": lambda view: spades_lines(view, view.spades),
    "spades_two_player": lambda view: spades_lines(view, view.spades_two_player),
}
"""The lines of the games drawn with a layout of their own, by their view's ``rules`` case; any
other game's part is drawn by :func:`rules_lines`."""


def view_panel(view: view_pb2.GameView) -> Panel:
    """The whole table as the caller sees it: players, trump, tricks, scores and the caller's hand."""
    lines: list[RenderableType] = [seats_table(view), Text()]
    lines += GAME_LINES.get(rules_of(view) or "", rules_lines)(view)
    if view.HasField("last_trick") and view.last_trick.plays:
        winner = view.seats[view.last_trick.winner].name if view.last_trick.HasField("winner") else "?"
        lines.append(Text(f"Last trick (won by {winner}): ") + trick_text(view, view.last_trick))
    if view.phase_name == "play":
        lines.append(Text("Trick in progress: ", style="bold") + trick_text(view, view.current_trick))
    lines.append(Text("Scores: ") + scores_text(view))
    lines.append(Text())
    if view.hand_visible:
        lines.append(Text("Your hand: ", style="bold") + cards_text(view.hand))
    elif view.HasField("viewer_seat"):
        count = view.seats[view.viewer_seat].card_count
        lines.append(Text(f"Your hand: {count} cards, not looked at yet" if count else "Your hand: no cards yet",
                          style="italic"))
    phase = view.phase_title or view.phase_name or "?"
    hand = "" if view.phase_name == "deal" else f" · hand {view.hand_number}"
    title = f"{game_title(view)}{hand} · {phase}"
    return Panel(Group(*lines), title=title, title_align="left", expand=False)


def euchre_cell(seat: score_pb2.SeatScore, total_after: int) -> Text:
    """One player's Buck Euchre hand: tricks won, points (+ penalty) and points left, M for the maker."""
    part = seat.buck_euchre
    if part.dropped_out:
        return Text(f"out → {total_after}", style="dim")
    text = Text(f"{seat.tricks_won} tk {seat.points:+d} → {total_after}", style="red" if part.penalty else "")
    if part.is_maker:
        text.append(" M", style="bold")
    return text


def spades_cell(side: score_pb2.SideScore) -> Text:
    """One side's Spades hand: contract/tricks, hand points and the total, with Nil and bag penalties."""
    text = Text(f"{side.contract}/{side.tricks}", style="red" if side.contract_points < 0 else "")
    text.append(f" {side.hand_points:+d} → {side.total_after}")
    if side.nil_points:
        text.append(f" nil {side.nil_points:+d}", style="magenta")
    if side.bag_penalty:  # points lost to sandbagging: negative, like every point change
        text.append(f" bags {side.bag_penalty:+d}", style="red")
    return text


def plain_cell(side: score_pb2.SideScore) -> Text:
    """One side's hand in a game without a layout of its own: tricks, hand points and the total."""
    return Text(f"{plural(side.tricks, 'trick')} {side.hand_points:+d} → {side.total_after}")


def score_rows(score: pb.GetScoreResponse, view: view_pb2.GameView) -> list[list[Text]]:
    """One row of cells per completed hand, one cell per side, laid out by the hand's own ``rules``
    case (totals recomputed where not sent)."""
    running = {t.side: view.options.buck_euchre.starting_score for t in score.totals}
    rows = []
    for hand in score.hands:
        kind = hand.WhichOneof("rules")
        sides = {side.side: side for side in hand.sides}
        row = []
        for total in score.totals:
            side = sides.get(total.side)
            if kind == "buck_euchre":
                seat = hand.seats[total.seats[0]]
                running[total.side] = side.total_after if side else running[total.side] + seat.points
                row.append(euchre_cell(seat, running[total.side]))
            else:
                cell = spades_cell if kind == "spades" else plain_cell
                row.append(cell(side) if side else Text("?"))
        rows.append(row)
    return rows


def score_table(score: pb.GetScoreResponse, view: view_pb2.GameView) -> Table:
    """The running score table: one row per completed hand, one column per side, totals at the foot."""
    kind = rules_of(view)
    captions = {"buck_euchre": "tricks won, points (+ adds, − takes away) → points left; M = maker",
                "spades": "contract/tricks won, hand points → total"}
    caption = captions.get("spades" if kind in SPADES_RULES else kind or "", "tricks won, hand points → total")
    table = Table(title="Score", caption=caption, show_footer=True)
    table.add_column("Hand", footer="Total", justify="right")
    for total in score.totals:
        footer = f"{total.score} ({plural(total.bags, 'bag')})" if kind in SPADES_RULES else str(total.score)
        table.add_column(side_name(view, total.seats), footer=footer, justify="right")
    for hand, row in zip(score.hands, score_rows(score, view), strict=True):
        table.add_row(str(hand.hand_number), *row)
    return table


def winner_text(view: view_pb2.GameView, score: pb.GetScoreResponse | None = None) -> Text:
    """The closing line naming the winner and their score."""
    seats = list(view.winner_seats) or list(score.winner_seats if score else [])
    if not view.HasField("winner_side") and not seats:
        return Text("The game is over.", style="bold")
    side = view.winner_side
    total = next((t.score for t in view.scores if t.side == side), None)
    names = side_name(view, seats)
    you = view.HasField("viewer_seat") and view.viewer_seat in seats
    text = Text(f"Winner: {names} with {total} points", style="bold green" if you else "bold yellow")
    if score is not None and score.hands and score.hands[-1].buck_euchre.HasField("swept_by"):
        text.append(" (took all five tricks)")
    text.append(" — you win!" if you else " — better luck next time.")
    return text
