"""Moves through a real channel: idempotency, concurrency, auth and the bad-input table."""

from __future__ import annotations

import random
import threading
import uuid

import grpc
import pytest

from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from engine.games import BUILTIN
from tests.support.players import acting_seat, auth, choose, code_of, create, reason_of, request_for, send, tokens_of

HANDS = {  # with dealer 0, the deck deals seat 1 first
    1: "2C 3C 4C 5C 2S 3S 4S 5S 2D 3D 4D 5D 2H",
    2: "6C 7C 6S 7S 6D 7D 8D 9D 3H 4H 5H 6H 7H",
    3: "8C 9C 10C JC 8S 9S 10S 10D JD QD 8H 9H 10H",
    0: "QC KC AC JS QS KS AS KD AD JH QH KH AH",
}
SPADES_DECK = [card for four in zip(*(HANDS[s].split() for s in (1, 2, 3, 0)), strict=True) for card in four]


def version_of(stub, game_id: str) -> int:
    return stub.GetGame(pb.GetGameRequest(game_id=game_id)).view.version




@pytest.fixture
def dealt(stub):
    """A four-player Spades game, dealer 0, dealt from a known deck (HANDS)."""
    created = create(stub, "spades", first_dealer=0, decks=[pb.Deck(cards=SPADES_DECK)])
    tokens = tokens_of(created)
    send(stub, "Deal", pb.DealRequest(game_id=created.game_id), tokens[0])
    return created.game_id, tokens


def test_retry_with_same_request_id_returns_same_answer_and_changes_nothing(stub, dealt):
    game_id, tokens = dealt
    request = pb.BidRequest(game_id=game_id, kind=pb.BID_KIND_TRICKS, tricks=3, request_id="bid-once")
    first = stub.Bid(request, metadata=auth(tokens[1]))
    version = version_of(stub, game_id)
    again = stub.Bid(request, metadata=auth(tokens[1]))
    assert again == first
    assert version_of(stub, game_id) == version
    other = pb.BidRequest(game_id=game_id, kind=pb.BID_KIND_TRICKS, tricks=4, request_id="bid-once")
    with pytest.raises(grpc.RpcError) as info:
        stub.Bid(other, metadata=auth(tokens[1]))
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_create_game_retry_returns_same_game_and_tokens(stub):
    request = pb.CreateGameRequest(variant=enums.VARIANT_BUCK_EUCHRE, request_id=f"create-{uuid.uuid4().hex}",
                                   seats=[pb.SeatConfig(name=f"P{i}") for i in range(4)])
    first = stub.CreateGame(request)
    second = stub.CreateGame(request)
    assert first.game_id == second.game_id
    assert sorted((t.seat, t.token) for t in first.seat_tokens) == sorted((t.seat, t.token) for t in second.seat_tokens)
    assert len({t.token for t in first.seat_tokens}) == 4
    assert all(len(t.token) >= 22 for t in first.seat_tokens)  # at least 128 bits, base64


def test_expected_version_stale_is_aborted(stub, dealt):
    game_id, tokens = dealt
    version = version_of(stub, game_id)
    request = pb.BidRequest(game_id=game_id, kind=pb.BID_KIND_TRICKS, tricks=2, expected_version=version - 1)
    assert code_of(send, stub, "Bid", request, tokens[1]) == grpc.StatusCode.ABORTED
    assert version_of(stub, game_id) == version
    request.expected_version = version
    request.request_id = ""
    send(stub, "Bid", request, tokens[1])
    assert version_of(stub, game_id) == version + 1


