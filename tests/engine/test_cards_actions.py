"""Card and action notation: round trips, parse errors, duplicate detection, deck checks."""

from __future__ import annotations

import dataclasses
import random

import pytest
from engine_helpers import GAMES, examples, rejects, start
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from engine import (
    DEAL,
    PLAY_CODE,
    Phase,
    action_of,
    card_name,
    cards_text,
    kind_of,
    notation,
    parse_card,
    parse_cards,
    parse_deck,
    parse_notation,
    payload_of,
    play,
)
from engine.core.actions import DUPLICATE_FLAG
from engine.core.cards import card_list
from engine.core.options import GameOptions
from engine.games.buck_euchre import BUCK_EUCHRE_RANGES
from engine.games.buck_euchre_words import DROP_OUT, ORDER_UP, PASS, STAY_IN, BuckCode, BuckPhase, discard, name_suit
from engine.games.spades_state import SPADES_RANGES
from engine.games.spades_words import (
    DOUBLE_NIL,
    DRAW_DISCARD,
    DRAW_KEEP,
    REVEAL,
    SpadesCode,
    SpadesPhase,
    bid,
    exchange,
    exchange_of,
)
from tests.games import whist

ALL_CARDS = list(range(52))
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


# ---- cards -----------------------------------------------------------------------------

def test_every_card_name_round_trips():
    seen = set()
    for c in ALL_CARDS:
        name = card_name(c)
        assert parse_card(name) == c
        assert parse_card(name.lower()) == c
        assert parse_card(f"  {name} ") == c
        seen.add(name)
    assert len(seen) == 52
    assert seen == {r + s for r in RANKS for s in "CDHS"}


@pytest.mark.parametrize("text,rank,suit", [("AS", 14, 3), ("10H", 10, 2), ("2C", 2, 0), ("JD", 11, 1),
                                            ("qs", 12, 3), ("kh", 13, 2), ("9d", 9, 1)])
def test_card_encoding(text, rank, suit):
    assert parse_card(text) == suit * 13 + rank - 2


@pytest.mark.parametrize("bad", ["", " ", "A", "S", "1S", "11H", "TH", "T♥", "A♠", "AX", "10", "ASS", "0C",
                                 "AS KS", "1", "AAS", "-2C"])
def test_parse_card_rejects_junk(bad):
    with pytest.raises(ValueError):
        parse_card(bad)


def test_card_set_round_trip_and_order():
    assert cards_text(parse_cards("AS 2C 10H")) == "2C 10H AS"
    assert parse_cards("AS,2C, 10H") == parse_cards("2C 10H AS")
    assert parse_cards("") == 0
    full = parse_cards(" ".join(card_name(c) for c in ALL_CARDS))
    assert full == (1 << 52) - 1
    assert parse_cards(cards_text(full)) == full


@given(st.sets(st.integers(0, 51)))
@settings(max_examples=examples(200), deadline=None)
def test_card_sets_round_trip(cards):
    mask = sum(1 << c for c in cards)
    assert parse_cards(cards_text(mask)) == mask
    assert card_list(mask) == sorted(cards)


@pytest.mark.parametrize("text", ["AS AS", "AS 2C as", "10H 10h", "2C,2C"])
def test_parse_cards_detects_duplicates(text):
    with pytest.raises(ValueError):
        parse_cards(text)


@pytest.mark.parametrize("text", ["AS AS", "KH QH KH", "2c 2C"])
def test_parse_deck_detects_duplicates(text):
    with pytest.raises(ValueError):
        parse_deck(text)


def test_parse_deck_keeps_order():
    assert parse_deck("AS 2C 10H") == [parse_card("AS"), parse_card("2C"), parse_card("10H")]
    deck = ALL_CARDS[:]
    random.Random(5).shuffle(deck)
    assert parse_deck(" ".join(card_name(c) for c in deck)) == deck


@pytest.mark.parametrize("text", ["AS XX", "AS 1C", "AS, , QQ"])
def test_parse_deck_rejects_junk(text):
    with pytest.raises(ValueError):
        parse_deck(text)


