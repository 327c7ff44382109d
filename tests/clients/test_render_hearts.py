"""Hearts in the terminal: it has no layout of its own, so its view message is drawn field by field."""

from rich.console import Console

from cardgame import render
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import hearts_pb2, score_pb2, view_pb2


def test_a_hearts_view_shows_the_pass_and_what_came_back():
    assert "hearts" not in render.GAME_LINES
    view = view_pb2.GameView(variant_name="hearts", variant_title="Hearts", phase=enums.PHASE_PLAY, phase_name="play",
                             hand_number=1,
                             seats=[view_pb2.SeatView(seat=s, name=f"P{s}") for s in range(4)],
                             hearts=hearts_pb2.HeartsView(pass_direction="across", hearts_broken=True,
                                                          points_taken=[0, 13, 1, 0], pass_given=["QS", "AH", "KH"],
                                                          pass_received=["2C", "3C", "4D"]))
    console = Console(width=100, record=True, color_system=None)
    console.print(render.view_panel(view))
    text = console.export_text()
    assert "Pass direction: across" in text and "Hearts broken: yes" in text
    assert "Pass given: Q♠ A♥ K♥" in text and "Pass received: 2♣ 3♣ 4♦" in text
    assert "Points taken: P0 0, P1 13, P2 1, P3 0" in text
    before = view_pb2.GameView(variant_name="hearts", phase=enums.PHASE_EXCHANGE, phase_name="pass", hand_number=1,
                               seats=[view_pb2.SeatView(seat=s, name=f"P{s}") for s in range(4)],
                               hearts=hearts_pb2.HeartsView(pass_direction="left", points_taken=[0, 0, 0, 0]))
    assert [line.plain for line in render.rules_lines(before)] == ["Pass direction: left",
                                                                  "Points taken: P0 0, P1 0, P2 0, P3 0"]


def test_a_game_without_bids_or_calls_has_no_column_for_them_and_counts_are_in_words():
    view = view_pb2.GameView(variant_name="hearts", phase_name="play", hand_number=1,
                             seats=[view_pb2.SeatView(seat=s, name=f"P{s}", tricks_won=s) for s in range(4)])
    console = Console(width=100, record=True, color_system=None)
    console.print(render.seats_table(view))
    header = console.export_text().splitlines()[0]
    assert "Player" in header and "Tricks" in header and "Call" not in header and "Bid" not in header
    view.seats[1].last_call = "pass"
    console = Console(width=100, record=True, color_system=None)
    console.print(render.seats_table(view))
    assert "Call" in console.export_text().splitlines()[0]
    side = score_pb2.SideScore(side=0, seats=[0], tricks=1, hand_points=3, total_after=3)
    assert render.plain_cell(side).plain == "1 trick +3 → 3"
