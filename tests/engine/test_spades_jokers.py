"""Spades with jokers (the ``trumps`` table setting, RULES.md §1.1): the deck, the jokers' names,
the spades' ranking, a joker (and in ``jokers_deuces`` the 2♦) as a spade for following, leading,
breaking spades and showing out, the order of a hand in views, the deal's fairness commitment, and
the states a search bot builds from a view."""

from __future__ import annotations

import hashlib
import random

import pytest
from engine_helpers import act, bid_round, new, rejects, round_robin_deck

import engine
from bots.sampling import sample_fills
from engine import LogEntry, Reason, SpadesOptions, play
from engine.core.cards import BIG_JOKER, JOKERS, LITTLE_JOKER, SPADES, card_list, cards_text, deck_text, parse_card
from engine.core.hidden import mask
from engine.games.spades_bidding import spades_in_hand
from engine.games.spades_deck import trumps_of
from engine.games.spades_state import SpadesReason
from engine.games.spades_words import SpadesPhase as Phase
from engine.games.spades_words import bid, exchange


def J(text: str) -> int:
    return parse_card(text, jokers=True)


def js(text: str) -> int:
    return engine.parse_cards(text, jokers=True)


def deal_table(trumps: str, dealer: int, hands: dict[int, str], **settings) -> engine.TableState:
    """A four-player hand at a table with ``trumps``, dealt by ``dealer``, each listed seat getting its
    cards and the others the rest of the table's deck, lowest first; its deck is prearranged with
    the jokers in it, as a deal's chance records it."""
    table = trumps_of(SpadesOptions(trumps=trumps))
    listed = {s: [J(w) for w in text.split()] for s, text in hands.items()}
    used = {c for cards in listed.values() for c in cards}
    rest = [c for c in card_list(table.deck) if c not in used]
    full = []
    for s in range(4):
        cards = listed.get(s, [])
        while len(cards) < 13:
            cards.append(rest.pop(0))
        full.append(cards)
    deck = round_robin_deck(full, dealer)
    state = new("spades", [deck], dealer=dealer, options=SpadesOptions(trumps=trumps, **settings))
    act(state, dealer, engine.DEAL)
    assert [state.hands[s] for s in range(4)] == [sum(1 << c for c in cards) for cards in full]
    return state


def trick(state, cards: str) -> None:
    for name in cards.split():
        act(state, state.turn, play(J(name)))


# ---- the deck and the names -------------------------------------------------------------------

@pytest.mark.parametrize("trumps,gone", [("jokers", "2C 2D"), ("jokers_deuces", "2C 2H")])
def test_two_deuces_leave_and_the_jokers_join(trumps, gone):
    state = new("spades", dealer=0, options=SpadesOptions(trumps=trumps), seed=3)
    chance = act(state, 0, engine.DEAL)
    dealt = 0
    for hand in state.hands:
        assert hand.bit_count() == 13
        dealt |= hand
    assert dealt == trumps_of(state.options).deck and dealt & JOKERS == JOKERS and not dealt & js(gone)
    assert list(chance.cards) == state.deck and sorted(state.deck) == card_list(dealt)   # the table's own deck
    engine.check_deck("spades", chance.cards, options=state.options)
    with pytest.raises(ValueError, match="is not a card of spades"):
        engine.check_deck("spades", chance.cards)             # a plain table has no jokers
    assert state.commitment == hashlib.sha256(f"{state.salt}:{deck_text(state.deck)}".encode()).hexdigest()
    assert state.commitment == hashlib.sha256(f"{chance.salt}:{deck_text(chance.cards)}".encode()).hexdigest()
    assert "BJ" in deck_text(chance.cards).split() and "LJ" in deck_text(chance.cards).split()