# ---- whole decks ---------------------------------------------------------------------------

@pytest.mark.parametrize("variant", GAMES)
def test_check_deck_accepts_full_decks(variant):
    cards = list(engine.game_of(variant).cards)
    shuffled = cards[:]
    random.Random(variant).shuffle(shuffled)
    for deck in (cards, cards[::-1], shuffled):
        engine.check_deck(variant, deck)


def _bad_decks(cards: list[int]) -> dict[str, list[int]]:
    """Decks that are not the game's whole deck, by what is wrong with them."""
    bad = {"a card missing": cards[:-1], "a card twice": cards[:-1] + cards[:1], "one card too many": cards + cards[:1],
           "not a card": cards[:-1] + [52], "a negative card": cards[:-1] + [-1]}
    outside = [c for c in range(52) if c not in cards]
    if outside:
        bad["a card of another deck"] = cards[:-1] + outside[:1]
    return bad


@pytest.mark.parametrize("variant,what", [(variant, what) for variant in GAMES
                                          for what in _bad_decks(list(engine.game_of(variant).cards))])
def test_check_deck_rejects_bad_decks(variant, what):
    deck = _bad_decks(list(engine.game_of(variant).cards))[what]
    with pytest.raises(ValueError):
        engine.check_deck(variant, deck)
    with pytest.raises(ValueError):
        engine.new_game(variant, first_dealer=0, decks=[deck])


def test_check_deck_rejects_a_spades_deck_for_buck_euchre():
    with pytest.raises(ValueError):
        engine.check_deck("buck_euchre", list(range(52)))


class _OtherOptions(GameOptions):
    """Options of no game."""


@pytest.mark.parametrize("variant", GAMES)
def test_new_game_rejects_a_seat_or_options_not_of_the_game(variant):
    seats = engine.game_of(variant).seats
    for dealer in (seats, -1):
        with pytest.raises(ValueError, match="first dealer"):
            engine.new_game(variant, first_dealer=dealer)
    with pytest.raises(ValueError, match="takes"):
        engine.new_game(variant, options=_OtherOptions())
    engine.new_game(variant, first_dealer=seats - 1)


def test_new_game_rejects_bad_arguments():
    with pytest.raises(ValueError):
        engine.new_game("bridge")
    with pytest.raises(ValueError):
        engine.new_game("spades", options=engine.BuckEuchreOptions())
    with pytest.raises(ValueError):
        engine.new_game("buck_euchre", options=engine.SpadesOptions())
    with pytest.raises(ValueError):
        engine.new_game("spades", options=engine.SpadesOptions(target_score=0))
    with pytest.raises(ValueError):
        engine.new_game("spades", options=engine.SpadesOptions(exchange_size=14))
    with pytest.raises(ValueError):
        engine.new_game("buck_euchre", options=engine.BuckEuchreOptions(maker_requirement=6))


def test_option_defaults_are_the_sheets():
    o = engine.SpadesOptions()
    assert (o.target_score, o.bag_limit, o.bag_penalty, o.nil_value, o.double_nil_value,
            o.double_nil_allowed, o.exchange_size) == (500, 10, 100, 100, 200, True, 3)
    b = engine.BuckEuchreOptions()
    assert (b.starting_score, b.maker_requirement, b.penalty, b.club_turn_up_forces_clubs,
            b.turned_down_suit_may_be_named) == (25, 3, 5, True, False)


@pytest.mark.parametrize("variant", GAMES)
def test_first_dealer_is_random_unless_given(variant):
    seats = engine.game_of(variant).seats
    dealers = {engine.new_game(variant, rng=random.Random(i)).dealer for i in range(15 * seats)}
    assert dealers == set(range(seats))
    assert engine.new_game(variant, rng=random.Random(1), first_dealer=seats - 1).dealer == seats - 1


# ---- actions ---------------------------------------------------------------------------

