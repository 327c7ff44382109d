"""Redis memory per game, through a real server: every key of a four-player Spades game.

One human seat against three ``basic`` bots; the human plays a random legal action by Act,
each with its own request id, so every move leaves a retry record. The figures are the sum of
``MEMORY USAGE`` over the game's keys: the largest while hand 1 is played, and after 10 hands
(the target is set out of reach so that 10 hands are played). ``redis_event_stream_bytes_per_hand``
is the ``MEMORY USAGE`` of the owner's event stream over its entries then: each finished hand
published one ``hand_end`` event (with its score record) there.
"""

from __future__ import annotations

import random
import uuid

import grpc
import redis

from bench.redis_target import redis_target
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from cardgame.v1 import options_pb2
from testkit.launcher import ServerProcess

HANDS = 10


def game_bytes(client: redis.Redis, prefix: str, game_id: str) -> int:
    """The memory of every key of one game, in bytes."""
    keys = list(client.scan_iter(match=f"{prefix}:{{{game_id}}}:*", count=100))
    return sum(client.memory_usage(key, samples=0) or 0 for key in keys)


def choose(view, rng: random.Random) -> str:
    """A random legal action's Act notation (low bids, no Double Nil, so the game stays ordinary)."""
    actions = [a for a in view.legal_actions if a.kind not in (enums.ACTION_KIND_DOUBLE_NIL, enums.ACTION_KIND_REVEAL)]
    bids = [a for a in actions if a.kind == enums.ACTION_KIND_BID and 1 <= a.tricks <= 4]
    action = rng.choice(bids or actions)
    if action.kind == enums.ACTION_KIND_EXCHANGE:
        return "exchange " + " ".join(rng.sample(list(action.cards), action.min_cards))
    return action.notation


def measure(address: str, client: redis.Redis, prefix: str) -> dict[str, int]:
    """Play one game to the end of hand ``HANDS``; the largest size in hand 1 and the size then."""
    rng = random.Random(11)
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.GameServiceStub(channel)
        bot = pb.SeatConfig(kind=enums.PLAYER_KIND_BOT_BASIC)
        created = stub.CreateGame(pb.CreateGameRequest(
            variant=enums.VARIANT_SPADES, seats=[pb.SeatConfig(name="Human"), bot, bot, bot], first_dealer=0,
            options=options_pb2.RuleOptions(spades=options_pb2.SpadesOptions(target_score=5000)),
            request_id=uuid.uuid4().hex))
        game_id = created.game_id
        meta = [("authorization", f"Bearer {created.seat_tokens[0].token}")]
        view = stub.GetGame(pb.GetGameRequest(game_id=game_id), metadata=meta).view
        largest_hand1 = game_bytes(client, prefix, game_id)
        while view.hand_number <= HANDS:
            if view.hand_number == HANDS and view.phase == enums.PHASE_DEAL:
                break
            request = pb.ActRequest(game_id=game_id, action=choose(view, rng), request_id=uuid.uuid4().hex)
            view = stub.Act(request, metadata=meta).view
            if view.hand_number <= 1 and view.phase != enums.PHASE_DEAL or view.hand_number == 0:
                largest_hand1 = max(largest_hand1, game_bytes(client, prefix, game_id))
        stream = f"{prefix}:events:{{_open}}"   # the owner's event stream (an open server's owner)
        hands = client.xlen(stream)              # one hand_end event per finished hand, nothing else yet
        return {"redis_bytes_per_game_hand1": largest_hand1,
                f"redis_bytes_per_game_{HANDS}_hands": game_bytes(client, prefix, game_id),
                "redis_event_stream_bytes_per_hand": (client.memory_usage(stream, samples=0) or 0) // max(hands, 1)}


def main() -> None:
    """Start a server on Redis (``bench.redis_target``), measure, print, clean up."""
    with redis_target() as (redis_url, prefix):
        client = redis.Redis.from_url(redis_url)
        try:
            with ServerProcess(redis_url=redis_url, prefix=prefix) as server:
                figures = measure(server.address, client, prefix)
        finally:
            client.close()
    for name, value in figures.items():
        print(f"{name} {value}", flush=True)


if __name__ == "__main__":
    main()
