"""The terminal program `cardgame play ...`, driven as a subprocess with scripted input."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import engine
from cardgame.cli import build_menu, last_trick_of, typed_notation
from cardgame.v1 import lifecycle_pb2, score_pb2, view_pb2
from service.rpc import convert
from testkit.launcher import closed_port

SCRIPT = Path(sys.executable).with_name("cardgame")
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "cardgame.cli"]
SUITS = "♠♥♦♣"
REASON = re.compile(r"\[(WRONG_PHASE|NOT_YOUR_TURN|CARD_NOT_IN_HAND|MUST_FOLLOW_SUIT|SPADES_NOT_BROKEN|INVALID_BID|"
                    r"BLIND_NIL_AFTER_LOOKING|INVALID_EXCHANGE|SUIT_TURNED_DOWN|MAKER_CANNOT_DROP|"
                    r"CANNOT_DROP_ON_CLUBS)\]")


def scripted_input(lines: int = 4000) -> str:
    """Mostly "1" (the first legal choice), with a bad word, a bad number and a card every 17 lines."""
    bad = {5: "ZZ", 9: "99", 13: "2C"}
    return "\n".join(bad.get(i % 17, "1") for i in range(lines)) + "\n"


def run_cli(*args: str, stdin: str, env: dict | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run `cardgame` with ``args`` and ``stdin``; returns the finished process (text output)."""
    environment = {**os.environ, "COLUMNS": "120", "PYTHONIOENCODING": "utf-8", **(env or {})}
    for name in ("FORCE_COLOR", "NO_COLOR"):
        if name not in (env or {}):
            environment.pop(name, None)
    return subprocess.run([*COMMAND, *args], input=stdin, capture_output=True, text=True, encoding="utf-8",
                          timeout=timeout, env=environment)


@pytest.mark.parametrize("variant,extra", [
    ("buck-euchre", ["--seed", "11"]),
    ("spades2", ["--seed", "12", "--target", "200"]),
    ("spades", ["--seed", "13", "--target", "250"]),
    ("buck-euchre", ["--seed", "14", "--bots", "random", "--target", "15"]),
])
def test_a_whole_game_with_scripted_input(server, variant, extra):
    done = run_cli("play", variant, "--server", server.address, "--name", "Tester", *extra, stdin=scripted_input())
    out = done.stdout
    assert done.returncode == 0, done.stderr[-2000:] + out[-2000:]
    assert "Traceback" not in done.stderr and "Traceback" not in out
    assert all(symbol in out for symbol in SUITS)
    assert "Your hand:" in out and "Scores:" in out and "Trick in progress:" in out
    assert re.search(r"Hand 1 is over", out) and "Score" in out and "┃  Hand" in out and "Total" in out
    winners = [line for line in out.splitlines() if line.startswith("Winner: ")]
    assert len(winners) == 1 and "points" in winners[0]
    assert "'ZZ' is not a choice, a card or a call" in out
    assert "99 is not one of the choices" in out
    assert "Rejected:" in out and REASON.search(out), "a typed card the server refused shows its reason"
    assert "\x1b[" not in out  # no colour codes when the output is not a terminal
    if variant == "buck-euchre":
        assert "Turn-up:" in out and "Tester" in out
    if variant == "spades2":
        assert "Offered card:" in out and "keep" in out
    if variant == "spades":
        assert "Bid: 0 (Nil)" in out and "You & North" not in out and "Tester & North" in out


@pytest.mark.parametrize("how", [["--color", "always"], []])
def test_colours_when_forced(server, how):
    env = {} if how else {"FORCE_COLOR": "1"}
    done = run_cli("play", "spades", "--server", server.address, "--seed", "3", *how, stdin="1\nr\n", env=env)
    assert done.returncode == 0, done.stderr
    assert "\x1b[" in done.stdout and re.search(r"\x1b\[[0-9;]*31m", done.stdout), "hearts and diamonds in red"


def test_end_of_input_leaves_cleanly(server):
    done = run_cli("play", "buck-euchre", "--server", server.address, stdin="ZZ\n")
    assert done.returncode == 0 and "Traceback" not in done.stderr
    assert "'ZZ' is not a choice" in done.stdout
    assert "End of input." in done.stdout and "Leaving the game. Its id is" in done.stdout