SIMPLE = {"spades": {DEAL: "deal", REVEAL: "reveal", DOUBLE_NIL: "double-nil"},
          "spades2": {DEAL: "deal", DRAW_KEEP: "keep", DRAW_DISCARD: "discard", DOUBLE_NIL: "double-nil"},
          "buck_euchre": {DEAL: "deal", ORDER_UP: "order-up", PASS: "pass", STAY_IN: "stay", DROP_OUT: "drop"}}
"""The words that carry nothing, by the game that has them (two-player Spades: the draw's instead of
the four-player game's reveal, since a drawer sees its cards as it draws them)."""


def every_simple_action():
    out = list({a for words in SIMPLE.values() for a in words})
    out += [play(c) for c in ALL_CARDS]
    out += [bid(n) for n in range(14)]
    out += [name_suit(s) for s in range(4)]
    return out


def game_actions(variant: str) -> list[int]:
    """Every well-formed action of the game's words but its card sets (those of one card: a card set
    of each card)."""
    if variant in ("spades", "spades2"):
        return [*SIMPLE[variant], *(play(c) for c in ALL_CARDS), *(bid(n) for n in range(14)),
                *(exchange(1 << c) for c in ALL_CARDS)]
    return [*SIMPLE[variant], *(play(c) for c in ALL_CARDS), *(name_suit(s) for s in range(4)),
            *(discard(1 << c) for c in ALL_CARDS)]


@pytest.mark.parametrize("variant", sorted(SIMPLE))
def test_simple_actions_round_trip(variant):
    for action, word in SIMPLE[variant].items():
        assert notation(variant, action) == word
        assert parse_notation(variant, word) == action
        assert parse_notation(variant, word.upper()) == action
        assert parse_notation(variant, f" {word} ") == action


def test_spades_has_the_draw_free_words_of_spades2():
    for action, word in SIMPLE["spades2"].items():
        if action in (DRAW_KEEP, DRAW_DISCARD):
            with pytest.raises(ValueError):
                parse_notation("spades", word)
        else:
            assert notation("spades", action) == word and parse_notation("spades", word) == action
    with pytest.raises(ValueError):   # a drawer sees its cards as it draws: no "reveal"
        parse_notation("spades2", "reveal")


@pytest.mark.parametrize("variant", GAMES)
def test_every_play_round_trips(variant):
    for c in ALL_CARDS:
        a = play(c)
        assert kind_of(a) == PLAY_CODE and payload_of(a) == c
        assert notation(variant, a) == "play " + card_name(c)
        assert parse_notation(variant, notation(variant, a)) == a
        assert parse_notation(variant, "play " + card_name(c).lower()) == a


@pytest.mark.parametrize("variant", ["spades", "spades2"])
def test_every_bid_round_trips(variant):
    for n in range(14):
        a = bid(n)
        assert kind_of(a) == SpadesCode.BID and payload_of(a) == n
        assert notation(variant, a) == f"bid {n}"
        assert parse_notation(variant, notation(variant, a)) == a
    assert parse_notation(variant, "bid nil") == bid(0)


def test_every_suit_name_round_trips():
    for s, letter in enumerate("CDHS"):
        a = name_suit(s)
        assert kind_of(a) == BuckCode.NAME_SUIT and payload_of(a) == s
        assert notation("buck_euchre", a) == "name " + letter
        assert parse_notation("buck_euchre", notation("buck_euchre", a)) == a
        assert parse_notation("buck_euchre", "name " + ("clubs", "diamonds", "hearts", "spades")[s]) == a


@given(st.sets(st.integers(0, 51), max_size=13))
@settings(max_examples=examples(200), deadline=None)
def test_every_exchange_round_trips(cards):
    mask = sum(1 << c for c in cards)
    a = exchange(mask)
    assert kind_of(a) == SpadesCode.EXCHANGE and payload_of(a) == mask
    for variant in ("spades", "spades2"):
        assert parse_notation(variant, notation(variant, a)) == a
    assert exchange_of(sorted(cards)) == a
    assert exchange_of(sorted(cards, reverse=True)) == a


