"""A game's stored record and its randomness, and the seat tokens: without a server."""

from __future__ import annotations

import base64
import random
import secrets

import pytest

import engine
from cardgame.v1 import enums_pb2 as enums
from service.errors import PermissionDenied, Unauthenticated
from service.table import tokens as auth
from service.table.record import SPECTATORS_ANYONE, SPECTATORS_NONE, SPECTATORS_TOKEN, GameRecord, Seat


def _record(seed: int | None) -> GameRecord:
    state = engine.new_game("spades", first_dealer=0)
    return GameRecord("g1", state, [Seat(f"P{i}", enums.PLAYER_KIND_HUMAN, None, "") for i in range(4)], seed)


def test_shuffles_are_cryptographically_random_unless_seeded():
    assert isinstance(_record(None).rng(5), secrets.SystemRandom)
    seeded = _record(42)
    assert seeded.rng(5).random() == seeded.rng(5).random()
    assert seeded.rng(5).random() != seeded.rng(6).random()


def test_a_seeded_rng_draws_as_random_random_of_its_seed_would():
    """Seeded at its first draw, whichever method draws first, then a plain random.Random."""
    seeded = _record(42)
    for first in ("random", "getrandbits", "randrange", "shuffle", "sample"):
        lazy, eager = seeded.rng(f"timeout-{first}"), random.Random(f"42:timeout-{first}")
        draws = []
        for rng in (lazy, eager):
            cards = list(range(52))
            result = {"random": lambda r: r.random(), "getrandbits": lambda r: r.getrandbits(226),
                      "randrange": lambda r: r.randrange(13), "shuffle": lambda r, deck=cards: r.shuffle(deck),
                      "sample": lambda r: r.sample(range(52), 5)}[first](rng)
            draws.append((result, cards, rng.random(), rng.getstate()))
        assert draws[0] == draws[1]
        assert type(lazy) is random.Random


def test_record_round_trips_through_its_stored_form():
    record = _record(7)
    engine.apply(record.state, 0, engine.DEAL, random.Random(1))
    again = GameRecord.from_bytes(record.to_bytes())
    assert again.state == record.state and again.seats == record.seats and again.seed == 7


def test_tokens_are_random_hashed_per_game_and_matched_to_their_seat():
    tokens = [auth.random_token() for _ in range(4)]
    assert len(set(tokens)) == 4 and all(len(base64.urlsafe_b64decode(t + "==")) == 24 for t in tokens)
    hashes = [auth.token_hash("g1", t) for t in tokens]
    assert tokens[2] not in "".join(hashes)  # only hashes are stored
    anyone = SPECTATORS_ANYONE
    assert auth.viewer("g1", tokens[2], hashes, anyone, "", False) == 2
    assert auth.viewer("g1", None, hashes, anyone, "", False) is None
    assert auth.mover("g1", tokens[2], hashes, "") == 2
    with pytest.raises(Unauthenticated):
        auth.viewer("g2", tokens[2], [auth.token_hash("g2", auth.random_token())], anyone, "", False)
    spectator = auth.random_token()
    watching = auth.token_hash("g1", spectator)
    assert auth.viewer("g1", spectator, hashes, SPECTATORS_TOKEN, watching, False) is None
    for policy, token in ((SPECTATORS_TOKEN, None), (SPECTATORS_NONE, None)):
        with pytest.raises(PermissionDenied):
            auth.viewer("g1", token, hashes, policy, watching, False)
        assert auth.viewer("g1", token, hashes, policy, watching, True) is None   # the creating API key
    with pytest.raises(Unauthenticated):
        auth.viewer("g1", spectator, hashes, SPECTATORS_NONE, "", False)
    for token in (None, spectator):   # spectators make no move
        with pytest.raises(PermissionDenied):
            auth.mover("g1", token, hashes, watching)


def test_derived_tokens_carry_192_bits_that_only_the_token_secret_gives():
    secret, other = b"s" * 32, b"t" * 32
    derived = auth.derived_token(secret, "g1", 1)
    assert len(base64.urlsafe_b64decode(derived)) == 24
    assert derived == auth.derived_token(secret, "g1", 1)
    assert len({derived, auth.derived_token(secret, "g1", 2), auth.derived_token(secret, "g2", 1),
                auth.derived_token(other, "g1", 1)}) == 4
    with pytest.raises(ValueError, match="at least 32 bytes"):
        auth.check_secret(b"short")
