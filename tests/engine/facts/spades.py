"""Four- and two-player Spades: the two-player draw's places (the discards, the stock and the
card offered), the bags and contracts of a hand, and the phases of each."""

from __future__ import annotations

from hypothesis import strategies as st

from engine import SpadesOptions, TableState
from engine.games.spades_words import SpadesPhase

from . import GameFacts


def _spades2_places(state: TableState, places: list[int]) -> list[int]:
    """The discards, and during the draw the stock and the card offered."""
    extra = [state.discards]
    if state.phase == SpadesPhase.DRAW:
        stock = 0
        for card in state.deck[state.pos:]:
            stock |= 1 << card
        extra.append(stock)
        if state.offered != -1:
            extra.append(1 << state.offered)
    return extra


def _spades_scores(state: TableState, start: list[int]) -> None:
    for side in range(state.sides):
        assert state.scores[side] == start[side] + sum(r.sides[side].hand_points for r in state.records)
        if state.records:
            assert state.bags[side] == state.records[-1].sides[side].bags_after
            assert state.scores[side] == state.records[-1].sides[side].total_after
        assert 0 <= state.bags[side] < state.options.bag_limit
    for r in state.records:
        assert sum(r.tricks) == 13
    if state.winner:
        (w,) = state.winner
        assert state.scores[w] >= state.options.target_score
        assert all(state.scores[s] < state.scores[w] for s in range(state.sides) if s != w)


FACTS = (
    GameFacts("spades", max_actions_per_hand=1 + 8 + 4 + 52, score_check=_spades_scores,
              options=st.builds(SpadesOptions, target_score=st.integers(100, 200),
                                exchange_size=st.sampled_from([3, 3, 3, 2, 0])),
              phases=("deal", "bid", "exchange", "play", "game_over")),
    GameFacts("spades2", max_actions_per_hand=1 + 26 + 2 + 2 + 2 + 26, extra_places=_spades2_places,
              score_check=_spades_scores, options=st.builds(SpadesOptions, target_score=st.integers(100, 200)),
              examples=50, phases=("deal", "draw", "bid", "exchange", "play", "game_over")),
)