def test_racing_clients_exactly_one_move_lands_per_turn(stub, server):
    created = create(stub, "spades", first_dealer=0)
    game_id, tokens = created.game_id, tokens_of(created)
    send(stub, "Deal", pb.DealRequest(game_id=game_id), tokens[0])
    for turn in (1, 2, 3, 0):
        start = version_of(stub, game_id)
        outcomes = []

        def racer(tricks: int, turn: int = turn, outcomes: list = outcomes) -> None:
            with grpc.insecure_channel(server.address) as channel:
                from cardgame.v1 import game_service_pb2_grpc as pb_grpc
                racing = pb_grpc.GameServiceStub(channel)
                request = pb.BidRequest(game_id=game_id, kind=pb.BID_KIND_TRICKS, tricks=tricks)
                outcomes.append(code_of(send, racing, "Bid", request, tokens[turn]))

        threads = [threading.Thread(target=racer, args=(1 + i % 4,)) for i in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert outcomes.count(grpc.StatusCode.OK) == 1, outcomes
        assert set(outcomes) <= {grpc.StatusCode.OK, grpc.StatusCode.FAILED_PRECONDITION}
        assert version_of(stub, game_id) == start + 1
    view = stub.GetGame(pb.GetGameRequest(game_id=game_id)).view
    assert view.phase == enums.PHASE_PLAY
    assert all(s.HasField("bid_tricks") for s in view.seats)


def test_two_servers_alternate_on_the_same_game(stub, second_stub):
    created = create(stub, "buck_euchre", first_dealer=3)
    game_id, tokens = created.game_id, tokens_of(created)
    rng = random.Random(5)
    stubs = [stub, second_stub]
    from tests.support.players import acting_seat, choose
    versions = []
    for i in range(40):
        seat, view = acting_seat(stubs[i % 2], game_id, tokens)
        if seat is None:
            break
        method, request = request_for(choose(view, rng), game_id, rng, legacy=True)[:2]
        response = send(stubs[(i + 1) % 2], method, request, tokens[seat])
        versions.append(response.view.version)
        assert version_of(stubs[i % 2], game_id) == response.view.version
    assert versions == sorted(versions) and len(set(versions)) == len(versions)


def test_tokens_are_bound_to_their_game_and_seat(stub, dealt):
    game_id, tokens = dealt
    other = create(stub, "spades", first_dealer=0)
    foreign = tokens_of(other)[1]
    bid = pb.BidRequest(game_id=game_id, kind=pb.BID_KIND_TRICKS, tricks=3)
    assert code_of(send, stub, "Bid", bid, foreign) == grpc.StatusCode.UNAUTHENTICATED
    assert code_of(stub.GetGame, pb.GetGameRequest(game_id=game_id), metadata=auth(foreign)) == \
        grpc.StatusCode.UNAUTHENTICATED
    assert code_of(stub.Bid, bid) == grpc.StatusCode.PERMISSION_DENIED  # spectator
    assert code_of(stub.GetGame, pb.GetGameRequest(game_id=game_id), metadata=[("authorization", "Basic x")]) == \
        grpc.StatusCode.UNAUTHENTICATED


def _bad_inputs(game_id: str):
    """(description, method, request, seat or None, expected code, expected reason)."""
    fp = grpc.StatusCode.FAILED_PRECONDITION
    inv = grpc.StatusCode.INVALID_ARGUMENT
    return [
        ("unknown game", "Play", pb.PlayRequest(game_id="0" * 24, card="AS"), 1, grpc.StatusCode.NOT_FOUND, None),
        ("malformed game id", "Play", pb.PlayRequest(game_id="no-such-game", card="AS"), 1, inv, None),
        ("game id with braces", "Play", pb.PlayRequest(game_id="{" + "0" * 22 + "}", card="AS"), 1, inv, None),
        ("empty game id", "Play", pb.PlayRequest(game_id="", card="AS"), 1, inv, None),
        ("oversized game id", "Play", pb.PlayRequest(game_id="g" * 5000, card="AS"), 1, inv, None),
        ("malformed card", "Play", pb.PlayRequest(game_id=game_id, card="ZZ"), 1, inv, None),
        ("empty card", "Play", pb.PlayRequest(game_id=game_id, card=""), 1, inv, None),
        ("oversized card", "Play", pb.PlayRequest(game_id=game_id, card="A" * 10000), 1, inv, None),
        ("oversized request id", "Bid", pb.BidRequest(game_id=game_id, kind=pb.BID_KIND_TRICKS, tricks=2,
                                                      request_id="r" * 1000), 1, inv, None),
        ("bid kind missing", "Bid", pb.BidRequest(game_id=game_id), 1, inv, None),
        ("bid out of range", "Bid", pb.BidRequest(game_id=game_id, kind=pb.BID_KIND_TRICKS, tricks=14), 1, fp,
         "INVALID_BID"),
        ("negative bid", "Bid", pb.BidRequest(game_id=game_id, kind=pb.BID_KIND_TRICKS, tricks=-1), 1, fp,
         "INVALID_BID"),
        ("huge bid", "Bid", pb.BidRequest(game_id=game_id, kind=pb.BID_KIND_TRICKS, tricks=2**31 - 1), 1, fp,
         "INVALID_BID"),
        ("negative bid by Act", "Act", pb.ActRequest(game_id=game_id, action="bid -1"), 1, fp, "INVALID_BID"),
        ("bid 14 by Act", "Act", pb.ActRequest(game_id=game_id, action="bid 14"), 1, fp, "INVALID_BID"),
        ("out of turn", "Bid", pb.BidRequest(game_id=game_id, kind=pb.BID_KIND_TRICKS, tricks=2), 2, fp,
         "NOT_YOUR_TURN"),
        ("wrong phase play", "Play", pb.PlayRequest(game_id=game_id, card="2C"), 1, fp, "WRONG_PHASE"),
        ("wrong phase deal", "Deal", pb.DealRequest(game_id=game_id), 0, fp, "WRONG_PHASE"),
        ("euchre call in spades", "Bid", pb.BidRequest(game_id=game_id, kind=pb.BID_KIND_ORDER_UP), 1, fp,
         "WRONG_PHASE"),
        ("duplicate exchange cards", "Exchange", pb.ExchangeRequest(game_id=game_id, cards=["2C", "2C", "3C"]), 1,
         fp, "WRONG_PHASE"),
        ("malformed exchange card", "Exchange", pb.ExchangeRequest(game_id=game_id, cards=["2C", "11X"]), 1, inv,
         None),
        ("draw in four-player spades", "Draw", pb.DrawRequest(game_id=game_id, choice=pb.DRAW_CHOICE_KEEP), 1, fp,
         "WRONG_PHASE"),
        ("draw choice missing", "Draw", pb.DrawRequest(game_id=game_id), 1, inv, None),
        ("name suit missing", "Bid", pb.BidRequest(game_id=game_id, kind=pb.BID_KIND_NAME_SUIT), 1, inv, None),
    ]


def test_bad_input_table_gives_the_right_status_and_changes_nothing(stub, dealt):
    game_id, tokens = dealt
    for description, method, request, seat, code, reason in _bad_inputs(game_id):
        version = version_of(stub, game_id)
        with pytest.raises(grpc.RpcError) as info:
            getattr(stub, method)(request, metadata=auth(tokens.get(seat)))
        assert info.value.code() == code, description
        assert info.value.details(), description
        if reason:
            assert reason_of(info.value) == reason, description
        assert version_of(stub, game_id) == version, description


def test_illegal_plays_carry_reason_codes(stub, dealt):
    game_id, tokens = dealt
    for seat in (1, 2, 3, 0):
        send(stub, "Bid", pb.BidRequest(game_id=game_id, kind=pb.BID_KIND_TRICKS, tricks=3), tokens[seat])
    hand = stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=auth(tokens[1])).view.hand
    version = version_of(stub, game_id)
    spade = next(c for c in hand if c.endswith("S"))
    not_held = next(c for c in SPADES_DECK if c not in hand)
    for card, reason in ((spade, "SPADES_NOT_BROKEN"), (not_held, "CARD_NOT_IN_HAND")):
        with pytest.raises(grpc.RpcError) as info:
            send(stub, "Play", pb.PlayRequest(game_id=game_id, card=card), tokens[1])
        assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert reason_of(info.value) == reason
    lead = next(c for c in hand if c.endswith("C"))
    send(stub, "Play", pb.PlayRequest(game_id=game_id, card=lead), tokens[1])
    hand2 = stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=auth(tokens[2])).view.hand
    off = next(c for c in hand2 if not c.endswith("C"))
    with pytest.raises(grpc.RpcError) as info:
        send(stub, "Play", pb.PlayRequest(game_id=game_id, card=off), tokens[2])
    assert reason_of(info.value) == "MUST_FOLLOW_SUIT"
    assert version_of(stub, game_id) == version + 1


