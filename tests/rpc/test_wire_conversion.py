"""Requests and views converted between protobuf messages and engine values, without a server:
bearer headers, actions, options, the wire enums, views and history."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import options_pb2
from engine.core.vocabulary import VOCABULARIES
from engine.games import BUILTIN
from engine.games.buck_euchre_words import ORDER_UP
from engine.games.buck_euchre_words import discard as discard_action
from engine.games.spades_words import SpadesCode, exchange
from service.errors import IllegalMove, InvalidArgument, Unauthenticated
from service.rpc import checks, convert, requests, wire
from service.table.record import GameRecord, Seat

SPADES_TABLE, HEARTS_TABLE, BUCK_TABLE = (engine.new_game(name, first_dealer=0)
                                          for name in ("spades", "hearts", "buck_euchre"))
"""A game of each at its default settings: the table a request's action is read at."""


def test_bearer_header_parsing():
    assert checks.bearer_token([("authorization", "Bearer abc")]) == "abc"
    assert checks.bearer_token([("user-agent", "x")]) is None
    for bad in ("Basic abc", "Bearer ", "abc"):
        with pytest.raises(Unauthenticated):
            checks.bearer_token([("authorization", bad)])


def test_request_conversion_rejects_malformed_input():
    assert requests.card("10h") == engine.parse_card("10H")
    for bad in ("", "1", "ZZ", "AAAAAAAAAAAAAAA"):
        with pytest.raises(InvalidArgument):
            requests.card(bad)
    with pytest.raises(InvalidArgument):
        requests.game(enums.VARIANT_UNSPECIFIED)
    with pytest.raises(InvalidArgument):
        requests.bid_action(pb.BidRequest(kind=pb.BID_KIND_NAME_SUIT, suit=99))
    duplicate = requests.exchange_action(pb.ExchangeRequest(cards=["2C", "2C", "3C"]))(SPADES_TABLE)
    assert engine.kind_of(duplicate) == SpadesCode.EXCHANGE
    assert engine.payload_of(duplicate) & engine.core.actions.DUPLICATE_FLAG
    listed_twice = requests.act_action("exchange 2C 2C 3C", SPADES_TABLE)   # the rules' to refuse, not malformed
    assert listed_twice == duplicate
    jokers = engine.new_game("spades", engine.SpadesOptions(trumps="jokers"), first_dealer=0)
    assert engine.payload_of(requests.act_action("exchange LJ LJ 3C", jokers)) & engine.core.actions.DUPLICATE_FLAG
    with pytest.raises(IllegalMove) as refused:   # a kind of request the game has no word for
        requests.exchange_action(pb.ExchangeRequest(cards=["2C", "3C", "4C"]))(HEARTS_TABLE)
    assert refused.value.reason == "WRONG_PHASE"
    with pytest.raises(IllegalMove) as refused:   # another game's word: no move of this game
        requests.act_action("order-up", SPADES_TABLE)
    assert refused.value.reason == "WRONG_PHASE"
    with pytest.raises(InvalidArgument, match="not an action of spades"):   # no game's word
        requests.act_action("fold", SPADES_TABLE)
    with pytest.raises(InvalidArgument, match="not an action of buck_euchre"):   # another game's word, malformed
        requests.act_action("bid many", BUCK_TABLE)
    with pytest.raises(InvalidArgument):
        requests.options(engine.game_of("buck_euchre"), convert.options_message("spades", engine.SpadesOptions()))


def test_a_joker_is_a_card_only_at_a_table_with_jokers():
    """RULES §1.1: BJ and LJ are card names only at a table with jokers; elsewhere an action naming
    them is malformed (INVALID_ARGUMENT), while a standard card that left a jokers table's deck is
    the rules' CARD_NOT_IN_HAND."""
    plain = SPADES_TABLE
    jokers = engine.new_game("spades", engine.SpadesOptions(trumps="jokers"), first_dealer=0)
    for text in ("play BJ", "exchange LJ 2C AS"):
        with pytest.raises(InvalidArgument, match="no card at this table"):
            requests.act_action(text, plain)
    assert requests.act_action("play BJ", jokers) == engine.play(engine.parse_card("BJ", jokers=True))
    assert requests.act_action("play 2C", jokers) == engine.play(engine.parse_card("2C"))   # the rules refuse it


