"""WatchGame across instances, provably fair deals, and what each seat may see."""

from __future__ import annotations

import hashlib
import random
import re
import threading
import time

import grpc
import pytest

import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from engine.games import BUILTIN
from tests.support.players import acting_seat, auth, choose, request_for, send, tokens_of

GAMES = [game.name for game in BUILTIN]
"""The games the test server plays: the built-in ones."""


def create(stub, variant: str, **fields) -> pb.CreateGameResponse:
    """Create a game of the registered game ``variant`` by its name, every seat human."""
    seats = [pb.SeatConfig(name=f"P{i}") for i in range(engine.game_of(variant).seats)]
    return stub.CreateGame(pb.CreateGameRequest(variant_name=variant, seats=seats, **fields))


def test_watcher_on_one_instance_sees_moves_made_on_another(stub, second_server):
    created = create(stub, "buck_euchre", first_dealer=0)
    game_id, tokens = created.game_id, tokens_of(created)
    seen = []
    done = threading.Event()

    def watch() -> None:
        with grpc.insecure_channel(second_server.address) as channel:
            watcher = pb_grpc.GameServiceStub(channel)
            for message in watcher.WatchGame(pb.WatchGameRequest(game_id=game_id), metadata=auth(tokens[2]),
                                             timeout=60):
                seen.append(message.view)
                if len(seen) >= 4:
                    break
        done.set()

    thread = threading.Thread(target=watch)
    thread.start()
    rng = random.Random(1)
    made = []
    while not done.is_set() and len(made) < 10:
        seat, view = acting_seat(stub, game_id, tokens)
        method, request = request_for(choose(view, rng), game_id, rng, legacy=False)[:2]
        made.append(send(stub, method, request, tokens[seat]).view.version)
        done.wait(0.2)
    thread.join(30)
    versions = [v.version for v in seen]
    assert versions == sorted(set(versions)) and len(versions) == 4
    assert all(v.viewer_seat == 2 for v in seen)
    assert set(versions[1:]) <= set(range(1, max(made) + 1))


def test_watch_resumes_from_a_version_with_every_change(stub):
    created = create(stub, "spades2", first_dealer=0)
    game_id, tokens = created.game_id, tokens_of(created)
    rng = random.Random(2)
    for _ in range(6):
        seat, view = acting_seat(stub, game_id, tokens)
        method, request = request_for(choose(view, rng), game_id, rng, legacy=False)[:2]
        send(stub, method, request, tokens[seat])
    current = stub.GetGame(pb.GetGameRequest(game_id=game_id)).view.version
    stream = stub.WatchGame(pb.WatchGameRequest(game_id=game_id, from_version=2), metadata=auth(tokens[0]),
                            timeout=10)
    replayed = [next(stream).view for _ in range(current - 2)]
    stream.cancel()
    assert [v.version for v in replayed] == list(range(3, current + 1))
    assert all(v.viewer_seat == 0 for v in replayed)
    assert replayed[-1] == stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=auth(tokens[0])).view


def test_deal_commitment_is_revealed_and_checks_out(stub):
    created = create(stub, "spades", first_dealer=0)
    game_id, tokens = created.game_id, tokens_of(created)
    dealt = send(stub, "Deal", pb.DealRequest(game_id=game_id), tokens[0]).view
    commitment = dealt.deck_commitment
    assert len(commitment) == 64
    hands = {}
    for seat, token in tokens.items():
        view = send(stub, "RevealHand", pb.RevealHandRequest(game_id=game_id), token).view
        assert view.deck_commitment == commitment
        hands[seat] = set(view.hand)
    rng = random.Random(3)
    while not stub.GetScore(pb.GetScoreRequest(game_id=game_id)).hands:
        seat, view = acting_seat(stub, game_id, tokens)
        method, request = request_for(choose(view, rng), game_id, rng, legacy=False)[:2]
        send(stub, method, request, tokens[seat])
    record = stub.GetScore(pb.GetScoreRequest(game_id=game_id)).hands[0]
    assert record.commitment == commitment
    assert hashlib.sha256(f"{record.salt}:{record.deck}".encode()).hexdigest() == commitment
    deck = record.deck.split()
    for seat in range(4):  # dealt one at a time clockwise from the dealer's left (seat 1)
        assert {deck[i] for i in range(52) if (1 + i) % 4 == seat} == hands[seat]


