"""`cardgame play <game>`: play a whole game of any game the server has against its bots.

The table is drawn with rich; only the legal choices are offered, as a menu built from the words
the server sends (each legal action's word, shape and title: the terminal knows no game's
actions). A choice is made by its menu key, or by typing a move: a legal action's notation or
title ("bid 4", "order up", "stay in"), its word and what it carries ("name hearts"), a card
("AS"), the cards of an exchange or pass ("2C 3D 4H"), a suit, or a number while numbers are
offered. Every move goes to the server by its Act notation, and the server has the last word: a
refusal is shown with its reason.

>>> from cardgame.v1 import view_pb2
>>> view = view_pb2.GameView(legal_actions=[
...     view_pb2.LegalAction(word="name", shape=enums.ACTION_SHAPE_SUIT, notation="name H", title="Name trump"),
...     view_pb2.LegalAction(word="pass", shape=enums.ACTION_SHAPE_NONE, notation="pass", title="Pass")])
>>> typed_notation("name hearts", view), typed_notation("Hearts", view), typed_notation("PASS", view)
('name H', 'name H', 'pass')
>>> typed_notation("AS", view), typed_notation("ZZ", view)
(None, None)
>>> from cardgame.v1 import catalog_pb2
>>> catalog = [catalog_pb2.GameDescription(name="buck_euchre", title="Buck Euchre", seats=4)]
>>> find_game(catalog, "Buck-Euchre").title, find_game(catalog, "bridge"), option_argument("target_score=300")
('Buck Euchre', None, ('target_score', '300'))
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from rich.columns import Columns
from rich.console import Console
from rich.text import Text

from cardgame import errors, games
from cardgame.client import GameClient, GameView, LegalAction
from cardgame.render import (
    action_text,
    cards_text,
    normalize_card,
    plays_text,
    score_table,
    view_panel,
    winner_text,
)
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1.catalog_pb2 import GameDescription
from cardgame.v1.lifecycle_pb2 import HistoryEntry
from cardgame.v1.score_pb2 import HandScore

DEFAULT_SERVER = "localhost:50051"
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
BOT_NAMES = {2: ["Bot"], 3: ["West", "East"], 4: ["West", "North", "East"]}
SUIT_WORDS = {"c": "C", "club": "C", "clubs": "C", "d": "D", "diamond": "D", "diamonds": "D", "h": "H",
              "heart": "H", "hearts": "H", "s": "S", "spade": "S", "spades": "S"}
HELP = ("Type the key of a choice from the menu. You may also type a move: a choice's words (bid 4, order up, "
        "name H), a card (AS, 10H), several cards to give or pass (2C 3D 4H), a suit (hearts), or a number "
        "while numbers are offered. 'help' shows this, 'quit' leaves the game.")


@dataclass
class Choice:
    """One menu entry: its key, its label and the legal action it takes (with exchange cards)."""

    key: str
    label: Text
    action: LegalAction
    cards: list[str] | None = None
    pick_cards: bool = False


def typed_notation(text: str, view: GameView) -> str | None:
    """The Act notation of a typed move, read against the view's legal actions; None when it is
    none of them (the server judges the rest: a card it may not play, a number out of range).

    Read in order: a legal action's notation, word or title as typed ("order up", "stay in"); a
    legal word followed by what it carries ("bid 4", "name hearts", "exchange 2C 3D"); a card, or
    cards, for the word that takes them; a suit for the word that names one; a number for the
    word that takes one.
    """
    words = text.strip().lower().replace(",", " ").split()
    if not words:
        return None
    legal = list(view.legal_actions)
    joined = " ".join(words)
    for action in legal:
        spellings = {action.notation.lower(), action.title.lower(), action.word.replace("-", " ")}
        if action.shape == enums.ACTION_SHAPE_NONE and joined in spellings:
            return action.notation
        if action.shape == enums.ACTION_SHAPE_NUMBER and action.number_name and joined == action.number_name:
            return action.notation
    by_word = {action.word: action for action in legal}
    for length in (2, 1):   # a word written in two ("double nil") or one
        head = "-".join(words[:length])
        if len(words) > length and head in by_word:   # the server reads what follows its word
            return _with_argument(by_word[head], words[length:]) or " ".join([head, *words[length:]])
    for action in legal:
        if action.shape != enums.ACTION_SHAPE_NONE and joined == action.notation.lower():
            return action.notation
    for action in legal:
        argument = _with_argument(action, words)
        if argument is not None:
            return argument
    return None


def _with_argument(action: LegalAction, words: list[str]) -> str | None:
    """The notation of ``action``'s word carrying ``words`` (cards, a suit, a number), or None
    when they are not what it carries."""
    shape = action.shape
    if shape in (enums.ACTION_SHAPE_CARD, enums.ACTION_SHAPE_CARDS):
        cards = [normalize_card(word) for word in words]
        if not all(cards) or (shape == enums.ACTION_SHAPE_CARD and len(cards) != 1):
            return None
        return " ".join([action.word, *(card for card in cards if card)])
    if shape == enums.ACTION_SHAPE_SUIT and len(words) == 1 and words[0] in SUIT_WORDS:
        return f"{action.word} {SUIT_WORDS[words[0]]}"
    if shape == enums.ACTION_SHAPE_NUMBER and len(words) == 1 and words[0].lstrip("-").isdigit():
        return f"{action.word} {int(words[0])}"
    return None


def suggested_cards(view: GameView, action: LegalAction) -> list[str]:
    """A sensible exchange: a Nil or Double Nil bidder gives its highest cards (the jokers first),
    its partner its lowest.

    >>> from cardgame.v1.view_pb2 import SeatView
    >>> offered = LegalAction(cards=["2C", "AS", "BJ", "9H"], min_cards=2, max_cards=2)
    >>> nil = GameView(viewer_seat=0, seats=[SeatView(bid_tricks=0)])
    >>> suggested_cards(nil, offered), suggested_cards(GameView(viewer_seat=0, seats=[SeatView()]), offered)
    (['AS', 'BJ'], ['2C', '9H'])
    """
    ranked = sorted(action.cards, key=_strength)
    me = view.seats[view.viewer_seat] if view.HasField("viewer_seat") else None
    double_nil = me is not None and me.spades.double_nil
    nil = double_nil or (me is not None and me.HasField("bid_tricks") and me.bid_tricks == 0)
    count = action.max_cards if double_nil else action.min_cards
    count = max(action.min_cards, min(count, action.max_cards))
    if nil:
        return ranked[len(ranked) - count:] if count else []
    return ranked[:count]


def _strength(card: str) -> tuple[int, bool]:
    """A card's place from weakest to strongest for an exchange: by rank, a spade above the other
    suits' cards of its rank, the jokers above everything (the Little one below the Big)."""
    if card in ("LJ", "BJ"):
        return len(RANKS) + (card == "BJ"), True
    return RANKS.index(card[:-1]), card[-1] == "S"