def test_a_typed_option_of_another_game_of_the_message_is_refused():
    """Two-player Spades takes SpadesOptions but not its four-player table settings: one given is
    refused by name, never silently dropped."""
    message = options_pb2.RuleOptions(spades=options_pb2.SpadesOptions(trumps="jokers"))
    with pytest.raises(InvalidArgument, match="trumps does not apply to spades2"):
        requests.options(engine.game_of("spades2"), message)
    assert requests.options(engine.game_of("spades"), message).trumps == "jokers"


FIRST_GAMES = ("spades", "spades2", "buck_euchre", "hearts")
"""The games built in before each game had words of its own (later games need no enum value)."""


def test_the_first_games_words_keep_their_enum_values_on_the_wire():
    """Every phase and action word of the games first built in is sent with its Phase / ActionKind
    value (as before the games had words of their own), and every value of those enums is sent."""
    phases, kinds = set(), set()
    for game in (engine.game_of(name) for name in FIRST_GAMES):
        adapter = wire.adapter_of(game.name)
        assert {p.name for p in game.vocabulary.phases} <= set(adapter.phases), game.name
        assert {w.word for w in game.vocabulary.words} <= set(adapter.action_kinds), game.name
        phases |= {(p.name, adapter.phases[p.name]) for p in game.vocabulary.phases}
        kinds |= {adapter.action_kinds[w.word] for w in game.vocabulary.words}
    assert {value for _, value in phases} == {value for value in enums.Phase.values() if value}
    service_only = {enums.ACTION_KIND_BACK}  # "back" is the service's action, no game's
    assert kinds == {value for value in enums.ActionKind.values() if value} - service_only
    same_name = {(name, value) for name, value in phases if enums.Phase.Name(value) == f"PHASE_{name.upper()}"}
    assert phases - same_name == {("pass", enums.PHASE_EXCHANGE)}   # Hearts' pass was sent as the exchange
    assert set(requests.VARIANTS.values()) <= {game.name for game in BUILTIN}
    assert sorted(requests.VARIANTS) == sorted(v for v in enums.Variant.values() if v)
    assert [enums.Suit.Name(s) for s in convert.SUITS] == ["SUIT_CLUBS", "SUIT_DIAMONDS", "SUIT_HEARTS", "SUIT_SPADES"]


def test_views_carry_played_cards_voids_and_the_discard_to_the_dealer_alone():
    names = [rank + suit for suit in "CDHS" for rank in ("9", "10", "J", "Q", "K", "A")]
    names.remove("9H")
    names.insert(20, "9H")                                      # the turn-up: a heart, so no forced clubs
    deck = [engine.parse_card(c) for c in names]
    state = engine.new_game("buck_euchre", first_dealer=0, decks=[deck])
    rng = random.Random(1)
    engine.apply(state, 0, engine.DEAL, rng)
    engine.apply(state, 1, ORDER_UP, rng)
    engine.apply(state, 0, discard_action(1 << deck[3]), rng)  # a card the dealer was dealt
    players = [{"name": name, "kind": enums.PLAYER_KIND_HUMAN} for name in "ABCD"]
    views = {seat: convert.view_message(engine.view(state, seat), "g1", 4, players) for seat in (None, 0, 1, 2, 3)}
    discard = names[3]
    assert views[0].buck_euchre.dealer_discard == discard and discard not in views[0].hand
    assert all(views[seat].buck_euchre.dealer_discard == "" for seat in (None, 1, 2, 3))

    view = engine.view(state, 2)
    view.seats[1].played = [engine.parse_card("JD"), engine.parse_card("AS")]
    view.seats[1].void_suits = (0, 2)
    message = convert.view_message(view, "g1", 4, players)
    assert list(message.seats[1].played_cards) == ["JD", "AS"]
    assert list(message.seats[1].void_suits) == [enums.SUIT_CLUBS, enums.SUIT_HEARTS]
    assert [list(s.played_cards) + list(s.void_suits) for i, s in enumerate(message.seats) if i != 1] == [[]] * 3