_CARD = re.compile(r"(10|[2-9JQKA])[CDHS]")


def _cards_in(message) -> set[str]:
    """Every card string anywhere in a message, nested messages and notations included."""
    cards: set[str] = set()
    for field, value in message.ListFields():
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            values = [f"{key} {item}" for key, item in value.items()]   # a map: its keys and values as text
            field = field.message_type.fields_by_name["key"]
        else:
            values = value if field.is_repeated else [value]
        for item in values:
            if field.type == field.TYPE_MESSAGE:
                cards |= _cards_in(item)
            elif field.type == field.TYPE_STRING:
                cards |= {word for word in item.split() if _CARD.fullmatch(word)}
    return cards


@pytest.mark.parametrize("variant", GAMES)
def test_no_response_shows_a_seat_another_seats_cards(stub, server, variant):
    created = create(stub, variant, first_dealer=0)
    game_id, tokens = created.game_id, tokens_of(created)
    rng = random.Random(variant)
    held: dict[int, set[str]] = {s: set() for s in tokens}   # every card a seat has held: it knows where those went

    def check(seat, view) -> None:
        hands = {s: set(stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=auth(t)).view.hand)
                 for s, t in tokens.items()}
        for s, hand in hands.items():
            held[s] |= hand
        spectator = stub.GetGame(pb.GetGameRequest(game_id=game_id)).view
        played = {card for info in spectator.seats for card in info.played_cards}
        assert not played & set().union(*hands.values())   # a card shown as played is held by nobody
        public = played | {p.card for p in spectator.current_trick.plays} | {p.card for p in spectator.last_trick.plays}
        if spectator.buck_euchre.turn_up:
            public.add(spectator.buck_euchre.turn_up)
        assert not spectator.hand and not spectator.spades_two_player.offered_card
        assert not spectator.spades_two_player.seen_discards
        assert not (_cards_in(spectator) - public)
        for s, token in tokens.items():
            mine = stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=auth(token)).view
            others = set().union(*(h for o, h in hands.items() if o != s)) - public - held[s]
            assert not (_cards_in(mine) & others), (variant, s)
        others = set().union(*(h for o, h in hands.items() if o != seat)) - public - held[seat]
        assert not (_cards_in(view) & others), (variant, seat)

    for _ in range(45):
        seat, view = acting_seat(stub, game_id, tokens)
        if seat is None:
            break
        method, request = request_for(choose(view, rng), game_id, rng, legacy=False)[:2]
        check(seat, send(stub, method, request, tokens[seat]).view)


def test_watch_from_a_future_version_is_invalid(stub):
    created = create(stub, "spades", first_dealer=0)
    stream = stub.WatchGame(pb.WatchGameRequest(game_id=created.game_id, from_version=99), timeout=10)
    try:
        next(stream)
    except grpc.RpcError as exc:
        assert exc.code() == grpc.StatusCode.INVALID_ARGUMENT
    else:
        raise AssertionError("a watch from a future version must be refused")


def test_watch_streams_per_connection_are_bounded(redis_url, module_prefix):
    from testkit.launcher import ServerProcess

    with ServerProcess("--max-watches-per-connection", "2", redis_url=redis_url,
                       prefix=f"{module_prefix}-watches") as proc:
        with grpc.insecure_channel(proc.address) as channel, grpc.insecure_channel(
                proc.address, options=[("grpc.use_local_subchannel_pool", 1)]) as other:
            stub, other_stub = pb_grpc.GameServiceStub(channel), pb_grpc.GameServiceStub(other)
            game_id = create(stub, "spades", first_dealer=0).game_id
            request = pb.WatchGameRequest(game_id=game_id)
            held = [stub.WatchGame(request, timeout=10) for _ in range(2)]
            for stream in held:
                next(stream)
            third = stub.WatchGame(request, timeout=10)
            with pytest.raises(grpc.RpcError) as info:
                next(third)
            assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            elsewhere = other_stub.WatchGame(request, timeout=10)   # another connection has its own limit
            assert next(elsewhere).view.game_id == game_id
            elsewhere.cancel()
            held[0].cancel()
            deadline = time.monotonic() + 5
            while True:                                              # the freed slot can be taken again
                again = stub.WatchGame(request, timeout=10)
                try:
                    assert next(again).view.game_id == game_id
                    break
                except grpc.RpcError as exc:
                    assert exc.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and time.monotonic() < deadline
                    time.sleep(0.05)
            again.cancel()
            held[1].cancel()