def numbered(view: GameView) -> list[LegalAction]:
    """The legal actions that carry a number (a bid's): the menu keys them by their numbers."""
    return [a for a in view.legal_actions if a.shape == enums.ACTION_SHAPE_NUMBER]


def build_menu(view: GameView) -> list[Choice]:
    """The menu of the caller's legal actions. While numbers are offered (bids), their keys are
    the numbers and the other actions take the first free letter of their word."""
    by_number = bool(numbered(view))
    menu: list[Choice] = []

    def next_key() -> str:
        """The next free number key."""
        return str(sum(1 for c in menu if c.key.isdigit()) + 1)

    def letter_key(action: LegalAction) -> str:
        """The first letter of the action's word (or title) that no other choice has taken."""
        taken = {c.key for c in menu}
        return next((ch for ch in action.word + action.title.lower() if ch.isalpha() and ch not in taken), "?")

    for action in view.legal_actions:
        if by_number:
            key = str(action.number) if action.shape == enums.ACTION_SHAPE_NUMBER else letter_key(action)
            menu.append(Choice(key, action_text(action, view), action))
        elif action.shape == enums.ACTION_SHAPE_CARDS and action.max_cards == 1 and action.min_cards == 1:
            for card in action.cards:   # one card to choose (a discard): one entry per card
                menu.append(Choice(next_key(), Text(f"{action.title or action.word} ") + cards_text([card]),
                                   action, [card]))
        elif action.shape == enums.ACTION_SHAPE_CARDS:   # cards to choose: an exchange, a pass
            cards = suggested_cards(view, action)
            label = Text(f"{action.title or action.word} ") + cards_text(cards) + Text(" (suggested)")
            menu.append(Choice(next_key(), label, action, cards))
            menu.append(Choice(next_key(), Text("choose the cards yourself"), action, pick_cards=True))
        else:
            menu.append(Choice(next_key(), action_text(action, view), action))
    return menu


