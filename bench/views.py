"""How long one seat's view takes to build, in the Double Nil exchange and in trick play:
``view_exchange_us`` and ``view_play_us``, in microseconds."""

from __future__ import annotations

import random
import timeit

import engine
from engine import Phase
from engine.games.spades_words import DOUBLE_NIL, SpadesPhase, bid


def exchange_state() -> engine.TableState:
    """Four-player Spades at the Double Nil exchange: seat 0 bid Double Nil, its partner must give."""
    rng = random.Random(3)
    state = engine.new_game("spades", rng=rng, first_dealer=3)
    engine.apply(state, 3, engine.DEAL, rng)
    engine.apply(state, 0, DOUBLE_NIL)
    for seat in (1, 2, 3):
        engine.apply(state, seat, bid(3))
    assert state.phase == SpadesPhase.EXCHANGE
    return state


def play_state() -> engine.TableState:
    """Four-player Spades at the first lead."""
    state = exchange_state()
    for seat in (0, 2):
        engine.apply(state, seat, engine.legal_actions(state, seat)[0], random.Random(1))
    assert state.phase == Phase.PLAY
    return state


def microseconds(state: engine.TableState, seat: int) -> float:
    """Best-of-five time of ``engine.view(state, seat)`` in microseconds."""
    runs = 2000
    return min(timeit.repeat(lambda: engine.view(state, seat), number=runs, repeat=5)) / runs * 1e6


def main() -> None:
    """Print the view timings."""
    print(f"view_exchange_us {microseconds(exchange_state(), 2):.1f}", flush=True)
    print(f"view_play_us {microseconds(play_state(), 1):.1f}", flush=True)


if __name__ == "__main__":
    main()
