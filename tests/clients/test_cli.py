"""The terminal program `cardgame play ...`, driven as a subprocess with scripted input."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cardgame.cli import build_menu, parse_command
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import view_pb2
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


def test_parse_command():
    assert parse_command("Bid 4") == ("bid", 4)
    assert parse_command("nil") == ("bid", 0) and parse_command("double nil") == ("double-nil",)
    assert parse_command("10h") == ("cards", ["10H"]) and parse_command("2c 3d, 4h") == ("cards", ["2C", "3D", "4H"])
    assert parse_command("order up") == ("order-up",) and parse_command("hearts") == ("name", "H")
    assert parse_command("99") is None and parse_command("ZZ") is None and parse_command("") is None


def test_menu_keys():
    bidding = view_pb2.GameView(viewer_seat=0, seats=[view_pb2.SeatView(seat=i) for i in range(4)], legal_actions=[
        view_pb2.LegalAction(kind=enums.ACTION_KIND_REVEAL),
        *(view_pb2.LegalAction(kind=enums.ACTION_KIND_BID, tricks=t) for t in range(14)),
        view_pb2.LegalAction(kind=enums.ACTION_KIND_DOUBLE_NIL)])
    assert [c.key for c in build_menu(bidding)] == ["r", *map(str, range(14)), "d"]
    draw = view_pb2.GameView(spades_two_player=view_pb2.SpadesTwoPlayerView(offered_card="8D"), legal_actions=[
        view_pb2.LegalAction(kind=enums.ACTION_KIND_DOUBLE_NIL), view_pb2.LegalAction(kind=enums.ACTION_KIND_DRAW_KEEP),
        view_pb2.LegalAction(kind=enums.ACTION_KIND_DRAW_DISCARD)])
    menu = build_menu(draw)
    assert [(c.key, c.label.plain) for c in menu] == [
        ("1", "keep 8♦"), ("2", "discard 8♦ and take the next card"), ("3", "Double Nil (blind: bid before looking)")]
    discard = view_pb2.GameView(legal_actions=[view_pb2.LegalAction(
        kind=enums.ACTION_KIND_EXCHANGE, cards=["9C", "AH"], min_cards=1, max_cards=1)])
    assert [(c.key, c.cards) for c in build_menu(discard)] == [("1", ["9C"]), ("2", ["AH"])]
