"""The terminal rendering of a game the client has no layout for: the common view is enough."""

from __future__ import annotations

from rich.console import Console

from cardgame import render
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import score_pb2, view_pb2


def test_score_table_of_a_game_without_rules_of_its_own_uses_the_common_record():
    view = view_pb2.GameView(variant_name="whist", seats=[view_pb2.SeatView(seat=s, name=f"P{s}") for s in range(4)],
                             scores=[view_pb2.SideTotal(side=0, seats=[0, 2], score=3),
                                     view_pb2.SideTotal(side=1, seats=[1, 3], score=0)])
    hand = score_pb2.HandScore(hand_number=1, sides=[score_pb2.SideScore(side=0, seats=[0, 2], tricks=9,
                                                                         hand_points=3, total_after=3),
                                                     score_pb2.SideScore(side=1, seats=[1, 3], tricks=4,
                                                                         hand_points=0, total_after=0)])
    score = pb.GetScoreResponse(hands=[hand], totals=[view_pb2.SideTotal(side=0, seats=[0, 2], score=3),
                                                      view_pb2.SideTotal(side=1, seats=[1, 3], score=0)])
    console = Console(width=100, record=True, color_system=None)
    console.print(render.score_table(score, view))
    text = console.export_text()
    assert "9 tricks +3 → 3" in text and "4 tricks +0 → 0" in text
    assert "bags" not in text and "contract" not in text


def test_a_game_without_a_layout_of_its_own_is_drawn_from_its_view_message(monkeypatch):
    """Buck Euchre's view drawn as a game without lines of its own would be: field by field."""
    from cardgame.v1 import enums_pb2 as enums

    monkeypatch.delitem(render.GAME_LINES, "buck_euchre")
    view = view_pb2.GameView(variant_name="buck_euchre", phase=enums.PHASE_PLAY, phase_name="play", hand_number=2,
                             seats=[view_pb2.SeatView(seat=s, name=f"P{s}") for s in range(4)],
                             buck_euchre=view_pb2.BuckEuchreView(turn_up="9S", trump=enums.SUIT_SPADES, maker=2,
                                                                 turn_up_turned_down=False))
    assert [line.plain for line in render.rules_lines(view)] == ["Trump: spades", "Turn up: 9♠", "Maker: 2"]
    console = Console(width=100, record=True, color_system=None)
    console.print(render.view_panel(view))
    assert "Turn up: 9♠" in console.export_text()


def test_an_enum_value_is_drawn_without_its_enum_prefix():
    from cardgame.v1 import enums_pb2 as enums

    kind = view_pb2.LegalAction.DESCRIPTOR.fields_by_name["kind"]   # ActionKind: ACTION_KIND_ORDER_UP
    assert render.value_text(view_pb2.GameView(), kind, enums.ACTION_KIND_ORDER_UP).plain == "order up"
    assert render.value_text(view_pb2.GameView(), kind, 99).plain == "99"