def make_console(color: str = "auto") -> Console:
    """A rich Console: colours when the output is a terminal (or FORCE_COLOR), always, or never."""
    if color == "never":
        return Console(color_system=None, force_terminal=False, highlight=False)
    if color == "always":
        console = Console(force_terminal=True, highlight=False)
        return console if console.color_system else Console(force_terminal=True, color_system="standard",
                                                            highlight=False)
    return Console(highlight=False)


@dataclass
class Session:
    """One person's game: draws the table, offers the legal choices, sends the chosen moves."""

    console: Console
    client: GameClient
    game_id: str
    read: Callable[[], str | None]
    echo: bool = False
    hands_shown: int = 0
    hand_number: int = 0
    view: GameView = field(default_factory=GameView)
    prior: GameView = field(default_factory=GameView)   # the last view seen before the current one

    def say_error(self, message: str) -> None:
        """Print a rejected input's message."""
        self.console.print(Text("✗ ", style="bold red") + Text(message, style="red"))

    def ask(self, prompt: str) -> str | None:
        """Print a prompt and read one line; None at end of input."""
        self.console.print(Text(prompt, style="bold"), end="")
        line = self.read()
        if line is None:
            self.console.print()
            return None
        if self.echo:
            self.console.print(line.rstrip("\n"), markup=False, highlight=False)
        return line.strip()

    def show_scores(self, view: GameView) -> None:
        """Print the score table when a hand has been completed since it was last printed."""
        if view.hand_number == self.hand_number and view.phase_name != "game_over":
            return
        self.hand_number = view.hand_number
        score = self.client.get_score(self.game_id)
        if len(score.hands) > self.hands_shown:
            last = score.hands[-1].hand_number
            self.show_last_trick(view, score.hands[-1])
            self.console.rule(f"Hand {last} is over")
            self.console.print(score_table(score, view))
            self.hands_shown = len(score.hands)

    def show_last_trick(self, view: GameView, hand: HandScore) -> None:
        """Print the finished hand's last trick, which the views may never have shown: bots finish
        the hand within the caller's move, and a bot dealer deals the next one at once."""
        trick = last_trick_of(hand, view, self.prior, lambda: self.client.history_entries(self.game_id))
        if trick is not None:
            plays, winner = trick
            won = f" (won by {view.seats[winner].name})" if winner is not None and winner < len(view.seats) else ""
            self.console.print(Text(f"Last trick of hand {hand.hand_number}{won}: ", style="bold")
                               + plays_text(view, plays))

    def seen(self, view: GameView) -> GameView:
        """Remember ``view`` as the latest, the one before it as the prior; returns it."""
        self.prior, self.view = self.view, view
        return view

    def show_menu(self, menu: list[Choice]) -> None:
        """Print the legal choices with their keys (bids compactly on one line)."""
        bids = [c for c in menu if c.action.shape == enums.ACTION_SHAPE_NUMBER]
        if bids:
            line = Text(f"{bids[0].action.title or bids[0].action.word}: ", style="bold")
            line += Text("  ").join(Text(c.key + (f" ({c.action.number_name.capitalize()})" if c.action.number_name
                                                   else ""), style="bold cyan") for c in bids)
            self.console.print(line)
        items = [Text(f"{c.key}) ", style="bold cyan") + c.label for c in menu if c not in bids]
        if items:
            self.console.print(Columns(items, padding=(0, 3)))

    def run(self) -> int:
        """Play until the game is over or input ends; returns the exit status."""
        view = self.seen(self.client.get_game(self.game_id))
        self.hand_number = view.hand_number
        while view.phase_name != "game_over":
            menu = build_menu(view)
            if not menu:
                view = self.seen(self.wait_for_turn(view))
                self.show_scores(view)
                continue
            self.console.print(view_panel(view))
            self.show_menu(menu)
            next_view = self.turn(view, menu)
            if next_view is None:
                self.console.print(f"Leaving the game. Its id is {self.game_id}.")
                return 0
            view = self.seen(next_view)
            self.show_scores(view)
        self.console.print(view_panel(view))
        self.show_scores(view)
        score = self.client.get_score(self.game_id)
        if self.hands_shown == 0:
            self.console.print(score_table(score, view))
        self.console.print(winner_text(view, score))
        return 0

    def wait_for_turn(self, view: GameView, seconds: float = 30.0) -> GameView:
        """Poll until the caller has something to do (bots normally answer at once)."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            time.sleep(0.2)
            polled = self.client.get_game(self.game_id)
            if polled.legal_actions or polled.phase_name == "game_over" or polled.hand_number != view.hand_number:
                return polled   # the caller's turn, or a hand over (its last trick and score first)
            view = self.seen(polled)
        raise errors.DeadlineExceeded("nobody moved for a long time")

    def turn(self, view: GameView, menu: list[Choice]) -> GameView | None:
        """Read input until one move is accepted; returns the new view, or None to leave."""
        numbers = [c for c in menu if c.action.shape == enums.ACTION_SHAPE_NUMBER]
        prompt = (f"Your {(numbers[0].action.title or numbers[0].action.word).lower()} (a number, 'help'): " if numbers
                  else "Your choice (a number, a card like AS, 'help'): ")
        keys = {c.key: c for c in menu}
        while True:
            text = self.ask(prompt)
            if text is None:
                self.console.print(Text("End of input.", style="yellow"))
                return None
            if not text:
                continue
            lowered = text.lower()
            if lowered in ("q", "quit", "exit"):
                return None
            if lowered in ("help", "?", "h"):
                self.console.print(Text(HELP))
                self.console.print(view_panel(view))
                self.show_menu(menu)
                continue
            try:
                if lowered in keys:
                    result = self.take(view, keys[lowered])
                elif text.isdigit():
                    self.say_error(f"{text} is not one of the choices: type one of {', '.join(keys)}.")
                    continue
                else:
                    result = self.typed(view, text)
            except errors.GameError as exc:
                if exc.code in (errors.Unavailable.code, errors.NotFound.code, errors.Unauthenticated.code):
                    raise
                reason = f" [{exc.reason}]" if exc.reason else ""
                self.say_error(f"Rejected: {exc.describe()}{reason}")
                continue
            if result is not None:
                return result

    def take(self, view: GameView, choice: Choice) -> GameView | None:
        """Take a menu choice (asking for the cards of a self-chosen exchange)."""
        if not choice.pick_cards:
            return self.client.act(view, choice.action, choice.cards)
        action = choice.action
        while True:
            count = str(action.min_cards) if action.min_cards == action.max_cards else \
                f"{action.min_cards} to {action.max_cards}"
            text = self.ask(f"Cards ({count} of the above, e.g. "
                            f"{' '.join(action.cards[:max(action.min_cards, 1)])}; empty to go back): ")
            if not text:
                return None
            words = text.replace(",", " ").split()
            cards = [card for card in map(normalize_card, words) if card is not None]
            if len(cards) < len(words):
                self.say_error(f"{text!r} is not a list of cards such as AS 10H 2C.")
                continue
            return self.client.act(view, action, cards)

    def typed(self, view: GameView, text: str) -> GameView | None:
        """Send a typed move to the server (which judges it); None after a local error message."""
        notation = typed_notation(text, view)
        if notation is None:
            offered = ", ".join(sorted({a.word for a in view.legal_actions}))
            self.say_error(f"{text!r} is not a choice, a card or a call ({offered}). Type a number from the "
                           "menu, a card like AS, or 'help'.")
            return None
        return self.client.act(self.game_id, notation)


Play = tuple[int, str]   # a seat and the card it played


def last_trick_of(hand: HandScore, view: GameView, prior: GameView,
                  history: Callable[[], Iterable[HistoryEntry]]) -> tuple[list[Play], int | None] | None:
    """The last trick of the finished ``hand`` and its winner (None when unknown); None when it
    had no trick or nothing shows it. ``view`` is the view after the hand, ``prior`` the last one
    seen before it. A view still of the hand after its end (between hands: the dealer's turn, or
    the game over) holds it as its last trick; otherwise the hand's last plays are read from the
    game's log (``history``) after ``prior``, the last view of the hand, completing its tricks."""
    for candidate in (view, prior):
        if (candidate.hand_number == hand.hand_number and candidate.phase_name in ("deal", "game_over")
                and candidate.last_trick.plays):
            last = candidate.last_trick
            return [(p.seat, p.card) for p in last.plays], last.winner if last.HasField("winner") else None
    if prior.hand_number != hand.hand_number or not prior.seats:
        return None
    plays: list[Play] = [(p.seat, p.card) for p in prior.current_trick.plays]
    for entry in history():
        if entry.version <= prior.version:
            continue
        word, _, card = entry.action.partition(" ")
        if word == "deal":   # the next hand's
            break
        if word == "play" and entry.HasField("seat"):
            plays.append((entry.seat, card.strip()))
    size = len(prior.last_trick.plays) or len(prior.seats)   # the players in each trick of the hand
    done = len(plays) // size
    if not done:
        return None
    tricks = [plays[i * size:(i + 1) * size] for i in range(done)]
    # Each trick's winner leads the next; the last one's is the seat left with a trick more in the score.
    won = {s.seat: s.tricks_won for s in hand.seats}
    for seat in prior.seats:
        won[seat.seat] = won.get(seat.seat, 0) - seat.tricks_won
    for trick in tricks[1:]:
        won[trick[0][0]] = won.get(trick[0][0], 0) - 1
    left = [seat for seat, count in won.items() if count > 0]
    return tricks[-1], left[0] if len(left) == 1 else None


