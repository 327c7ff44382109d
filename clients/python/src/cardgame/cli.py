"""`cardgame play spades|spades2|buck-euchre`: play a whole game against the server's bots.

The table is drawn with rich; only the legal choices are offered, as a menu. A choice is made
by its menu key, or by typing a card ("AS"), a bid ("bid 4", or just the number while
bidding) or a call ("pass", "order up", "name H", "stay", "drop", "keep", "discard").
Every move goes to the server by its Act notation, and the server has the last word: a refusal
is shown with its reason.

>>> parse_command("bid 4"), parse_command("AS"), parse_command("name hearts"), parse_command("ZZ")
(('bid', 4), ('cards', ['AS']), ('name', 'H'), None)
>>> command_notation(("cards", ["2C", "3D"]), choosing="exchange"), command_notation(("name", "H"), choosing=None)
('exchange 2C 3D', 'name H')
>>> game_argument("Buck_Euchre").name, game_argument("VARIANT_SPADES_TWO_PLAYER").seats
('buck_euchre', 2)
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from rich.columns import Columns
from rich.console import Console
from rich.text import Text

from cardgame import errors, games
from cardgame.client import GameClient, GameView, LegalAction
from cardgame.render import action_text, cards_text, normalize_card, score_table, view_panel, winner_text
from cardgame.v1 import enums_pb2 as enums

DEFAULT_SERVER = "localhost:50051"
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
BOT_NAMES = {2: ["Bot"], 4: ["West", "North", "East"]}
CALLS = {"pass": ("pass",), "order up": ("order-up",), "order-up": ("order-up",), "order": ("order-up",),
         "stay": ("stay",), "stay in": ("stay",), "drop": ("drop",), "drop out": ("drop",), "keep": ("keep",),
         "discard": ("discard",), "reveal": ("reveal",), "look": ("reveal",), "deal": ("deal",),
         "nil": ("bid", 0), "double nil": ("double-nil",), "double-nil": ("double-nil",), "dn": ("double-nil",),
         "blind nil": ("double-nil",)}
SUIT_WORDS = {"c": "C", "club": "C", "clubs": "C", "d": "D", "diamond": "D", "diamonds": "D", "h": "H",
              "heart": "H", "hearts": "H", "s": "S", "spade": "S", "spades": "S"}
HELP = ("Type the key of a choice from the menu. You may also type a card (AS, 10H), several cards for an "
        "exchange (2C 3D 4H), a bid (bid 4, nil, double nil), or a call (pass, order up, name H, stay, drop, "
        "keep, discard, look, deal). 'help' shows this, 'quit' leaves the game.")


@dataclass
class Choice:
    """One menu entry: its key, its label and the legal action it takes (with exchange cards)."""

    key: str
    label: Text
    action: LegalAction
    cards: list[str] | None = None
    pick_cards: bool = False


def parse_command(text: str) -> tuple | None:
    """A typed move as (kind, argument...), e.g. ("bid", 4), ("cards", ["AS"]), ("pass",); None if unknown."""
    words = text.strip().lower().replace(",", " ").split()
    if not words:
        return None
    joined = " ".join(words)
    if joined in CALLS:
        return CALLS[joined]
    if words[0] in ("bid", "b") and len(words) == 2 and words[1].lstrip("-").isdigit():
        return ("bid", int(words[1]))
    if words[0] in ("name", "call") and len(words) == 2 and words[1] in SUIT_WORDS:
        return ("name", SUIT_WORDS[words[1]])
    if len(words) == 1 and len(words[0]) > 1 and words[0] in SUIT_WORDS:
        return ("name", SUIT_WORDS[words[0]])
    cards = [normalize_card(word) for word in words]
    if all(cards):
        return ("cards", cards)
    return None


def command_notation(command: tuple, choosing: str | None) -> str | None:
    """The Act notation of a parsed command (``choosing``: the notation of the view's action that
    chooses cards, if any); None for several cards to play (one at a time)."""
    kind, *args = command
    if kind == "cards":
        if choosing:
            return " ".join([choosing, *args[0]])
        return f"play {args[0][0]}" if len(args[0]) == 1 else None
    if kind in ("bid", "name"):
        return f"{kind} {args[0]}"
    return kind


def suggested_cards(view: GameView, action: LegalAction) -> list[str]:
    """A sensible exchange: a Double Nil bidder gives its highest cards, its partner its lowest."""
    ranked = sorted(action.cards, key=lambda card: (RANKS.index(card[:-1]), card[-1] == "S"))
    me = view.seats[view.viewer_seat] if view.HasField("viewer_seat") else None
    double_nil = me is not None and me.spades.double_nil
    count = action.max_cards if double_nil else action.min_cards
    count = max(action.min_cards, min(count, action.max_cards))
    if double_nil:
        return ranked[len(ranked) - count:] if count else []
    return ranked[:count]


def build_menu(view: GameView) -> list[Choice]:
    """The menu of the caller's legal actions; while bidding, the keys are the bid numbers."""
    actions = [a for a in view.legal_actions if a.kind != enums.ACTION_KIND_DOUBLE_NIL]
    actions += [a for a in view.legal_actions if a.kind == enums.ACTION_KIND_DOUBLE_NIL]
    bidding = any(a.kind == enums.ACTION_KIND_BID for a in actions)
    letters = {enums.ACTION_KIND_REVEAL: "r", enums.ACTION_KIND_DOUBLE_NIL: "d"}
    menu: list[Choice] = []

    def next_key() -> str:
        """The next free number key."""
        return str(sum(1 for c in menu if c.key.isdigit()) + 1)

    for action in actions:
        if bidding:
            key = str(action.tricks) if action.kind == enums.ACTION_KIND_BID else letters.get(action.kind, "?")
            menu.append(Choice(key, action_text(action, view), action))
        elif action.max_cards == 1 and action.min_cards == 1:   # one card to choose: a discard
            word = "discard" if action.kind == enums.ACTION_KIND_EXCHANGE else action.notation
            for card in action.cards:
                menu.append(Choice(next_key(), Text(f"{word} ") + cards_text([card]), action, [card]))
        elif action.max_cards:   # cards to choose: an exchange, a pass
            cards = suggested_cards(view, action)
            label = Text(f"{action.notation} ") + cards_text(cards) + Text(" (suggested)")
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
        if view.hand_number == self.hand_number and view.phase != enums.PHASE_GAME_OVER:
            return
        self.hand_number = view.hand_number
        score = self.client.get_score(self.game_id)
        if len(score.hands) > self.hands_shown:
            last = score.hands[-1].hand_number
            self.console.rule(f"Hand {last} is over")
            self.console.print(score_table(score, view))
            self.hands_shown = len(score.hands)

    def show_menu(self, menu: list[Choice]) -> None:
        """Print the legal choices with their keys (bids compactly on one line)."""
        bids = [c for c in menu if c.action.kind == enums.ACTION_KIND_BID]
        if bids:
            line = Text("Bid: ", style="bold")
            line += Text("  ").join(Text(c.key + (" (Nil)" if c.key == "0" else ""), style="bold cyan") for c in bids)
            self.console.print(line)
        items = [Text(f"{c.key}) ", style="bold cyan") + c.label for c in menu if c not in bids]
        if items:
            self.console.print(Columns(items, padding=(0, 3)))

    def run(self) -> int:
        """Play until the game is over or input ends; returns the exit status."""
        view = self.client.get_game(self.game_id)
        self.hand_number = view.hand_number
        while view.phase != enums.PHASE_GAME_OVER:
            menu = build_menu(view)
            if not menu:
                view = self.wait_for_turn(view)
                continue
            self.console.print(view_panel(view))
            self.show_menu(menu)
            next_view = self.turn(view, menu)
            if next_view is None:
                self.console.print(f"Leaving the game. Its id is {self.game_id}.")
                return 0
            view = next_view
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
            view = self.client.get_game(self.game_id)
            if view.legal_actions or view.phase == enums.PHASE_GAME_OVER:
                return view
        raise errors.DeadlineExceeded("nobody moved for a long time")

    def turn(self, view: GameView, menu: list[Choice]) -> GameView | None:
        """Read input until one move is accepted; returns the new view, or None to leave."""
        bidding = any(c.action.kind == enums.ACTION_KIND_BID for c in menu)
        prompt = "Your bid (a number, 'help'): " if bidding else "Your choice (a number, a card like AS, 'help'): "
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
        command = parse_command(text)
        if command is None:
            self.say_error(f"{text!r} is not a choice, a card or a call. Type a number from the menu, "
                           "a card like AS, or 'help'.")
            return None
        choosing = next((a.notation for a in view.legal_actions if a.max_cards), None)
        notation = command_notation(command, choosing)
        if notation is None:
            self.say_error("Play one card at a time.")
            return None
        return self.client.act(self.game_id, notation)