def test_exchange_notation():
    for variant in ("spades", "spades2"):
        assert notation(variant, exchange(parse_cards("2C 3D 4H"))) == "exchange 2C 3D 4H"
        assert parse_notation(variant, "exchange 4H 2C 3D") == exchange(parse_cards("2C 3D 4H"))
        assert parse_notation(variant, notation(variant, exchange(0))) == exchange(0)
    # the Buck Euchre dealer's discard is written as an exchange too
    assert notation("buck_euchre", discard(parse_cards("9H"))) == "exchange 9H"
    assert parse_notation("buck_euchre", "exchange 9H") == discard(parse_cards("9H"))


def test_action_encodings_are_distinct():
    actions = every_simple_action() + [exchange(1 << c) for c in ALL_CARDS]
    assert len(set(actions)) == len(actions)
    for variant in SIMPLE:
        mine = game_actions(variant)
        assert len(set(mine)) == len(mine)
        assert len({notation(variant, a) for a in mine}) == len(mine)


JUNK = ["", "play", "play XX", "play 1S", "bid", "bid x", "bid 4.5", "name", "name Z", "name 4",
        "deal now", "jump", "keep AS", "exchange AS QQ", "reveal 3", "playAS", "order up"]


@pytest.mark.parametrize("variant", GAMES)
@pytest.mark.parametrize("bad", JUNK)
def test_parse_notation_rejects_junk(variant, bad):
    with pytest.raises(ValueError):
        parse_notation(variant, bad)


@pytest.mark.parametrize("variant", GAMES)
def test_a_negative_bid_is_never_taken(variant):
    """``bid -1`` was malformed notation (ValueError); the games' words now read a negative number
    (so that the notation of any action int reads back): it must still never be a bid the rules take."""
    try:
        action = parse_notation(variant, "bid -1")
    except ValueError:
        return
    assert variant in ("spades", "spades2", "cutthroat_spades") and kind_of(action) == SpadesCode.BID
    assert payload_of(action) == -1 and notation(variant, action) == "bid -1"
    state = _spades_bidding() if variant == "spades" else start(variant, None, dealer=0, seed=1)
    if variant == "spades2":
        while state.phase != SpadesPhase.BID:
            engine.apply(state, state.turn, DRAW_KEEP)
    rejects(state, state.turn, action, engine.Reason.INVALID_BID)


@pytest.mark.parametrize("variant", ["spades", "spades2", "buck_euchre"])
def test_a_card_set_listing_a_card_twice_parses_to_an_action_no_game_takes(variant):
    """``exchange AS AS`` is no ValueError (a malformed word is): it is an exchange the rules refuse,
    as ``exchange_of`` builds it."""
    action = parse_notation(variant, "exchange AS AS")
    assert payload_of(action) & DUPLICATE_FLAG
    assert action == exchange_of([parse_card("AS"), parse_card("AS")])
    assert action != exchange(parse_cards("AS"))


def test_exchange_of_flags_duplicates_and_the_engine_rejects_them():
    dup = exchange_of([parse_card("2C"), parse_card("2C"), parse_card("3C")])
    assert dup != exchange(parse_cards("2C 3C"))
    # the duplicate flag never matches a held card set: an exchange listing a card twice is rejected
    state = start("buck_euchre", decks=None, dealer=0, seed=3)
    while state.phase != BuckPhase.DEALER_DISCARD:
        if state.phase == BuckPhase.ORDER_UP:
            engine.apply(state, state.turn, ORDER_UP)
        else:  # pragma: no cover - a club turn-up goes straight to the discard
            break
    dealer = state.dealer
    held = card_list(state.hands[dealer])
    rejects(state, dealer, exchange_of([held[0], held[0]]), engine.Reason.INVALID_EXCHANGE)
    rejects(state, dealer, parse_notation("buck_euchre", f"exchange {card_name(held[0])} {card_name(held[0])}"),
            engine.Reason.INVALID_EXCHANGE)
    engine.apply(state, dealer, exchange_of([held[0]]))