def test_act_notation_round_trips_every_listed_action():
    state = engine.new_game("spades", rng=random.Random(5), first_dealer=0)
    engine.apply(state, 0, engine.DEAL, random.Random(5))
    for seat in range(4):
        for action in engine.legal_actions(state, seat):
            assert requests.act_action(convert.legal_action("spades", action).notation, SPADES_TABLE) == action
    assert requests.act_action("exchange 2C, 3D 4H", SPADES_TABLE) == exchange(engine.parse_cards("2C 3D 4H"))


def test_options_outside_their_ranges_are_invalid_arguments():


    for bad in (options_pb2.SpadesOptions(target_score=100_000), options_pb2.SpadesOptions(bag_limit=1),
                options_pb2.SpadesOptions(bag_penalty=100_000), options_pb2.SpadesOptions(exchange_size=5)):
        with pytest.raises(InvalidArgument):
            requests.options(engine.game_of("spades"), options_pb2.RuleOptions(spades=bad))
    with pytest.raises(InvalidArgument):
        requests.options(engine.game_of("buck_euchre"),
                        options_pb2.RuleOptions(buck_euchre=options_pb2.BuckEuchreOptions(penalty=26)))


def test_history_redacts_an_open_hand_by_the_games_own_hook(monkeypatch):
    """What an open hand's log shows of an action is the game's decision (Game.redact), not the
    service's: here Whist hides its plays until the hand is over; the default shows them."""
    import dataclasses
    import random

    from service.rpc import lifecycle_messages
    from service.table import gamelog
    from tests.games import whist

    def played(tricks: int):
        rng = random.Random(5)
        state = engine.new_game("whist", None, rng, 0)
        raw = [gamelog.genesis(state)]
        while len(raw) < 2 + 4 * tricks:   # the genesis, the deal, then the tricks' plays
            seat = next(s for s in range(4) if engine.legal_actions(state, s))
            action = engine.legal_actions(state, seat)[0]
            raw.append(gamelog.entry(seat, action, engine.apply(state, seat, action, rng)))
        seats = [Seat(f"P{i}", 1, None, "") for i in range(4)]
        return lifecycle_messages.history(GameRecord("g" * 24, state, seats, None), raw, len(raw))

    shown = [e.action for e in played(2).entries]
    assert shown[0] == "deal" and all(a.startswith("play ") and len(a) > 5 for a in shown[1:])
    def hide_plays(action: int) -> str:
        return "play" if engine.kind_of(action) == engine.PLAY_CODE else engine.notation("whist", action)

    monkeypatch.setitem(engine.GAMES, "whist", dataclasses.replace(whist.GAME, redact=hide_plays))
    hidden = [e.action for e in played(2).entries]
    assert hidden == ["deal"] + ["play"] * (len(hidden) - 1)
    finished = [e.action for e in played(13).entries]   # the hand is over: everything shows
    assert len(finished) == 53 and all(a.startswith("play ") and len(a) > 5 for a in finished[1:])


CARD_TEXTS = [*engine.core.cards.CARD_NAMES, "BJ", "LJ", "XJ", "1C", ""]
TABLES = [SPADES_TABLE, HEARTS_TABLE, BUCK_TABLE,
          engine.new_game("spades", engine.SpadesOptions(trumps="jokers"), first_dealer=0),
          engine.new_game("euchre", first_dealer=0), engine.new_game("spades2", first_dealer=0)]


WORDS = sorted({w for v in VOCABULARIES.values() for w in v.by_word} | {"bid"})
CARD_WORDS = sorted({w for v in VOCABULARIES.values() for w, word in v.by_word.items()
                     if word.shape in (engine.Shape.CARD, engine.Shape.CARDS)})


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(TABLES), st.one_of(st.sampled_from(CARD_WORDS), st.sampled_from(WORDS)),
       st.lists(st.one_of(st.sampled_from(["2C", "3C", "BJ", "LJ"]), st.sampled_from(CARD_TEXTS)), max_size=5),
       st.sampled_from([" ", ", ", "  "]))
def test_any_notation_is_an_action_or_a_clear_refusal(table, word, cards, separator):
    """Whatever words and card names an Act carries (cards listed twice, jokers at any table, another
    game's word), the conversion gives an action or refuses it as malformed (INVALID_ARGUMENT) or as
    no move of this game (IllegalMove): never another error."""
    text = f"{word} {separator.join(cards)}".strip() or word
    try:
        action = requests.act_action(text, table)
    except (InvalidArgument, IllegalMove):
        return
    assert isinstance(action, int)
