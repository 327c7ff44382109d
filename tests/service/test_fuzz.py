"""Fuzzing every RPC through a real channel: 20,000+ hostile messages, not one INTERNAL or UNKNOWN.

Messages are of three kinds, mixed: random bytes; real requests with bytes flipped, cut or
spliced; and well-formed requests built from each method's descriptor with random values
(extreme integers, unknown enum numbers, odd strings, huge repeated fields), half of them naming
real games and carrying real or forged credentials, so they reach deep into the servicer. The
server must answer each with a status that describes the caller's mistake, write no traceback,
and still play a game correctly afterwards. Seeded, so a failure can be replayed.
"""

from __future__ import annotations

import asyncio
import collections
import random

import grpc
from google.protobuf import descriptor, message_factory
from players import auth, create, play_to_end, tokens_of

from cardgame.v1 import game_service_pb2 as pb
from service.handlers import SERVICE

MESSAGES = 21_000
CONCURRENCY = 64
SEED = 20261201
BAD_CODES = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}
INTS = (0, 1, -1, 2, 3, 13, 52, 2**31 - 1, -(2**31), 2**32 - 1, 2**63 - 1, -(2**63), 2**64 - 1, 10**9)
STRINGS = ("", " ", "deal", "play AS", "bid 3", "exchange 2C 3D 4H", "nil", "\x00", "é" * 300, "x" * 5000,
           "0" * 24, "f" * 24, "../../etc", "{}", "{tag}", "%s%n", "\u202e", "AS AS AS", "bid -1", "bid 99")


def _value(field: descriptor.FieldDescriptor, rng: random.Random, real: dict, depth: int):
    kind = field.type
    if kind == field.TYPE_MESSAGE:
        return _message(message_factory.GetMessageClass(field.message_type), rng, real, depth + 1)
    if kind == field.TYPE_ENUM:
        return rng.choice([v.number for v in field.enum_type.values] + [rng.randrange(-5, 1000)])
    if kind == field.TYPE_BOOL:
        return rng.random() < 0.5
    if kind in (field.TYPE_STRING, field.TYPE_BYTES):
        if field.name == "game_id" and real["games"] and rng.random() < 0.7:
            text = rng.choice(real["games"])
        elif field.name in ("card", "cards") and rng.random() < 0.7:
            text = rng.choice(["AS", "2C", "TH", "JD", "QS", "KC", "9H", "XX", "1S", "as"])
        else:
            text = rng.choice(STRINGS) if rng.random() < 0.7 else "".join(
                chr(rng.randrange(0x20, 0x3000)) for _ in range(rng.randrange(40)))
        return text.encode() if kind == field.TYPE_BYTES else text
    if kind in (field.TYPE_FLOAT, field.TYPE_DOUBLE):
        return rng.choice([0.0, -1.0, 1e308, float("inf"), float("nan")])
    value = rng.choice(INTS) if rng.random() < 0.6 else rng.randrange(-100, 100)
    unsigned = kind in (field.TYPE_UINT32, field.TYPE_UINT64, field.TYPE_FIXED32, field.TYPE_FIXED64)
    bits = 64 if kind in (field.TYPE_INT64, field.TYPE_UINT64, field.TYPE_SINT64, field.TYPE_FIXED64,
                          field.TYPE_SFIXED64) else 32
    low, high = (0, 2**bits - 1) if unsigned else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    return min(max(value, low), high)


def _message(cls, rng: random.Random, real: dict, depth: int = 0):
    message = cls()
    if depth > 3:
        return message
    for field in cls.DESCRIPTOR.fields:
        if rng.random() < 0.35:
            continue
        if field.message_type is not None and field.message_type.GetOptions().map_entry:
            continue
        if field.is_repeated:
            count = rng.choice([0, 1, 2, 5, 60, 300]) if depth == 0 else rng.randrange(3)
            values = [_value(field, rng, real, depth) for _ in range(count)]
            target = getattr(message, field.name)
            for value in values:
                if field.type == field.TYPE_MESSAGE:
                    target.add().CopyFrom(value)
                else:
                    target.append(value)
        elif field.type == field.TYPE_MESSAGE:
            getattr(message, field.name).CopyFrom(_value(field, rng, real, depth))
        else:
            setattr(message, field.name, _value(field, rng, real, depth))
    return message


def _mutated(data: bytes, rng: random.Random) -> bytes:
    data = bytearray(data or b"\x0a\x00")
    for _ in range(rng.randrange(1, 6)):
        choice = rng.randrange(4)
        if choice == 0:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        elif choice == 1:
            del data[rng.randrange(len(data)):]
        elif choice == 2:
            data[rng.randrange(len(data) + 1):0] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 9)))
        else:
            data += bytes([rng.choice([0x0a, 0x12, 0x22, 0x08, 0xff]), 0xff, 0xff, 0xff, 0x0f])
        if not data:
            data = bytearray(b"\xff")
    return bytes(data)