def _subscriptions_of(client, pid: int) -> list[int]:
    """The ids of the Redis client connections of process ``pid`` that are subscribed to channels."""
    import psutil

    ports = {c.laddr.port for c in psutil.Process(pid).net_connections(kind="tcp") if c.raddr}
    return [int(c["id"]) for c in client.client_list()
            if int(c["addr"].rsplit(":", 1)[1]) in ports and (int(c["sub"]) or int(c.get("ssub", 0)))]


def test_a_watched_game_that_disappears_ends_the_stream_with_not_found(stub, server, redis_url, module_prefix):
    """Deleted, its streams end at once (the delete tells its watchers); gone from a Redis that lost
    it (a failover without the data), once the server's subscriptions are back and read it again;
    expired, at the feed's check (WATCH_CHECK_S, not waited for here)."""
    import redis

    client = redis.Redis.from_url(redis_url, decode_responses=True)
    game_id = create(stub, "spades", first_dealer=0).game_id
    stream = stub.WatchGame(pb.WatchGameRequest(game_id=game_id), timeout=10)
    assert next(stream).view.game_id == game_id
    client.delete(*client.keys(f"{module_prefix}:{{{game_id}}}:*"))   # lost, and nothing told
    connections = _subscriptions_of(client, server.proc.pid)
    assert connections, "the server holds no subscription"
    gone = time.monotonic()
    for connection in connections:
        client.client_kill_filter(_id=connection)   # as a failover drops them
    with pytest.raises(grpc.RpcError) as info:
        next(stream)
    assert info.value.code() == grpc.StatusCode.NOT_FOUND and time.monotonic() - gone < 2.5
    client.close()


_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
_SUIT_OF = {"C": enums.SUIT_CLUBS, "D": enums.SUIT_DIAMONDS, "H": enums.SUIT_HEARTS, "S": enums.SUIT_SPADES}
_LEFT_BOWER = {enums.SUIT_CLUBS: "JS", enums.SUIT_SPADES: "JC", enums.SUIT_DIAMONDS: "JH", enums.SUIT_HEARTS: "JD"}


def _in_hand_order(cards) -> list[str]:
    """Cards as views sort them: by suit (C, D, H, S), then rank."""
    return sorted(cards, key=lambda c: ("CDHS".index(c[-1]), _RANKS.index(c[:-1])))


def _suit(card: str, view) -> int:
    """The suit a card belongs to in play (Buck Euchre: the left bower is trump)."""
    trump = view.buck_euchre.trump if view.WhichOneof("rules") == "buck_euchre" else enums.SUIT_UNSPECIFIED
    return trump if trump and card == _LEFT_BOWER[trump] else _SUIT_OF[card[-1]]