def test_quit_and_help(server):
    done = run_cli("play", "spades2", "--server", server.address, stdin="help\nquit\n")
    assert done.returncode == 0 and "Type the key of a choice" in done.stdout and "Leaving the game" in done.stdout


def test_unreachable_server_gives_a_clear_message():
    with closed_port() as port:
        done = run_cli("play", "spades", "--server", f"127.0.0.1:{port}", stdin="")
    assert done.returncode == 2 and "Cannot reach the game server" in done.stdout
    assert "Traceback" not in done.stderr


BIDS = [f"bid {n}" for n in range(14)]


def _legal(variant: str, *notations: str) -> list[view_pb2.LegalAction]:
    """The LegalAction messages the server sends for these actions of the game (its own words)."""
    return [convert.legal_action(variant, engine.parse_notation(variant, text)) for text in notations]


def test_typed_notation():
    bidding = view_pb2.GameView(legal_actions=_legal("spades", "reveal", *BIDS, "double-nil"))
    assert typed_notation("Bid 4", bidding) == "bid 4" and typed_notation("4", bidding) == "bid 4"
    assert typed_notation("bid nil", bidding) == "bid nil" and typed_notation("double nil", bidding) == "double-nil"
    trumps = view_pb2.GameView(legal_actions=_legal("buck_euchre", "pass", "name H", "name S"))
    assert typed_notation("hearts", trumps) == "name H" and typed_notation("name spades", trumps) == "name S"
    assert typed_notation("PASS", trumps) == "pass"
    ordering = view_pb2.GameView(legal_actions=_legal("buck_euchre", "order-up", "pass"))
    assert typed_notation("order up", ordering) == "order-up"
    playing = view_pb2.GameView(legal_actions=_legal("spades", "play 10H", "play 2C"))
    assert typed_notation("10h", playing) == "play 10H" and typed_notation("2c 3d", playing) is None
    passing = view_pb2.GameView(legal_actions=[convert.legal_action("hearts", engine.parse_notation("hearts", "pass"))])
    passing.legal_actions[0].cards.extend(["2C", "3D", "4H", "5S"])
    assert typed_notation("2c 3d, 4h", passing) == "pass 2C 3D 4H"
    assert typed_notation("99", playing) is None and typed_notation("ZZ", playing) is None
    assert typed_notation("", playing) is None


def test_menu_keys():
    bidding = view_pb2.GameView(viewer_seat=0, seats=[view_pb2.SeatView(seat=i) for i in range(4)],
                                legal_actions=_legal("spades", "reveal", *BIDS, "double-nil"))
    assert [c.key for c in build_menu(bidding)] == ["r", *map(str, range(14)), "d"]
    draw = view_pb2.GameView(spades_two_player=view_pb2.SpadesTwoPlayerView(offered_card="8D"),
                             legal_actions=_legal("spades2", "double-nil", "keep", "discard"))
    menu = build_menu(draw)
    assert [(c.key, c.label.plain) for c in menu] == [
        ("1", "Double Nil (blind)"), ("2", "Keep the offered card"), ("3", "Discard it and take the next card")]
    discard = view_pb2.GameView(legal_actions=_legal("buck_euchre", "exchange"))
    discard.legal_actions[0].cards.extend(["9C", "AH"])
    discard.legal_actions[0].min_cards = discard.legal_actions[0].max_cards = 1
    assert [(c.key, c.cards) for c in build_menu(discard)] == [("1", ["9C"]), ("2", ["AH"])]


@pytest.mark.parametrize("variant,extra", [("hearts", ["--seed", "5", "--target", "40"]),
                                           ("spades", ["--seed", "13", "--target", "150"])])
def test_the_last_trick_of_every_hand_is_shown(server, variant, extra):
    """Bots finish a hand within the caller's last move and a bot dealer deals the next at once, so
    no view shows the hand's last trick: the terminal prints it (from the game's log) before the
    hand's score."""
    done = run_cli("play", variant, "--server", server.address, *extra, stdin=scripted_input())
    out = done.stdout
    assert done.returncode == 0, done.stderr[-2000:] + out[-2000:]
    assert "Traceback" not in done.stderr and "Traceback" not in out
    over = re.findall(r"Hand (\d+) is over", out)
    shown = re.findall(r"Last trick of hand (\d+) \(won by \w+\): ", out)
    assert over and shown == over, (over, shown)
    assert out.index("Last trick of hand 1") < out.index("Hand 1 is over")
    line = next(line for line in out.splitlines() if line.startswith("Last trick of hand 1"))
    assert len(re.findall(r"(?:10|[2-9JQKA])[♠♥♦♣]", line)) == 4, line


