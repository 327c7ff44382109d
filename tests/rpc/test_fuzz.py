"""Fuzzing every RPC through a real channel: 20,000+ hostile messages, not one INTERNAL or UNKNOWN.

Messages are of three kinds, mixed: random bytes; real requests with bytes flipped, cut or
spliced; and well-formed requests built from each method's descriptor with random values
(extreme integers, unknown enum numbers, odd strings, huge repeated fields), half of them naming
real games and carrying real or forged credentials, so they reach deep into the servicer. The
server must answer each with a status that describes the caller's mistake, write no traceback,
and still play a game correctly afterwards. Seeded, so a failure can be replayed.

The HTTP port gets hostile headers (random bytes, not UTF-8, in names and values; oversized ones;
odd timeouts and encodings) on its Connect and gRPC-Web paths, and WatchEvents gets hostile event
ids (parts above 2^64 - 1, 20 digits, signs, non-ASCII digits, garbage) through both ports: no
HTTP 5xx, no INTERNAL or UNKNOWN, nothing at ERROR in the log.
"""

from __future__ import annotations

import asyncio
import collections
import json
import random
import re
import struct

import grpc
import pytest
from google.protobuf import descriptor, message_factory

from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from engine.games import BUILTIN
from service.rpc.handlers import SERVICE
from testkit.launcher import ServerProcess
from tests.conftest import SERVER_TEST_FLAGS
from tests.support.players import auth, create, play_to_end, tokens_of

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
    for variant in [game.name for game in BUILTIN] * 2:   # every game the server plays, twice
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
    # grpcio logs (and otherwise ignores) a stream whose caller went away while a message was
    # still being sent, as it finishes the call: GRPC_CALL_ERROR_TOO_MANY_OPERATIONS from its own
    # core (grpc/grpc#32551), not from the service's code; any other traceback fails.
    core = ('"logger": "grpc._cython.cygrpc"', "GRPC_CALL_ERROR_TOO_MANY_OPERATIONS")
    log = "\n".join(line for line in server.log_text().splitlines() if not all(mark in line for mark in core))
    assert "Traceback" not in log, log[log.find("Traceback") - 200:][:3000]
    # The server still plays a whole game correctly after the storm.
    created = create(stub, "buck_euchre", first_dealer=0)
    play_to_end(stub, created.game_id, tokens_of(created), random.Random(SEED))
    assert stub.GetScore(pb.GetScoreRequest(game_id=created.game_id)).HasField("winner_side")


# --- the HTTP port: hostile headers ---

HTTP_CASES = 900
HTTP_CONCURRENCY = 16
HTTP_READ_TIMEOUT_S = 10.0
KNOWN_NAMES = (b"authorization", b"x-api-key", b"content-type", b"connect-protocol-version", b"connect-timeout-ms",
               b"grpc-timeout", b"x-grpc-web", b"content-encoding", b"connect-content-encoding", b"grpc-encoding",
               b"accept-encoding", b"connect-accept-encoding", b"grpc-accept-encoding", b"cookie", b"origin",
               b"user-agent", b"x-user-agent", b"te", b"accept", b"traceparent", b"expect")
ODD_VALUES = (b"Bearer \xff", b"\xfe", b"caf\xe9", b"\xc3\x28", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x80" * 40,
              b"99999999999999999999", b"-1", b"0", b"1n", b"99999999H", b"abc", b"gzip", b"br", b"identity, \xff",
              b"application/json\xff", b"application/grpc-web+\xff", b"1\xff", b"Bearer " + b"A" * 5000, b"",
              b" ", b"100-continue", b"trailers", "é".encode() * 50)
# h11 takes 16 KiB of request head; larger ones are refused with 400 before any application.
OVERSIZED = (8 << 10, 15 << 10, 17 << 10, 70 << 10)
TOKEN_CHARS = b"!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
BAD_ANSWER = re.compile(rb'"code": ?"(internal|unknown)"|grpc-status: ?(2|13)\r\n')
# The two 5xx the Connect protocol itself maps a caller's mistake to: an unsupported
# content-encoding (unimplemented, 501) and a deadline already passed (connect-timeout-ms: 0).
PROTOCOL_5XX = {b"501": b'"code": "unimplemented"', b"504": b'"code": "deadline_exceeded"'}
MAX_HEAD_BYTES = 16 << 10