# ---- malformed action ints (anything a client can send) ----------------------------------------

def _spades_bidding():
    return start("spades", None, dealer=0, seed=1)


def _spades_playing():
    state = _spades_bidding()
    while state.phase == SpadesPhase.BID:
        engine.apply(state, state.turn, bid(3))
    return state


def _spades_exchanging():
    state = _spades_bidding()
    engine.apply(state, state.turn, DOUBLE_NIL)
    while state.phase == SpadesPhase.BID:
        engine.apply(state, state.turn, bid(3))
    assert state.phase == SpadesPhase.EXCHANGE
    return state


def _spades2_exchanging():
    state = start("spades2", None, dealer=0, seed=2)
    engine.apply(state, 0, DOUBLE_NIL)
    while state.phase == SpadesPhase.DRAW:
        engine.apply(state, state.turn, DRAW_KEEP)
    assert state.phase == SpadesPhase.EXCHANGE
    return state


def _euchre_discarding():
    for seed in range(50):
        state = start("buck_euchre", None, dealer=0, seed=seed)
        if state.phase == BuckPhase.ORDER_UP:
            engine.apply(state, state.turn, ORDER_UP)
        if state.phase == BuckPhase.DEALER_DISCARD:
            return state
    raise AssertionError("no deal found")


MALFORMED = [
    (0, "kind 0"),
    (11, "kind 11"),
    (15, "kind 15"),
    (action_of(0, 5), "kind 0 with a payload"),
    (play(52), "play of card #52"),
    (play(60), "play of card #60"),
    (name_suit(4), "name suit #4"),
    (name_suit(16), "name suit #16"),
    (exchange(1 << 55), "exchange of card #55"),
]


def test_malformed_action_ints_are_rejected_with_a_reason():
    """DESIGN.md: never UNKNOWN/INTERNAL for anything a client can send; RULES.md: every
    rejection carries one stable code. An action int that is not a legal action must raise
    IllegalAction (WRONG_PHASE for an action of no phase), not ValueError/IndexError."""
    problems = []
    for where, make in (("bidding", _spades_bidding), ("playing", _spades_playing),
                        ("exchanging", _spades_exchanging), ("exchanging (two players)", _spades2_exchanging),
                        ("discarding (Buck Euchre dealer)", _euchre_discarding)):
        for action, label in MALFORMED:
            state = make()
            seat = state.turn
            if seat < 0:
                seat = next(s for s in range(state.n) if len(engine.legal_actions(state, s)))
            assert action not in engine.legal_actions(state, seat)
            before = state.to_bytes()
            try:
                engine.apply(state, seat, action)
            except engine.IllegalAction:
                pass
            except Exception as e:  # noqa: BLE001
                problems.append(f"{label} while {where}: {type(e).__name__}: {e}")
            else:
                problems.append(f"{label} while {where}: accepted")
            assert state.to_bytes() == before
    assert not problems, "\n".join(problems)


def test_nonexistent_seat_is_never_its_turn():
    """A seat number outside the table is refused as NOT_YOUR_TURN whatever it sends (the
    service only ever passes seats it authenticated); a finished game is WRONG_PHASE first."""
    state = _spades_playing()
    rejects(state, 4, bid(3), engine.Reason.NOT_YOUR_TURN)
    rejects(state, -1, DEAL, engine.Reason.NOT_YOUR_TURN)


