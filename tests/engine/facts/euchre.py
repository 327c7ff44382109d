"""Euchre: the kitty, the dealer's discard and the turn-up as places of cards; the partner (or
the dealer) who sits a lone hand out; its points and thrown-in hands."""

from __future__ import annotations

from hypothesis import strategies as st

from engine import TableState
from engine.games.euchre import EuchreOptions
from engine.games.euchre_words import PASS

from . import GameFacts


def _places(state: TableState, places: list[int]) -> list[int]:
    """The kitty, the dealer's discard, and the turn-up unless the dealer took it."""
    extra = [state.kitty]
    if state.dealer_discard != -1:
        extra.append(1 << state.dealer_discard)
    if not state.taken:
        extra.append(1 << state.turnup)
    return extra


def _scores(state: TableState, start: list[int]) -> None:
    for r in state.records:
        assert sum(r.tricks) == (0 if r.thrown_in else 5) and r.side_tricks == [r.tricks[0] + r.tricks[2],
                                                                                  r.tricks[1] + r.tricks[3]]
        assert 0 in r.points and max(r.points) in ((0,) if r.thrown_in else (1, 2, 4))
        assert len(r.sitting_out) == r.alone + (r.defender_alone != -1)
    if state.winner:
        (w,) = state.winner
        assert state.scores[w] >= state.options.target > state.scores[1 - w]


FACTS = GameFacts(
    "euchre", max_actions_per_hand=1 + 8 + 1 + 2 + 20, extra_places=_places,
    playing_seats=lambda state: state.active, score_check=_scores,
    options=st.builds(EuchreOptions, target=st.sampled_from([10, 10, 5]), stick_the_dealer=st.booleans(),
                      defend_alone=st.booleans()),
    pass_action=PASS,   # and thrown-in hands
    phases=("deal", "order_up", "dealer_discard", "name_trump", "defend_alone", "play", "game_over"),
    every_word={"defend_alone": True},   # "defend-alone" is offered only at such a table
    left_bower=True)