def _header_name(rng: random.Random) -> bytes:
    pick = rng.randrange(10)
    if pick < 5:
        return rng.choice(KNOWN_NAMES)
    if pick < 8:
        return bytes(rng.choice(TOKEN_CHARS) for _ in range(rng.randrange(1, 30)))
    return bytes(rng.randrange(0x21, 0x100) for _ in range(rng.randrange(1, 12)))  # ':' and 0x80+ included


def _header_value(rng: random.Random) -> bytes:
    pick = rng.randrange(10)
    if pick < 4:
        return rng.choice(ODD_VALUES)
    if pick < 9:  # any byte but the line breaks that would end the header (NUL, DEL and 0x80+ included)
        return bytes(rng.choice([b for b in range(256) if b not in (10, 13)]) for _ in range(rng.randrange(60)))
    return bytes(rng.randrange(0x80, 0x100) if rng.random() < 0.3 else 0x61 for _ in range(rng.choice(OVERSIZED)))


def _http_route(rng: random.Random, game_id: str) -> tuple[str, bytes, list[tuple[bytes, bytes]], bytes]:
    """A well-formed request of one route kind: (kind, path, protocol headers, body)."""
    get = json.dumps({"gameId": game_id}).encode()
    proto = pb.GetGameRequest(game_id=game_id).SerializeToString()
    watch = json.dumps({"gameId": "0" * 24}).encode()
    kind = rng.choice(["connect-json", "connect-proto", "connect-create", "connect-stream", "grpc-web",
                       "grpc-web-stream"])
    version = [(b"connect-protocol-version", b"1")]
    if kind == "connect-json":
        return kind, b"/GetGame", [(b"content-type", b"application/json"), *version], get
    if kind == "connect-proto":
        return kind, b"/GetGame", [(b"content-type", b"application/proto"), *version], proto
    if kind == "connect-create":
        return kind, b"/CreateGame", [(b"content-type", b"application/json"), *version], \
            b'{"variant": "VARIANT_SPADES", "seats": [{"name": "A"}, {"name": "B"}, {"name": "C"}, {"name": "D"}]}'
    if kind == "connect-stream":
        return kind, b"/WatchGame", [(b"content-type", b"application/connect+json"), *version], \
            struct.pack(">BI", 0, len(watch)) + watch
    if kind == "grpc-web-stream":  # no such game: a stream of a real one would run on
        proto = pb.WatchGameRequest(game_id="0" * 24).SerializeToString()
    envelope = struct.pack(">BI", 0, len(proto)) + proto
    method = b"/GetGame" if kind == "grpc-web" else b"/WatchGame"
    return kind, method, [(b"content-type", b"application/grpc-web+proto"), (b"x-grpc-web", b"1")], envelope


def _http_cases(rng: random.Random, game_id: str, count: int):
    for _ in range(count):
        kind, method, headers, body = _http_route(rng, game_id)
        extra = [(_header_name(rng), _header_value(rng)) for _ in range(rng.choice([1, 1, 2, 3, 5]))]
        if rng.random() < 0.05:  # many headers, near and beyond h11's bound on a request head
            extra += [(b"x-many-%d" % i, b"v" * 100) for i in range(rng.choice([100, 150, 200]))]
        lines = [b"POST /" + SERVICE.full_name.encode() + method + b" HTTP/1.1", b"host: fuzz"]
        merged = headers + extra
        rng.shuffle(merged)
        lines += [name + b": " + value for name, value in merged]
        lines += [b"content-length: %d" % len(body), b"connection: close"]
        yield kind, b"\r\n".join(lines) + b"\r\n\r\n" + body


async def _send_http(port: int, cases, statuses: collections.Counter, bad: list) -> None:
    queue: asyncio.Queue = asyncio.Queue()
    for case in cases:
        queue.put_nowait(case)

    async def worker() -> None:
        while not queue.empty():
            kind, request = queue.get_nowait()
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            try:
                writer.write(request)
                await writer.drain()
                answer = await asyncio.wait_for(reader.read(), HTTP_READ_TIMEOUT_S)
            except (ConnectionError, TimeoutError) as exc:
                answer = f"<{type(exc).__name__}>".encode()
            finally:
                writer.close()
            status = answer[9:12] if answer.startswith(b"HTTP/1.1 ") else answer[:24]
            statuses[(kind, status)] += 1
            refused_midway = status == b"<ConnectionResetError>" and len(request) > MAX_HEAD_BYTES  # h11's 400, then
            # a reset for the bytes it did not read
            wrong = (status.startswith(b"5") and PROTOCOL_5XX.get(status, b"\0") not in answer) \
                or BAD_ANSWER.search(answer) or not (status.isdigit() or refused_midway)
            if wrong and len(bad) < 20:
                bad.append((kind, request[:300], answer[:400]))

    await asyncio.gather(*(worker() for _ in range(HTTP_CONCURRENCY)))