@pytest.mark.parametrize("trumps,gone", [("jokers", "2C 2D"), ("jokers_deuces", "2C 2H")])
def test_a_prearranged_deck_holds_the_jokers_and_refuses_the_cards_that_left(trumps, gone):
    options = SpadesOptions(trumps=trumps)
    cards = list(engine.game_of("spades").cards_for(options))
    assert len(cards) == 52 and set(cards) & {BIG_JOKER, LITTLE_JOKER} == {BIG_JOKER, LITTLE_JOKER}
    deck = random.Random(4).sample(cards, 52)
    state = engine.new_game("spades", options, first_dealer=2, decks=[deck])
    chance = act(state, 2, engine.DEAL)
    assert list(chance.cards) == deck == state.deck
    assert (state.hands[3] >> BIG_JOKER & 1) == (deck.index(BIG_JOKER) % 4 == 0)   # dealt from left of the dealer
    assert engine.replay("spades", options, 2, [LogEntry(2, engine.DEAL, chance)]) == state
    plain = [parse_card(c) for c in gone.split()]
    for bad, words in ((deck[:-1] + [plain[0]], f"{gone.split()[0]} is not a card of spades"),
                       (deck[:-1], "1 cards are missing"), (deck[:-1] + [deck[0]], "appears twice"),
                       ([c for c in deck if c < 52] + plain, "is not a card of spades"),
                       (deck[:-1] + [54], "54 is not a card of spades")):
        with pytest.raises(ValueError, match=words):
            engine.new_game("spades", options, first_dealer=2, decks=[bad])
    with pytest.raises(ValueError, match="is not a card of spades"):
        engine.new_game("spades", first_dealer=2, decks=[deck])          # jokers at a plain table


def test_the_plain_table_has_no_jokers():
    state = new("spades", dealer=0, seed=3)
    act(state, 0, engine.DEAL)
    assert not any(hand & JOKERS for hand in state.hands) and sorted(state.deck) == list(range(52))


def test_joker_names_are_cards_only_in_four_player_spades():
    assert engine.parse_notation("spades", "play BJ") == play(BIG_JOKER)
    assert engine.parse_notation("spades", "play lj") == play(LITTLE_JOKER)
    assert engine.notation("spades", play(BIG_JOKER)) == "play BJ"
    for variant, text in (("spades2", "play BJ"), ("hearts", "play LJ"), ("buck_euchre", "play BJ"),
                          ("spades2", "exchange LJ 2H")):
        with pytest.raises(ValueError, match="not a card"):
            engine.parse_notation(variant, text)
    with pytest.raises(ValueError):
        engine.parse_card("BJ")


def test_action_strings_keep_the_canonical_card_order():
    """Decision: the cards of an action string are in the canonical (card number) order, the 2♦
    with the diamonds and the jokers next to the A♠ as the highest spades (LJ, then BJ)."""
    action = engine.parse_notation("spades", "exchange BJ 2D AS LJ")
    assert engine.notation("spades", action) == "exchange 2D AS LJ BJ"
    assert cards_text(js("LJ BJ AS")) == "AS LJ BJ"


def test_a_card_that_left_the_deck_is_not_in_hand():
    state = deal_table("jokers", 3, {})
    bid_round(state, (3, 3, 3, 3))
    refused = rejects(state, 0, "play 2C", Reason.CARD_NOT_IN_HAND)
    assert refused.message == "2C is not a card of this table's deck"
    rejects(state, 0, "play 2D", Reason.CARD_NOT_IN_HAND)
    plain = new("spades", dealer=3, seed=1)
    act(plain, 3, engine.DEAL)
    bid_round(plain, (3, 3, 3, 3))
    assert rejects(plain, 0, "play BJ", Reason.CARD_NOT_IN_HAND).message == "BJ is not a card of this table's deck"


# ---- ranking, following, leading, breaking, showing out ----------------------------------------

def test_jokers_rank_big_little_then_the_ace_of_spades():
    state = deal_table("jokers", 3, {0: "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC 3D",
                                     1: "LJ 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH",
                                     2: "BJ 4D 5D 6D 7D 8D 9D 10D JD QD KD AD AH",
                                     3: "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS"})
    bid_round(state, (3, 3, 3, 3))
    trick(state, "3C LJ BJ AS")                                 # none of the others holds a club
    assert state.last_trick[2] == 2 and state.broken            # a joker trumps and breaks spades
    assert [engine.view(state, 0).seats[s].void_suits for s in range(4)] == [(), (0,), (0,), (0,)]


