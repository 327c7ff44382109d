"""Buck Euchre: the kitty, the dealer's discard and the turn-up as places of cards; the players who
dropped out; scores that count down, and the sweep that wins at once."""

from __future__ import annotations

from hypothesis import strategies as st

from engine import BuckEuchreOptions, TableState
from engine.games.buck_euchre_words import PASS

from . import GameFacts


def _places(state: TableState, places: list[int]) -> list[int]:
    """The kitty, the dealer's discard, and the turn-up when nobody holds it."""
    extra = [state.kitty]
    if state.dealer_discard != -1:
        extra.append(1 << state.dealer_discard)
    if not any(p >> state.turnup & 1 for p in places + extra):
        extra.append(1 << state.turnup)   # turned down (or not yet taken)
    return extra


def _scores(state: TableState, start: list[int]) -> None:
    for s in range(4):
        assert state.scores[s] == start[s] + sum(r.seats[s].change for r in state.records)
    for r in state.records:
        active = sum(x.active for x in r.seats)
        assert sum(r.tricks) == (5 if active >= 1 else 0)
        assert r.contested == (active >= 2)
        for x in r.seats:
            if not x.active:
                assert x.change == 0 and x.tricks == 0
    if state.winner:
        (w,) = state.winner
        if state.records[-1].swept_by == -1:
            assert state.scores[w] <= 0
            assert all(state.scores[s] > state.scores[w] for s in range(4) if s != w)
        else:
            assert state.records[-1].swept_by == w


FACTS = GameFacts(
    "buck_euchre", max_actions_per_hand=1 + 8 + 1 + 4 + 20, extra_places=_places,
    playing_seats=lambda state: state.active, score_check=_scores,
    options=st.builds(BuckEuchreOptions, starting_score=st.sampled_from([25, 25, 10]),
                      club_turn_up_forces_clubs=st.booleans(), turned_down_suit_may_be_named=st.booleans()),
    pass_action=PASS,   # reach no-trump hands too
    phases=("deal", "order_up", "dealer_discard", "name_trump", "drop_out", "play", "game_over"),
    left_bower=True)