def game_argument(text: str) -> games.GameInfo:
    """The game a command line names, in any spelling cardgame.games knows ("buck-euchre",
    "buck_euchre", "VARIANT_BUCK_EUCHRE", "Buck Euchre"); an argparse error for any other."""
    game = games.find(text)
    if game is None:
        known = ", ".join(games.command_name(g) for g in games.GAMES)
        raise argparse.ArgumentTypeError(f"unknown game {text!r}: choose one of {known}")
    return game


def build_parser() -> argparse.ArgumentParser:
    """The command-line parser of `cardgame`."""
    parser = argparse.ArgumentParser(prog="cardgame", description="Play card games against the server's bots.")
    commands = parser.add_subparsers(dest="command", required=True)
    play = commands.add_parser("play", help="play a whole game against bots")
    names = ",".join(games.command_name(game) for game in games.GAMES)
    play.add_argument("variant", type=game_argument, metavar=f"{{{names}}}",
                      help="the game to play (any spelling of its name, e.g. buck-euchre or 'Buck Euchre')")
    play.add_argument("--server", default=os.environ.get("CARDGAME_SERVER", DEFAULT_SERVER),
                      help=f"HOST:PORT of the game server (CARDGAME_SERVER, default {DEFAULT_SERVER})")
    play.add_argument("--name", default="You", help="your name at the table")
    play.add_argument("--bots", choices=["basic", "random", "strong"], default="basic", help="how the bots play")
    play.add_argument("--seed", type=int, help="reproducible shuffle (only when the server allows it)")
    play.add_argument("--target", type=int,
                      help="a shorter or longer game: Spades target score (500), Buck Euchre starting points (25)")
    play.add_argument("--color", choices=["auto", "always", "never"], default="auto",
                      help="colours: when the output is a terminal or FORCE_COLOR is set (auto), always, never")
    return parser


def play(args: argparse.Namespace, console: Console) -> int:
    """Create the game (the caller at seat 0, bots elsewhere) and play it to the end."""
    game: games.GameInfo = args.variant
    options = None
    if args.target is not None and game.target_option:
        options = {game.target_option: args.target}
    bots = [(name, args.bots) for name in BOT_NAMES.get(game.seats, [f"Bot {i}" for i in range(1, game.seats)])]
    with GameClient(args.server) as client:
        try:
            created = client.create_game(game.name, [args.name, *bots], options=options, shuffle_seed=args.seed)
        except errors.PermissionDenied as exc:
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
