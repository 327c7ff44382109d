"""Cutthroat Spades: its phases (no exchange), the bags and totals of three players each alone, 17
tricks a hand, and the end of a game at the target or the losing score, the highest total winning.

Its random games are played with a losing score (and now and then Double Nil only when behind, or
no Double Nil): random bids seldom make their contracts, so without one a game could run past
the suites' bound on hands; the property suite's policy bids 3 three times in four (``pass_action``).
"""

from __future__ import annotations

from hypothesis import strategies as st

from engine import SpadesOptions, TableState
from engine.games.cutthroat_spades import HAND_SIZE, NAME
from engine.games.spades_words import bid

from . import GameFacts


def _scores(state: TableState, start: list[int]) -> None:
    options = state.options
    for side in range(3):
        assert state.seats_of(side) == [side]
        assert state.scores[side] == start[side] + sum(r.sides[side].hand_points for r in state.records)
        if state.records:
            assert state.bags[side] == state.records[-1].sides[side].bags_after
        assert 0 <= state.bags[side] < options.bag_limit
    for r in state.records:
        assert sum(r.tricks) == HAND_SIZE and len(r.sides) == 3 and not r.exchanges
        assert all(side.contract == max(r.bids[side.side], 0) for side in r.sides)
    if state.winner:
        (w,) = state.winner
        losing = options.losing_score
        assert max(state.scores) >= options.target_score or (losing and min(state.scores) <= -losing)
        assert all(state.scores[s] < state.scores[w] for s in range(3) if s != w)


FACTS = GameFacts(
    NAME, max_actions_per_hand=1 + 3 + 3 + 51, score_check=_scores,
    options=st.builds(SpadesOptions, target_score=st.integers(100, 200), losing_score=st.integers(100, 300),
                      blind_nil_when_behind=st.sampled_from([0, 0, 0, 40]),
                      double_nil_allowed=st.sampled_from([True, True, True, False])),
    pass_action=bid(3),
    phases=("deal", "bid", "play", "game_over"))