def _metadata(rng: random.Random, real: dict) -> list[tuple[str, str]]:
    pick = rng.randrange(6)
    if pick == 0 and real["tokens"]:
        return auth(rng.choice(real["tokens"]))
    if pick == 1:
        return [("authorization", rng.choice(["Bearer", "Bearer  ", "Basic abc", "bearer " + "A" * 600,
                                              "Bearer !@#$%^&*()~", "Bearer x"]))]
    if pick == 2:
        return [("x-api-key", rng.choice(["", "k.", "a" * 300, "key.secret"]))]
    return []


def _cases(rng: random.Random, real: dict, count: int):
    methods = list(SERVICE.methods)
    for _ in range(count):
        method = rng.choice(methods)
        cls = message_factory.GetMessageClass(method.input_type)
        style = rng.randrange(10)
        if style == 0:
            body = bytes(rng.randrange(256) for _ in range(rng.randrange(64)))
        elif style <= 3:
            body = _mutated(_message(cls, rng, real).SerializeToString(), rng)
        else:
            body = _message(cls, rng, real).SerializeToString()
        yield method, body, _metadata(rng, real)


READS = {"CreateGame", "GetGame", "GetScore", "WatchGame"}


async def _fire(address: str, cases, codes: collections.Counter, bad: list, moved: dict) -> None:
    """Send every case; count statuses, keep INTERNAL/UNKNOWN answers in ``bad`` and the versions
    that accepted moves answered with in ``moved`` (game id -> versions)."""
    async with grpc.aio.insecure_channel(address, options=[("grpc.max_send_message_length", 8 << 20)]) as channel:
        calls = {}
        for method in SERVICE.methods:
            path = f"/{SERVICE.full_name}/{method.name}"
            make = channel.unary_stream if method.server_streaming else channel.unary_unary
            calls[method.name] = make(path, request_serializer=None, response_deserializer=None)
        queue: asyncio.Queue = asyncio.Queue()
        for case in cases:
            queue.put_nowait(case)

        async def worker() -> None:
            while not queue.empty():
                method, body, metadata = queue.get_nowait()
                try:
                    if method.server_streaming:
                        async for _ in calls[method.name](body, metadata=metadata, timeout=0.3):
                            pass
                    else:
                        answer = await calls[method.name](body, metadata=metadata, timeout=10)
                        if method.name == "DeleteGame":
                            moved["deleted"].add(pb.DeleteGameRequest.FromString(body).game_id)
                        if method.name not in READS and "view" in method.output_type.fields_by_name:
                            view = message_factory.GetMessageClass(method.output_type).FromString(answer).view
                            moved[view.game_id].add(view.version)
                    codes[grpc.StatusCode.OK] += 1
                except grpc.aio.AioRpcError as exc:
                    codes[exc.code()] += 1
                    if exc.code() in BAD_CODES and len(bad) < 20:
                        bad.append((method.name, body[:80], metadata, exc.code(), exc.details()))

        await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))


def test_hostile_messages_to_every_rpc_never_answer_internal_or_unknown(server, stub):
    real: dict = {"games": [], "tokens": []}
    for variant in ("spades", "spades2", "buck_euchre", "spades"):
        created = create(stub, variant, first_dealer=0)
        real["games"].append(created.game_id)
        real["tokens"] += list(tokens_of(created).values())
    rng = random.Random(SEED)
    codes: collections.Counter = collections.Counter()
    bad: list = []
    moved: dict = collections.defaultdict(set)
    asyncio.run(_fire(server.address, list(_cases(rng, real, MESSAGES)), codes, bad, moved))
    assert sum(codes.values()) == MESSAGES
    assert not bad, bad
    # No rejected request changed a game: each game moved on by exactly the new versions that
    # accepted moves answered with (a retry answers with a version already counted).
    for game_id in real["games"]:
        if game_id in moved["deleted"]:  # an open server lets any caller delete a game
            continue
        version = stub.GetGame(pb.GetGameRequest(game_id=game_id)).view.version
        assert version - 1 == len({v for v in moved[game_id] if v > 1}), game_id
    assert codes[grpc.StatusCode.INVALID_ARGUMENT] > MESSAGES // 4, codes  # most are refused as malformed …
    assert codes[grpc.StatusCode.OK] > 100  # … and some went all the way through
    log = server.log_text()
    assert "Traceback" not in log, log[log.find("Traceback") - 200:][:3000]
    # The server still plays a whole game correctly after the storm.
    created = create(stub, "buck_euchre", first_dealer=0)
    play_to_end(stub, created.game_id, tokens_of(created), random.Random(SEED))
    assert stub.GetScore(pb.GetScoreRequest(game_id=created.game_id)).HasField("winner_side")
