"""Service pieces without a server: game records, randomness, tokens, API keys, request and view
conversion, and what the configuration says about secrets."""

from __future__ import annotations

import base64
import json
import logging
import random
import secrets

import pytest

import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import options_pb2
from engine.games import BUILTIN
from engine.games.buck_euchre_words import ORDER_UP
from engine.games.buck_euchre_words import discard as discard_action
from engine.games.spades_words import SpadesCode, exchange
from service.errors import IllegalMove, InvalidArgument, PermissionDenied, Unauthenticated
from service.ops import config, credentials
from service.rpc import apikeys, checks, convert, requests, wire
from service.table import tokens as auth
from service.table.record import SPECTATORS_ANYONE, SPECTATORS_NONE, SPECTATORS_TOKEN, GameRecord, Seat
from testkit.launcher import ServerProcess

SPADES_TABLE, HEARTS_TABLE, BUCK_TABLE = (engine.new_game(name, first_dealer=0)
                                          for name in ("spades", "hearts", "buck_euchre"))
"""A game of each at its default settings: the table a request's action is read at."""


def _record(seed: int | None) -> GameRecord:
    state = SPADES_TABLE
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


def test_api_keys_are_checked_against_their_hashes_and_several_may_be_configured():
    key_a, entry_a = apikeys.new_key("shop")
    key_b, entry_b = apikeys.new_key("shop")  # a rotation: both keys of one caller at once
    key_c, entry_c = apikeys.new_key("arcade")
    keys = apikeys.ApiKeys(apikeys.split_entries(f"{entry_a}, {entry_b}  # old and new\n{entry_c}\n"))
    assert keys.required and len(keys) == 3
    assert key_a not in entry_a and key_a.split(".")[1] not in entry_a  # only hashes are configured
    assert [keys.caller([("x-api-key", k)], "CreateGame") for k in (key_a, key_b, key_c)] == ["shop", "shop", "arcade"]
    with pytest.raises(Unauthenticated, match="needs an API key"):
        keys.caller([("authorization", "Bearer x")], "CreateGame")
    for bad in (key_a + "x", "shop", "arcade." + key_a.split(".")[1], "x" * 300, ""):
        with pytest.raises(Unauthenticated, match="not valid"):
            keys.caller([("x-api-key", bad)], "CreateGame")
    assert apikeys.ApiKeys().caller([], "CreateGame") == ""  # an open server
    with pytest.raises(ValueError, match="entry 2"):
        apikeys.ApiKeys([entry_a, "shop:abc"])
    with pytest.raises(ValueError):
        apikeys.new_key("no spaces")


def test_the_key_generator_prints_a_key_and_its_entry(capsys):
    assert apikeys.main(["backend-1"]) == 0
    out = capsys.readouterr().out
    key = out.split("secret): ")[1].split()[0]
    entry = out.split("--api-keys-file): ")[1].split()[0]
    assert apikeys.ApiKeys([entry]).caller([("x-api-key", key)], "CreateGame") == "backend-1"
    assert apikeys.main([]) == 2 and apikeys.main(["bad id"]) == 2