def test_actions_with_stray_payload_bits_are_not_accepted():
    """``legal_actions`` lists REVEAL, DOUBLE_NIL, DRAW_KEEP and DRAW_DISCARD without payload;
    the same kinds with payload bits set are other ints, outside ``legal_actions``, and must be
    rejected like any action that is not legal (not silently taken as the plain action)."""
    accepted = []
    spades = start("spades", None, dealer=0, seed=1)
    spades2 = start("spades2", None, dealer=0, seed=1)
    for state, seat, base in ((spades, 1, REVEAL), (spades, 1, DOUBLE_NIL), (spades2, 0, DRAW_KEEP),
                              (spades2, 0, DRAW_DISCARD), (spades2, 0, DOUBLE_NIL)):
        action = action_of(base, 1)
        assert base in engine.legal_actions(state, seat)
        assert action not in engine.legal_actions(state, seat)
        try:
            engine.apply(state.copy(), seat, action)
        except engine.IllegalAction:
            continue
        accepted.append(f"{state.variant}: {action} ({notation(state.variant, base)} with payload 1)")
    assert not accepted, "accepted although not in legal_actions: " + "; ".join(accepted)


def test_per_suit_lookup_tables_list_every_subset_lowest_card_first():
    from engine.core import actions, cards

    for s in range(4):
        for m in range(1 << 13):
            ranks = [r for r in range(13) if m >> r & 1]
            assert cards._BY_SUIT[s][m] == tuple(s * 13 + r for r in ranks)
            assert actions.PLAYS_BY_SUIT[s][m] == tuple(engine.play(s * 13 + r) for r in ranks)
    assert cards.card_list(cards.FULL_DECK) == list(range(52)) and cards.card_list(0) == []


@pytest.mark.parametrize(("variant", "cls", "ranges"), [
    ("spades", engine.SpadesOptions, SPADES_RANGES), ("buck_euchre", engine.BuckEuchreOptions, BUCK_EUCHRE_RANGES)])
def test_every_numeric_option_is_bounded_to_its_documented_range(variant, cls, ranges):
    assert set(ranges) == {f.name for f in dataclasses.fields(cls) if f.type in ("int", int)}
    for name, (low, high) in ranges.items():
        for ok in (low, high):
            engine.new_game(variant, options=cls(**{name: ok}), first_dealer=0)
        for bad in (low - 1, high + 1, True, "5"):
            with pytest.raises(ValueError, match=name):
                engine.new_game(variant, options=cls(**{name: bad}), first_dealer=0)
    # the options that once let legal play overflow a 32-bit score are refused
    with pytest.raises(ValueError):
        engine.SpadesOptions(target_score=100_000, bag_limit=1, bag_penalty=100_000, nil_value=0).validate()


LONG_GAMES = {"spades": engine.SpadesOptions(target_score=5000), "spades2": engine.SpadesOptions(target_score=5000),
              "buck_euchre": engine.BuckEuchreOptions(starting_score=100), "whist": whist.WhistOptions(target=100)}
"""Options no game reaches the end of in three hands (any other game: its defaults)."""
@pytest.mark.parametrize("variant", GAMES)
def test_a_game_ends_after_max_hands_with_the_best_score_winning_or_a_draw(monkeypatch, variant):
    from engine.core import rules

    monkeypatch.setattr(rules, "MAX_HANDS", 3)
    options = LONG_GAMES.get(variant, engine.game_of(variant).options_type())
    rng = random.Random(f"{variant}-3")   # a seed whose Buck Euchre game has no sweep (which ends it early)
    state = engine.new_game(variant, options, rng, first_dealer=0)
    for _ in range(3000):
        if state.phase == Phase.GAME_OVER:
            break
        seat = next(s for s in ([state.turn] if state.turn >= 0 else range(state.n))
                    if [a for a in engine.legal_actions(state, s) if a != REVEAL])
        legal = [a for a in engine.legal_actions(state, seat) if a not in (REVEAL, DOUBLE_NIL)]
        engine.apply(state, seat, legal[rng.randrange(len(legal))], rng)
    assert state.phase == Phase.GAME_OVER and state.hand_no == 3 and len(state.records) == 3
    best = (min if engine.game_of(variant).low_score_wins else max)(state.scores)
    leaders = [side for side, score in enumerate(state.scores) if score == best]
    assert state.winner == (leaders if len(leaders) == 1 else [])
    assert all(engine.legal_actions(state, s) == [] for s in range(state.n))