def _errors_in_log(server) -> list[str]:
    """Log lines at ERROR or above, with a traceback, or not JSON (a stray print or traceback)."""
    problems = []
    for line in server.log_text().splitlines():
        record = json.loads(line) if line.startswith("{") else {"level": "RAW", "message": line}
        if record["level"] in ("ERROR", "CRITICAL", "RAW") or "exception" in record or "Traceback" in line \
                or "Exception in ASGI application" in record["message"]:
            problems.append(line[:3000])
    return problems


@pytest.fixture(scope="module")
def http_server(redis_url: str, module_prefix: str):
    """A server with its HTTP port on, open (no API keys) so that WatchEvents needs no key."""
    server = ServerProcess(*SERVER_TEST_FLAGS, "--http-port", "0", redis_url=redis_url,
                           prefix=f"{module_prefix}-http", env={"LOG_LEVEL": "INFO"})
    server.start()
    try:
        yield server
    finally:
        server.stop()


def test_hostile_http_headers_never_answer_5xx_internal_or_unknown(http_server):
    with http_server.channel() as channel:
        game_id = create(pb_grpc.GameServiceStub(channel), "spades").game_id
    rng = random.Random(SEED + 1)
    statuses: collections.Counter = collections.Counter()
    bad: list = []
    asyncio.run(_send_http(http_server.http_port, list(_http_cases(rng, game_id, HTTP_CASES)), statuses, bad))
    assert sum(statuses.values()) == HTTP_CASES
    assert not bad, bad
    by_status = collections.Counter(status for (_, status), n in statuses.items() for _ in range(n))
    assert by_status[b"400"] > HTTP_CASES // 10, statuses  # many refused …
    assert by_status[b"200"] > HTTP_CASES // 10, statuses  # … and many answered (gRPC-Web, streams, games)
    problems = _errors_in_log(http_server)
    assert not problems, problems


# --- WatchEvents: hostile event ids ---

MAX_PART = 2**64 - 1
OUT_OF_RANGE_IDS = ("18446744073709551616-0", "1-18446744073709551616", "99999999999999999999-0",
                    "0-99999999999999999999", "18446744073709551616-18446744073709551616")
EVENT_IDS = OUT_OF_RANGE_IDS + (
    "18446744073709551615-18446744073709551615", "00000000000000000001-0", "0-00000000000000000000",
    "000000000000000000001-0", "0-0", "1-0", "", "-1-0", "1--1", "-1", "1-", "-", "--", "1-0-0", " 1-0", "1-0 ",
    "1-0\n", "+1-0", "1-+0", "1_0", "1.0", "1e3-0", "0x10-0", "*", "$", ">", "+", "abc", "1-abc", "\x00", "1-0\x00",
    "١٢-0", "1-٣", "１-0", "𝟏-0", "²-0", "١-", "é" * 30, "1" * 41, "1-" + "1" * 300)
EVENT_CASES = 300
EVENT_CONCURRENCY = 32
WAIT_S = 0.3  # a well-formed id waits for events: its stream ends at this deadline


def _random_event_id(rng: random.Random) -> str:
    def part() -> str:
        pick = rng.randrange(6)
        if pick == 0:
            return str(rng.choice([0, 1, MAX_PART, MAX_PART + 1, 10**19, 10**20 - 1, 10**20, -1]))
        if pick == 1:
            return "".join(rng.choice("0123456789") for _ in range(rng.randrange(18, 23)))
        if pick == 2:
            return "".join(rng.choice("0123456789٠١٢٣٤٥٦٧٨٩０１２")
                           for _ in range(rng.randrange(1, 5)))
        if pick == 3:
            return "".join(chr(rng.randrange(0x20, 0x3000)) for _ in range(rng.randrange(6)))
        return str(rng.randrange(10**15))

    return rng.choice(["-", "-", "-", "--", "", " - ", "_"]).join(part() for _ in range(rng.choice([1, 2, 2, 2, 3])))