def test_key_ids_starting_with_an_underscore_are_reserved(capsys, monkeypatch):
    # The server's own owners (the open server's "_open") start with "_": no API key may be one.
    for reserved in ("_open", "_", "_x-1"):
        with pytest.raises(ValueError, match="reserved"):
            apikeys.new_key(reserved)
        assert apikeys.main([reserved]) == 2
        assert "reserved" in capsys.readouterr().err
    assert apikeys.new_key("shop_2")[1].startswith("shop_2:")  # "_" inside a key id is fine
    _, entry = apikeys.new_key("shop")
    with pytest.raises(ValueError, match=r"entry 2 \('_open'\).*reserved"):
        apikeys.ApiKeys([entry, "_open:" + "0" * 64])
    for name in ("CARDGAME_API_KEYS", "CARDGAME_API_KEYS_FILE"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(SystemExit):
        config.parse(["--api-keys", f"{entry},_open:{'0' * 64}"])
    err = capsys.readouterr().err
    assert "entry 2 ('_open')" in err and "reserved" in err
    monkeypatch.setenv("CARDGAME_API_KEYS", "_open:" + "0" * 64)
    with pytest.raises(SystemExit):
        config.parse([])
    assert "'_open'" in capsys.readouterr().err


SECRET = "a-token-secret-of-at-least-thirty-two-bytes"
SECRET_ENV = ("CARDGAME_TOKEN_SECRET", "CARDGAME_TOKEN_SECRET_FILE", "CARDGAME_TOKEN_SECRET_PREVIOUS",
              "CARDGAME_API_KEYS", "CARDGAME_API_KEYS_FILE")


def _warnings(caplog, cfg: config.Config) -> list[logging.LogRecord]:
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        credentials.warn_about_secret_flags(cfg.secret_flags)
    return [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_a_secret_given_as_a_flag_is_warned_about_once(caplog, monkeypatch, tmp_path):
    for name in SECRET_ENV:
        monkeypatch.delenv(name, raising=False)
    _, entry = apikeys.new_key("shop")
    given = config.parse(["--token-secret", SECRET, f"--token-secret-previous={SECRET}x", "--api-keys", entry])
    assert given.secret_flags == ("--token-secret", "--token-secret-previous", "--api-keys")
    (record,) = _warnings(caplog, given)
    message = record.getMessage()
    assert record.levelno == logging.WARNING and record.name == "cardgame.config"
    for flag in given.secret_flags:
        assert flag in message
    assert "/proc/<pid>/cmdline" in message and "CARDGAME_TOKEN_SECRET_FILE" in message
    assert SECRET not in message and entry not in message
    abbreviated = config.parse(["--token-secret-p", SECRET])  # argparse takes an unambiguous abbreviation
    assert abbreviated.secret_flags == ("--token-secret-previous",)
    # The same secrets from the environment or from files: no warning.
    monkeypatch.setenv("CARDGAME_TOKEN_SECRET", SECRET)
    monkeypatch.setenv("CARDGAME_TOKEN_SECRET_PREVIOUS", SECRET + "x")
    monkeypatch.setenv("CARDGAME_API_KEYS", entry)
    from_env = config.parse([])
    assert from_env.token_secret == SECRET.encode() and from_env.api_keys == (entry,)
    assert from_env.secret_flags == () and _warnings(caplog, from_env) == []
    for name in SECRET_ENV:
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "secret").write_text(SECRET)
    (tmp_path / "keys").write_text(entry + "\n")
    from_files = config.parse(["--token-secret-file", str(tmp_path / "secret"),
                               "--api-keys-file", str(tmp_path / "keys")])
    assert from_files.secret_flags == () and _warnings(caplog, from_files) == []
    assert config.parse(["--token-secret", ""]).secret_flags == ()  # an empty flag carries no secret


def test_the_server_warns_at_start_of_a_secret_on_its_command_line():
    with ServerProcess("--token-secret", SECRET, env={"LOG_LEVEL": "INFO"}) as server:
        lines = [json.loads(line) for line in server.log_text().splitlines() if line.startswith("{")]
    warned = [line for line in lines if "/proc/<pid>/cmdline" in line["message"]]
    assert len(warned) == 1 and warned[0]["level"] == "WARNING" and "--token-secret" in warned[0]["message"]
    with ServerProcess(env={"LOG_LEVEL": "INFO"}) as server:  # the launcher's secret, from the environment
        assert "/proc/<pid>/cmdline" not in server.log_text()


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
    from service.table.record import GameRecord, Seat
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


def test_garbage_collections_are_timed_into_a_histogram():
    import gc

    from prometheus_client import REGISTRY

    from service.telemetry import metrics

    def collections(generation: str) -> float:
        return REGISTRY.get_sample_value("cardgame_gc_pause_seconds_count", {"generation": generation}) or 0.0

    metrics.time_gc()
    metrics.time_gc()   # once per process, however often asked
    assert gc.callbacks.count(metrics._gc_pause) == 1
    gc.disable()   # no collection but the test's own between the counts
    try:
        metrics.flush_gc()
        before = collections("1")
        gc.collect(1)
        # the collector's callback only queues the pause: observing it there could take a metric's
        # lock that the interrupted code holds; the next flush (every call's end) observes it
        assert collections("1") == before
        metrics.flush_gc()
        assert collections("1") == before + 1
        assert REGISTRY.get_sample_value("cardgame_gc_pause_seconds_sum", {"generation": "1"}) > 0
    finally:
        gc.enable()
        gc.callbacks.remove(metrics._gc_pause)   # the rest of this test process runs untimed


async def test_redis_connections_share_one_driver_info_and_read_no_package_metadata(monkeypatch, redis_url):
    """redis-py would read its package metadata for every connection it opens (for CLIENT
    SETINFO); the store's pools hand every connection one DriverInfo made at import instead."""
    import redis.utils

    from service.store.redis import connection

    def metadata_read():
        raise AssertionError("a connection read redis-py's package metadata")

    monkeypatch.setattr(redis.utils, "get_lib_version", metadata_read)
    client = connection.connect(redis_url)
    try:
        made = client.connection_pool.make_connection()
        assert made.driver_info is connection.DRIVER_INFO
        assert connection.DRIVER_INFO.formatted_name == "redis-py"
        assert connection.DRIVER_INFO.lib_version == redis.__version__
        assert await client.ping()   # a connection made this way still connects (and sends CLIENT SETINFO)
    finally:
        await client.aclose()