def test_a_joker_is_a_spade_to_follow_and_a_spade_led_shows_who_holds_none():
    state = deal_table("jokers", 2, {3: "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS",
                                     0: "LJ 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
                                     1: "2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH",
                                     2: "BJ 3D 4D 5D 6D 7D 8D 9D 10D JD QD KD AD"})
    bid_round(state, (3, 3, 3, 3))
    assert state.turn == 3
    act(state, 3, play(J("2S")))                                # nothing but spades: it may lead one
    assert engine.legal_actions(state, 0) == [play(LITTLE_JOKER)]
    rejects(state, 0, play(J("3C")), Reason.MUST_FOLLOW_SUIT)
    trick(state, "LJ 2H BJ")
    assert state.last_trick[2] == 2
    view = engine.view(state, 0)
    assert SPADES in view.seats[1].void_suits and SPADES not in view.seats[0].void_suits
    for place in engine.hidden(view).places:
        if place.seat == 1:
            assert not place.allowed & trumps_of(state.options).spades   # no joker either


def test_a_joker_may_not_be_led_before_spades_are_broken():
    state = deal_table("jokers_deuces", 1, {2: "BJ LJ AH 5C 6C 7C 8C 9C 10C JC QC KC AC"})
    bid_round(state, (3, 3, 3, 3))
    assert state.turn == 2
    assert not {play(BIG_JOKER), play(LITTLE_JOKER)} & set(engine.legal_actions(state, 2))
    rejects(state, 2, play(BIG_JOKER), SpadesReason.SPADES_NOT_BROKEN)
    rejects(state, 2, play(J("2D")), Reason.CARD_NOT_IN_HAND)


DEUCES = {0: "4D 5D 6D 7D 8D 9D 10D JD QD KD AD 3C 4C",
          1: "2D 3D 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH",
          2: "BJ LJ AH 5C 6C 7C 8C 9C 10C JC QC KC AC",
          3: "2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS"}


def test_deuces_the_two_of_diamonds_is_a_spade_not_a_diamond():
    state = deal_table("jokers_deuces", 3, DEUCES)
    bid_round(state, (3, 3, 3, 3))
    act(state, 0, play(J("5D")))
    assert engine.legal_actions(state, 1) == [play(J("3D"))]    # its only diamond: the 2♦ is a spade
    assert rejects(state, 1, play(J("2D")), Reason.MUST_FOLLOW_SUIT).message == \
        "2D (a spade at this table) does not follow D and seat 1 holds one"
    trick(state, "3D AC 2S")
    assert state.last_trick[2] == 3 and state.broken


def test_deuces_the_two_of_diamonds_may_not_be_led_before_spades_are_broken():
    state = deal_table("jokers_deuces", 0, DEUCES)
    bid_round(state, (3, 3, 3, 3))
    assert state.turn == 1 and play(J("2D")) not in engine.legal_actions(state, 1)
    rejects(state, 1, play(J("2D")), SpadesReason.SPADES_NOT_BROKEN)
    act(state, 1, play(J("3D")))
    assert not state.broken


def test_deuces_rank_big_little_two_of_diamonds_two_of_spades_then_the_ace():
    state = deal_table("jokers_deuces", 3, {0: "3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC 3D",
                                            1: "2D 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH",
                                            2: "2S 4D 5D 6D 7D 8D 9D 10D JD QD KD AD AS",
                                            3: "BJ LJ 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS"})
    bid_round(state, (3, 3, 3, 3))
    trick(state, "3C 2D AS 3S")
    assert state.last_trick[2] == 1                             # 2♦ over the A♠
    assert engine.view(state, 0).seats[1].void_suits == (0,)
    table = trumps_of(state.options)
    order = sorted(card_list(table.spades), key=table.power.__getitem__, reverse=True)
    assert [engine.card_name(c) for c in order[:6]] == ["BJ", "LJ", "2D", "2S", "AS", "KS"]
    assert len(order) == 16