def find_game(catalog: list[GameDescription], text: str) -> GameDescription | None:
    """The game of the server's catalog that ``text`` names: its registry name, title or an alias,
    in any case, with "-", "_" or spaces between words; None for none."""
    wanted = games.fold(text)
    for game in catalog:
        if wanted in {games.fold(name) for name in (game.name, game.title, *game.aliases)}:
            return game
    known = games.find(text)   # a Variant name ("VARIANT_SPADES") the schema declares
    return next((game for game in catalog if known is not None and game.name == known.name), None)


def option_argument(text: str) -> tuple[str, str]:
    """A ``--option name=value`` argument as (name, value); an argparse error for another shape."""
    name, equals, value = text.partition("=")
    if not equals or not name.strip() or not value.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not name=value, e.g. target_score=300")
    return name.strip(), value.strip()


def build_parser() -> argparse.ArgumentParser:
    """The command-line parser of `cardgame`."""
    parser = argparse.ArgumentParser(prog="cardgame", description="Play card games against the server's bots.")
    commands = parser.add_subparsers(dest="command", required=True)
    play = commands.add_parser("play", help="play a whole game against bots")
    play.add_argument("variant", metavar="GAME",
                      help="the game to play: any game the server plays, in any spelling of its name (e.g. spades, "
                           "buck-euchre or 'Buck Euchre'); an unknown name lists the server's games")
    play.add_argument("--server", default=os.environ.get("CARDGAME_SERVER", DEFAULT_SERVER),
                      help=f"HOST:PORT of the game server (CARDGAME_SERVER, default {DEFAULT_SERVER})")
    play.add_argument("--name", default="You", help="your name at the table")
    play.add_argument("--bots", choices=["basic", "random", "strong"], default="basic", help="how the bots play")
    play.add_argument("--seed", type=int, help="reproducible shuffle (only when the server allows it)")
    play.add_argument("--first-dealer", type=int, metavar="SEAT",
                      help="the seat that deals first (you are seat 0; the others follow clockwise)")
    play.add_argument("--target", type=int,
                      help="a shorter or longer game: the game's target or starting score (Spades 500, Buck Euchre "
                           "25)")
    play.add_argument("--option", type=option_argument, action="append", default=[], metavar="NAME=VALUE",
                      help="a setting of the game (repeatable), e.g. --option target_score=300 "
                           "--option double_nil_allowed=false; the server names a bad one and what it takes")
    play.add_argument("--color", choices=["auto", "always", "never"], default="auto",
                      help="colours: when the output is a terminal or FORCE_COLOR is set (auto), always, never")
    return parser