def test_create_game_validation(stub):
    inv = grpc.StatusCode.INVALID_ARGUMENT
    seats4 = [pb.SeatConfig(name=f"P{i}") for i in range(4)]
    cases = [
        pb.CreateGameRequest(seats=seats4),
        pb.CreateGameRequest(variant=enums.VARIANT_SPADES, seats=seats4[:3]),
        pb.CreateGameRequest(variant=enums.VARIANT_SPADES, seats=seats4, first_dealer=4),
        pb.CreateGameRequest(variant=enums.VARIANT_SPADES, seats=[pb.SeatConfig(name="x" * 65)] * 4),
        pb.CreateGameRequest(variant=enums.VARIANT_SPADES, seats=[pb.SeatConfig(kind=enums.PLAYER_KIND_BOT_BASIC)] * 4),
        pb.CreateGameRequest(variant=enums.VARIANT_SPADES, seats=seats4, decks=[pb.Deck(cards=["AS"] * 52)]),
        pb.CreateGameRequest(variant=enums.VARIANT_BUCK_EUCHRE, seats=seats4, decks=[pb.Deck(cards=SPADES_DECK)]),
    ]
    for request in cases:
        assert code_of(stub.CreateGame, request) == inv, request


# A truncated tag, invalid UTF-8 in field 1, a field longer than the body, invalid UTF-8 in field 2.
UNDECODABLE = [b"\xff\xff\xff", b"\x0a\x05\xff\xfe\xfd\xfc\xfb", b"\x0a\x10abc", b"\x12\x03\xc3\x28\x41"]