def _trick(plays: list[tuple[int, str]], winner: int | None = None) -> view_pb2.Trick:
    return view_pb2.Trick(plays=[view_pb2.PlayedCard(seat=seat, card=card) for seat, card in plays], winner=winner)


def test_last_trick_of_a_hand_from_the_log():
    """The caller's last view of the hand was two tricks before its end: the log's plays after it
    complete the tricks, each winner leading the next; the last winner is the one the score adds."""
    prior = view_pb2.GameView(
        version=40, hand_number=1, phase_name="play",
        seats=[view_pb2.SeatView(seat=s, tricks_won=won) for s, won in enumerate([3, 4, 2, 2])],
        last_trick=_trick([(3, "2D"), (0, "5D"), (1, "9D"), (2, "QD")], 2), current_trick=_trick([(2, "AS")]))
    log = [lifecycle_pb2.HistoryEntry(version=v, seat=seat, action=action) for v, seat, action in [
        (40, 1, "play 9D"), (41, 3, "play 3S"), (42, 0, "play 4S"), (43, 1, "play 5S"),   # trick 12: North's
        (44, 2, "play 2H"), (45, 3, "play 3H"), (46, 0, "play KH"), (47, 1, "play 4H"),   # trick 13: South's
        (48, 1, "deal"), (49, 0, "pass 2C 3C 4C")]]
    hand = score_pb2.HandScore(hand_number=1, seats=[score_pb2.SeatScore(seat=s, tricks_won=won)
                                                     for s, won in enumerate([4, 4, 3, 2])])
    after = view_pb2.GameView(version=49, hand_number=2, phase_name="pass", seats=prior.seats)
    plays, winner = last_trick_of(hand, after, prior, lambda: log)
    assert plays == [(2, "2H"), (3, "3H"), (0, "KH"), (1, "4H")] and winner == 0
    # A view still of the hand after its end (the caller deals next) holds it: no log needed.
    between = view_pb2.GameView(version=48, hand_number=1, phase_name="deal", seats=prior.seats,
                                last_trick=_trick([(2, "2H"), (3, "3H"), (0, "KH"), (1, "4H")], 0))
    assert last_trick_of(hand, after, between, lambda: pytest.fail("the log is not read")) == (plays, 0)
    # No view of the finished hand to start from: nothing to show.
    assert last_trick_of(hand, after, after, lambda: log) is None


@pytest.mark.parametrize("variant,extra", [
    ("hearts", ["--seed", "21", "--target", "30", "--option", "players=3", "--option", "jack_of_diamonds=true"]),
    ("spades", ["--seed", "22", "--target", "150", "--option", "trumps=jokers_deuces", "--option", "nil_exchange=2"]),
    ("cutthroat", ["--seed", "23", "--target", "150", "--option", "losing_score=200"]),
])
def test_a_whole_game_with_table_settings(server, variant, extra):
    """A table the settings change: three players seated left and right (the seat count comes from
    the game's seat setting), or a Spades table with jokers whose cards the terminal shows."""
    done = run_cli("play", variant, "--server", server.address, "--name", "Tester", *extra, stdin=scripted_input())
    out = done.stdout
    assert done.returncode == 0, done.stderr[-2000:] + out[-2000:]
    assert "Traceback" not in done.stderr and "Traceback" not in out
    winners = [line for line in out.splitlines() if line.startswith("Winner: ")]
    assert len(winners) == 1, out[-2000:]
    if variant in ("hearts", "cutthroat"):
        assert "West" in out and "East" in out and "North" not in out
        gone = "2♦" if variant == "hearts" else "2♣"   # the card three players play without
        assert gone not in out
    else:
        assert "BJ" in out and "LJ" in out
        assert "2♥" not in out and "2♣" not in out  # jokers_deuces: the 2♣ and 2♥ left the deck