def test_the_spades_in_hand_count_jokers_and_the_two_of_diamonds():
    state = deal_table("jokers_deuces", 3, DEUCES, bidding="mirror")
    assert [spades_in_hand(state, s) for s in range(4)] == [0, 1, 2, 13]
    assert engine.legal_actions(state, 0) == [bid(0)]
    act(state, 0, bid(0))
    assert rejects(state, 1, bid(0), SpadesReason.BID_NOT_ALLOWED).message == \
        "in Mirror you bid the spades in your hand: you hold 1 spade (the jokers and the 2D count), so bid 1"
    bid_round(state, {1: 1, 2: 2, 3: 13})
    assert state.phase == Phase.PLAY


# ---- views -----------------------------------------------------------------------------------------

def test_a_hand_in_a_view_lists_spades_high_to_low_then_hearts_diamonds_clubs():
    state = deal_table("jokers_deuces", 3, {0: "3C AC 3D KD 2D 4H AH 3S 2S AS BJ LJ QS"}, double_nil_allowed=False)
    assert [engine.card_name(c) for c in engine.view(state, 0).hand] == \
        ["BJ", "LJ", "2D", "2S", "AS", "QS", "3S", "AH", "4H", "KD", "3D", "AC", "3C"]
    jokers = deal_table("jokers", 3, {0: "3C AC 3D KD 4D 4H AH 3S 2S AS BJ LJ QS"}, double_nil_allowed=False)
    assert [engine.card_name(c) for c in engine.view(jokers, 0).hand] == \
        ["BJ", "LJ", "AS", "QS", "3S", "2S", "AH", "4H", "KD", "4D", "3D", "AC", "3C"]
    plain = new("spades", dealer=3, seed=2, options=SpadesOptions(double_nil_allowed=False))
    act(plain, 3, engine.DEAL)
    assert engine.view(plain, 0).hand == card_list(plain.hands[0])    # the plain table: the canonical order


def test_an_exchange_of_jokers():
    state = deal_table("jokers", 3, {0: "BJ LJ 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC"}, nil_exchange=2)
    bid_round(state, {0: 0, 1: 3, 2: 4, 3: 3})
    assert state.phase == Phase.EXCHANGE
    act(state, 0, engine.parse_notation("spades", "exchange BJ LJ"))
    given = state.hands[2] & ~JOKERS
    give = sum(1 << c for c in card_list(given)[:2])
    act(state, 2, exchange(give))
    assert state.hands[2] & JOKERS == JOKERS and state.hands[0] & give == give
    assert engine.view(state, 0).rules.exchange_given == [LITTLE_JOKER, BIG_JOKER]


# ---- a whole hand: the record, the commitment, replay and the search bot's states -------------------

@pytest.mark.parametrize("trumps", ["jokers", "jokers_deuces"])
def test_a_whole_hand_records_the_jokers_and_replays(trumps):
    rng = random.Random(5)
    state = engine.new_game("spades", SpadesOptions(trumps=trumps, target_score=100), rng=rng, first_dealer=1)
    log = []
    checked = 0
    while not state.records:
        seat = state.turn if state.turn >= 0 else next(s for s in range(4) if engine.legal_actions(state, s))
        view = engine.view(state, seat)
        if state.phase == Phase.PLAY:
            hidden = engine.hidden(view)
            world = engine.determinize(view, sample_fills(hidden, rng))
            assert engine.view(world, seat) == view
            assert hidden.cards & ~trumps_of(state.options).deck == 0
            checked += 1
        legal = engine.legal_actions(state, seat)
        action = legal[rng.randrange(len(legal))]
        if engine.kind_of(action) == engine.kind_of(bid(0)):
            action = bid(3)
        log.append(LogEntry(seat, action, engine.apply(state, seat, action, rng)))
    record = state.records[0]
    assert "BJ" in record.deck.split() and hashlib.sha256(f"{record.salt}:{record.deck}".encode()).hexdigest() == \
        record.commitment
    assert engine.replay("spades", state.options, 1, log) == state
    assert checked == 52
    assert mask(sum((engine.view(state, s).seats[s].played for s in range(4)), [])) == trumps_of(state.options).deck