def seats_of(game: GameDescription, options: dict[str, str]) -> int:
    """How many seats the game takes with these settings: the one its seat setting gives (Hearts'
    ``players``), else its number of seats; the server refuses a count it does not take.

    >>> hearts = GameDescription(name="hearts", seats=4, seat_counts=[3, 4], seat_setting="players")
    >>> seats_of(hearts, {"players": "3"}), seats_of(hearts, {}), seats_of(hearts, {"players": "x"})
    (3, 4, 4)
    """
    given = options.get(game.seat_setting, "") if game.seat_setting else ""
    return int(given) if given.strip().isdigit() else game.seats


def play(args: argparse.Namespace, console: Console) -> int:
    """Create the game (the caller at seat 0, bots elsewhere) and play it to the end."""
    with GameClient(args.server) as client:
        catalog = client.catalog()
        game = find_game(catalog, args.variant)
        if game is None:
            known = ", ".join(g.name.replace("_", "-") for g in catalog)
            console.print(Text(f"The server plays no game {args.variant!r}: choose one of {known}", style="red"))
            return 2
        options = dict(args.option)
        if args.target is not None and game.target_setting:
            options.setdefault(game.target_setting, str(args.target))
        seats = seats_of(game, options)
        bots = [(name, args.bots) for name in BOT_NAMES.get(seats, [f"Bot {i}" for i in range(1, seats)])]
        try:
            created = client.create_game(game.name, [args.name, *bots], options=options or None,
                                         shuffle_seed=args.seed, first_dealer=args.first_dealer)
        except (errors.PermissionDenied, errors.InvalidArgument) as exc:
            console.print(Text(f"The server refused the game: {exc.message}", style="red"))
            return 2
        console.print(Text.assemble("Game ", (created.game_id, "bold"),
                                    f" created on {args.server}. Type 'help' for help."))
        session = Session(console, client.with_token(created.tokens[0]), created.game_id, read_line,
                          echo=not sys.stdin.isatty())
        return session.run()


def read_line() -> str | None:
    """One line from standard input; None at its end."""
    line = sys.stdin.readline()
    return line if line else None


def main(argv: list[str] | None = None) -> int:
    """The `cardgame` command."""
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="replace")
    args = build_parser().parse_args(argv)
    console = make_console(args.color)
    try:
        return play(args, console)
    except errors.Unavailable as exc:
        console.print(Text(f"Cannot reach the game server at {args.server}: {exc.message}", style="red"))
        return 2
    except errors.GameError as exc:
        console.print(Text(f"The game cannot go on: {exc.describe()}", style="red"))
        return 2
    except KeyboardInterrupt:
        console.print("\nInterrupted; bye.")
        return 130


if __name__ == "__main__":
    sys.exit(main())