def _event_ids(rng: random.Random) -> list[str]:
    return list(EVENT_IDS) + [_random_event_id(rng) for _ in range(EVENT_CASES - len(EVENT_IDS))]


async def _watch_events_grpc(address: str, ids: list[str]) -> dict[str, grpc.StatusCode]:
    found: dict[str, grpc.StatusCode] = {}
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.unary_stream(f"/{SERVICE.full_name}/WatchEvents",
                                    request_serializer=pb.WatchEventsRequest.SerializeToString,
                                    response_deserializer=pb.WatchEventsResponse.FromString)
        queue: asyncio.Queue = asyncio.Queue()
        for after_id in ids:
            queue.put_nowait(after_id)

        async def worker() -> None:
            while not queue.empty():
                after_id = queue.get_nowait()
                try:
                    async for _ in call(pb.WatchEventsRequest(after_id=after_id), timeout=WAIT_S):
                        pass
                    found[after_id] = grpc.StatusCode.OK
                except grpc.aio.AioRpcError as exc:
                    found[after_id] = exc.code()

        await asyncio.gather(*(worker() for _ in range(EVENT_CONCURRENCY)))
    return found


async def _watch_events_connect(port: int, ids: list[str]) -> dict[str, str]:
    """The Connect end-of-stream code (or "ok") of WatchEvents from each id, over the HTTP port."""
    found: dict[str, str] = {}
    queue: asyncio.Queue = asyncio.Queue()
    for after_id in ids:
        queue.put_nowait(after_id)

    async def worker() -> None:
        while not queue.empty():
            after_id = queue.get_nowait()
            body = json.dumps({"afterId": after_id}).encode()
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            try:
                writer.write(b"POST /" + SERVICE.full_name.encode() + b"/WatchEvents HTTP/1.1\r\nhost: fuzz\r\n"
                             b"content-type: application/connect+json\r\nconnect-protocol-version: 1\r\n"
                             b"connect-timeout-ms: %d\r\ncontent-length: %d\r\nconnection: close\r\n\r\n"
                             % (WAIT_S * 1000, len(body) + 5) + struct.pack(">BI", 0, len(body)) + body)
                answer = await asyncio.wait_for(reader.read(), HTTP_READ_TIMEOUT_S)
            finally:
                writer.close()
            match = re.search(rb'\{"error": ?\{"code": ?"([a-z_]+)"', answer)
            found[after_id] = match.group(1).decode() if match else answer[9:12].decode()

    await asyncio.gather(*(worker() for _ in range(EVENT_CONCURRENCY // 2)))
    return found


def test_hostile_event_ids_never_answer_internal_or_unknown(http_server):
    ids = _event_ids(random.Random(SEED + 2))
    by_grpc = asyncio.run(_watch_events_grpc(http_server.address, ids))
    assert len(by_grpc) == len(set(ids))
    bad = {after_id: code.name for after_id, code in by_grpc.items() if code in BAD_CODES}
    assert not bad, f"WatchEvents answered INTERNAL/UNKNOWN for these after_id values: {bad}"
    for after_id in OUT_OF_RANGE_IDS:
        assert by_grpc[after_id] is grpc.StatusCode.INVALID_ARGUMENT, (after_id, by_grpc[after_id])
    # The largest id there can be is well-formed: it waits for events until the deadline.
    assert by_grpc["18446744073709551615-18446744073709551615"] is grpc.StatusCode.DEADLINE_EXCEEDED
    assert set(by_grpc.values()) <= {grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.DEADLINE_EXCEEDED,
                                     grpc.StatusCode.OK}, collections.Counter(by_grpc.values())
    # The same ids over the HTTP port (Connect streams): the same codes, never a 5xx.
    subset = list(EVENT_IDS) + ids[len(EVENT_IDS)::5]
    by_connect = asyncio.run(_watch_events_connect(http_server.http_port, subset))
    bad_http = {after_id: code for after_id, code in by_connect.items()
                if code in ("internal", "unknown") or code.startswith("5")}
    assert not bad_http, bad_http
    for after_id in OUT_OF_RANGE_IDS:
        assert by_connect[after_id] == "invalid_argument", (after_id, by_connect[after_id])
    problems = _errors_in_log(http_server)
    assert not problems, problems