def test_undecodable_bodies_answer_invalid_argument_on_every_method_without_a_traceback(server):
    from service.rpc.handlers import SERVICE

    with grpc.insecure_channel(server.address) as channel:
        for method in SERVICE.methods:
            path = f"/{SERVICE.full_name}/{method.name}"
            call = (channel.unary_stream if method.server_streaming else channel.unary_unary)(path)
            for body in UNDECODABLE:
                first, second = (method.input_type.fields_by_number.get(n) for n in (1, 2))
                if body == UNDECODABLE[3] and (second is None or second.type != second.TYPE_STRING):
                    continue  # field 2 is no string here: the body is a valid message with an unknown field
                if body in UNDECODABLE[1:3] and first is None:
                    continue  # no field 1 (GetCatalogRequest has none): a valid message with an unknown field
                with pytest.raises(grpc.RpcError) as info:
                    reply = call(body, timeout=5)
                    if method.server_streaming:
                        list(reply)
                assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT, (method.name, body)
                if body == UNDECODABLE[0]:   # a truncated tag: no message type decodes it
                    assert f"not a valid {method.input_type.full_name} message" in info.value.details()
    assert "Traceback" not in server.log_text() and "DecodeError" not in server.log_text()


@pytest.mark.parametrize("variant", [game.name for game in BUILTIN])
def test_the_six_older_move_rpcs_answer_exactly_what_act_answers(stub, variant):
    """Deal, Draw, RevealHand, Bid, Exchange and Play (deprecated) are Act by another door: twin
    games from one seed, each move sent through the older RPC to one and through Act to the
    other, give the same views, and a refused move the same status and reason."""
    rng = random.Random(7)
    twins = [create(stub, variant, first_dealer=0, shuffle_seed=7) for _ in range(2)]
    legacy_id, act_id = (twin.game_id for twin in twins)
    tokens = [tokens_of(twin) for twin in twins]
    used = set()
    for _ in range(60):
        seat, view = acting_seat(stub, legacy_id, tokens[0])
        if seat is None:
            break
        action = choose(view, rng)
        method, legacy, notation = request_for(action, legacy_id, rng, legacy=True)
        used.add(method)
        old = send(stub, method, legacy, tokens[0][seat]).view
        new = send(stub, "Act", pb.ActRequest(game_id=act_id, action=notation), tokens[1][seat]).view
        old.game_id = new.game_id
        assert old == new, (method, notation)
    assert {"Deal", "Play"} <= used and len(used) >= 3, used
    for kind, fields in (("Play", {"card": "2C"}), ("Bid", {"kind": pb.BID_KIND_TRICKS, "tricks": 99})):
        refused = []
        for game_id, token, door in ((legacy_id, tokens[0], kind), (act_id, tokens[1], "Act")):
            request = (getattr(pb, f"{kind}Request")(game_id=game_id, **fields) if door == kind else
                       pb.ActRequest(game_id=game_id, action="play 2C" if kind == "Play" else "bid 99"))
            with pytest.raises(grpc.RpcError) as error:
                send(stub, door, request, token[min(token)])
            refused.append((error.value.code(), reason_of(error.value)))
        assert refused[0] == refused[1], (kind, refused)