@pytest.mark.parametrize("variant", GAMES)
def test_every_view_shows_each_seats_played_cards_and_shown_voids(stub, variant):
    """Played cards and voids, as every seat and a spectator see them, against the plays sent."""
    created = create(stub, variant, first_dealer=0, shuffle_seed=21)
    game_id, tokens = created.game_id, tokens_of(created)
    rng = random.Random(f"played-{variant}")
    played: dict[int, dict[int, list[str]]] = {}    # hand -> seat -> cards sent to tricks
    voids: dict[int, dict[int, set[int]]] = {}      # hand -> seat -> suits shown out of
    voids_seen = 0
    for _ in range(600):   # until two hands with plays are over (a Buck Euchre hand may have none)
        seat, view = acting_seat(stub, game_id, tokens)
        if seat is None or len([h for h in played if h < view.hand_number]) >= 2:
            break
        action = choose(view, rng)
        if action.kind == enums.ACTION_KIND_PLAY:
            card, plays = action.card, view.current_trick.plays
            played.setdefault(view.hand_number, {}).setdefault(seat, []).append(card)
            shown = voids.setdefault(view.hand_number, {}).setdefault(seat, set())
            if plays and _suit(card, view) != _suit(plays[0].card, view):
                shown.add(_suit(plays[0].card, view))
            if not plays and view.WhichOneof("rules") in ("spades", "spades_two_player") and card.endswith("S") \
                    and not (view.spades.spades_broken or view.spades_two_player.spades_broken):
                shown |= {enums.SUIT_CLUBS, enums.SUIT_DIAMONDS, enums.SUIT_HEARTS}   # only spades in hand
        method, request = request_for(action, game_id, rng, legacy=False)[:2]
        send(stub, method, request, tokens[seat])
        views = [stub.GetGame(pb.GetGameRequest(game_id=game_id)).view] + [
            stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=auth(t)).view for t in tokens.values()]
        for seen in views:
            for info in seen.seats:
                expected = played.get(seen.hand_number, {}).get(info.seat, [])
                assert list(info.played_cards) == _in_hand_order(expected), (seen.version, seen.viewer_seat, info.seat)
                shown_out = sorted(voids.get(seen.hand_number, {}).get(info.seat, set()))
                assert list(info.void_suits) == shown_out, (seen.version, seen.viewer_seat, info.seat)
                assert not set(info.played_cards) & set(seen.hand)   # played cards have left the hand
        voids_seen += sum(len(info.void_suits) for info in views[0].seats)
    assert len(played) >= 2 and voids_seen, (sorted(played), voids_seen)


def test_only_the_dealer_sees_its_buck_euchre_discard(stub):
    created = create(stub, "buck_euchre", first_dealer=0, shuffle_seed=5)
    game_id, tokens = created.game_id, tokens_of(created)

    def views() -> dict[int | None, object]:
        out: dict[int | None, object] = {None: stub.GetGame(pb.GetGameRequest(game_id=game_id)).view}
        for s, t in tokens.items():
            out[s] = stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=auth(t)).view
        return out

    def act(seat: int, notation: str):
        return send(stub, "Act", pb.ActRequest(game_id=game_id, action=notation), tokens[seat]).view

    rng = random.Random(6)
    discarded = []
    for hand in (1, 2):
        dealer = hand - 1
        dealt = act(dealer, "deal")
        if dealt.phase == enums.PHASE_ORDER_UP:                      # unless a club turn-up went to the dealer
            act((dealer + 1) % 4, "order-up")
        before = views()
        assert before[dealer].phase == enums.PHASE_DEALER_DISCARD
        assert all(v.buck_euchre.dealer_discard == "" for v in before.values())
        choice = next(a for a in before[dealer].legal_actions if a.kind == enums.ACTION_KIND_EXCHANGE)
        discard = rng.choice([c for c in choice.cards if c != dealt.buck_euchre.turn_up])   # the turn-up is public
        answer = act(dealer, f"exchange {discard}")
        assert answer.buck_euchre.dealer_discard == discard and discard not in answer.hand
        discarded.append(discard)
        while True:                                                  # the rest of the hand
            now = views()
            over = now[None].phase in (enums.PHASE_DEAL, enums.PHASE_GAME_OVER)
            assert now[dealer].buck_euchre.dealer_discard == ("" if over else discard)
            for viewer, view in now.items():
                if viewer != dealer:
                    assert view.buck_euchre.dealer_discard == "", (viewer, view.phase)
                    assert discard not in _cards_in(view), (viewer, view.phase)   # nowhere in the view
            if over:
                break
            seat, view = acting_seat(stub, game_id, tokens)
            method, request = request_for(choose(view, rng), game_id, rng, legacy=False)[:2]
            send(stub, method, request, tokens[seat])
        if now[None].phase == enums.PHASE_GAME_OVER:
            break
    assert discarded and len(stub.GetScore(pb.GetScoreRequest(game_id=game_id)).hands) == len(discarded)
