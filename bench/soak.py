"""`make soak`: contested play across three instances while servers and Redis are killed.

Games of four-player Spades are played on a private, persistent Redis (append-only file,
fsync always) through three server instances. Each game has a local mirror of the engine
built from the same prearranged decks, so the soak knows every legal move and every hand.
Every move is sent with a request id and the expected version to a random instance; often
the same request goes to a second instance at once (a retry racing the original), and
sometimes another client of the same seat races a different move for the same version. Every
few seconds one instance is killed with SIGKILL and started again, and now and then Redis
too. A call that fails because its instance or Redis went away is retried with the same
request id on another instance.

Anomalies counted (0 expected): a move applied twice or lost (the answered version is not
the mirror's next one, or two different moves both won), two answers to one request id that
are not byte-identical, a view that shows its seat other cards than the mirror's view of that
seat (a hidden card shown, or a held one missing), an INTERNAL or UNKNOWN status, and
instances that disagree about a game at the end.

Run for ``SOAK_SECONDS`` (default 120); one ``name value`` line per figure.
"""

from __future__ import annotations

import asyncio
import collections
import os
import random
import sys
import time
import uuid

import grpc

import engine
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from engine import Phase
from engine.core.cards import card_name, deck_text
from engine.games.spades_words import DOUBLE_NIL, REVEAL
from testkit.launcher import ServerProcess
from testkit.redis_server import PrivateRedis

SECONDS = float(os.environ.get("SOAK_SECONDS", "120"))
INSTANCES = 3
GAMES = 24
DECKS = 12
KILL_EVERY_S = 6.0
REDIS_EVERY_S = 25.0
CALL_TIMEOUT_S = 5.0
RETRY_FOR_S = 30.0
TRANSIENT = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.CANCELLED}
BAD = {grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN}
CHANNEL_OPTIONS = [("grpc.initial_reconnect_backoff_ms", 100), ("grpc.min_reconnect_backoff_ms", 100),
                   ("grpc.max_reconnect_backoff_ms", 1000)]


class Soak:
    """The instances, the counters, and the anomalies found."""

    def __init__(self, servers: list[ServerProcess], rng: random.Random):
        self.servers, self.rng = servers, rng
        self.channels = [grpc.aio.insecure_channel(s.address, options=CHANNEL_OPTIONS) for s in servers]
        self.stubs = [pb_grpc.GameServiceStub(c) for c in self.channels]
        self.statuses: collections.Counter[str] = collections.Counter()
        self.anomalies: list[str] = []
        self.tried = self.applied = self.raced_retries = self.raced_moves = 0
        self.kills = self.redis_restarts = 0

    def anomaly(self, text: str) -> None:
        self.anomalies.append(text)
        print(f"anomaly: {text}", file=sys.stderr, flush=True)

    async def call(self, method: str, request, metadata, avoid: int | None = None):
        """The call on a random instance, retried with the same request on others while they are
        down; (status name, response or None)."""
        deadline = time.monotonic() + RETRY_FOR_S
        while True:
            choices = [i for i in range(INSTANCES) if i != avoid] or list(range(INSTANCES))
            index = self.rng.choice(choices)
            try:
                response = await getattr(self.stubs[index], method)(request, metadata=metadata,
                                                                    timeout=CALL_TIMEOUT_S)
                self.statuses["OK"] += 1
                return "OK", response
            except grpc.aio.AioRpcError as exc:
                self.statuses[exc.code().name] += 1
                if exc.code() in BAD:
                    self.anomaly(f"{method} answered {exc.code().name}: {exc.details()}")
                if exc.code() not in TRANSIENT or time.monotonic() > deadline:
                    return exc.code().name, None
            avoid = index
            await asyncio.sleep(0.05 + self.rng.random() * 0.1)


class Game:
    """One all-human Spades game and its mirror."""

    def __init__(self, soak: Soak, rng: random.Random):
        self.soak, self.rng = soak, rng

    async def start(self) -> bool:
        decks = [self.rng.sample(range(52), 52) for _ in range(DECKS)]
        status, created = await self.soak.call("CreateGame", pb.CreateGameRequest(
            variant=enums.VARIANT_SPADES, first_dealer=0, request_id=uuid.uuid4().hex,
            seats=[pb.SeatConfig(name=f"P{i}") for i in range(4)],
            decks=[pb.Deck(cards=deck_text(d).split()) for d in decks]), [])
        if created is None:
            return False
        self.game_id = created.game_id
        self.tokens = {t.seat: [("authorization", f"Bearer {t.token}")] for t in created.seat_tokens}
        self.mirror = engine.new_game("spades", first_dealer=0, decks=decks)
        self.version = created.view.version
        return True

    def _check_view(self, seat: int, view, where: str) -> None:
        """The seat is shown exactly the cards the rules let it see (none before it looks)."""
        mine = engine.view(self.mirror, seat).hand
        allowed = {card_name(c) for c in mine or ()}
        if set(view.hand) != allowed:
            self.soak.anomaly(f"{where}: seat {seat} was shown {sorted(view.hand)}, may see {sorted(allowed)}")

    async def move(self) -> bool:
        """One contested move; False when the game cannot go on."""
        state = self.mirror
        if state.phase == Phase.GAME_OVER or (state.phase == Phase.DEAL and state.hand_no == DECKS):
            return await self.start()
        seat = state.turn if state.turn >= 0 else next(s for s in range(4) if engine.legal_actions(state, s))
        actions = [a for a in engine.legal_actions(state, seat) if a not in (REVEAL, DOUBLE_NIL)]
        action = self.rng.choice(actions)
        token = self.tokens[seat]
        request = pb.ActRequest(game_id=self.game_id, action=engine.notation(state.variant, action),
                                request_id=uuid.uuid4().hex, expected_version=self.version)
        sends = [request]
        raced = self.rng.random() < 0.3
        if raced:  # the same request again at once: a retry racing its original
            sends.append(request)
            self.soak.raced_retries += 1
        rival = next((a for a in actions if a != action), None) if self.rng.random() < 0.15 else None
        if rival is not None:  # another client of the seat sends another move for the same version
            sends.append(pb.ActRequest(game_id=self.game_id, action=engine.notation(state.variant, rival),
                                       request_id=uuid.uuid4().hex, expected_version=self.version))
            self.soak.raced_moves += 1
        self.soak.tried += len(sends)
        answers = await asyncio.gather(*(self.soak.call("Act", r, token) for r in sends))
        if all(r is None for _, r in answers):  # every call ran out of retries: ask again, same ids
            answers = [await self.soak.call("Act", r, token) for r in sends]
        mine = [r for _, r in answers[:2 if raced else 1] if r is not None]
        if len({r.SerializeToString(deterministic=True) for r in mine}) > 1:
            self.soak.anomaly(f"{self.game_id}: one request id answered differently")
        won_rival = rival is not None and answers[-1][1] is not None
        if won_rival and mine:
            self.soak.anomaly(f"{self.game_id} v{self.version}: two different moves both won")
        if not won_rival and not mine:
            return await self._unchanged(seat, [s for s, _ in answers])
        engine.apply(state, seat, rival if won_rival else action)
        response = answers[-1][1] if won_rival else mine[0]
        if response.view.version != self.version + 1:
            self.soak.anomaly(f"{self.game_id}: a move at v{self.version} answered v{response.view.version}")
        self.version += 1
        self.soak.applied += 1
        self._check_view(seat, response.view, f"{self.game_id} v{self.version}")
        return True

    async def _unchanged(self, seat: int, statuses: list[str]) -> bool:
        """No move won: the game must still be at the mirror's version (a refused move changes
        nothing); False when it cannot be read or moved without an answer saying so."""
        _, got = await self.soak.call("GetGame", pb.GetGameRequest(game_id=self.game_id), self.tokens[seat])
        if got is None:
            return False
        if got.view.version != self.version:
            self.soak.anomaly(f"{self.game_id}: at v{got.view.version}, not v{self.version}, "
                              f"though no move won ({statuses})")
            return False
        return True


async def _chaos(soak: Soak, redis: PrivateRedis, stop: float) -> None:
    rng = random.Random(7)
    next_redis = time.monotonic() + REDIS_EVERY_S
    while time.monotonic() + KILL_EVERY_S < stop:
        await asyncio.sleep(KILL_EVERY_S)
        server = rng.choice(soak.servers)
        server.proc.kill()
        server.proc.wait()
        soak.kills += 1
        if time.monotonic() >= next_redis:
            redis.stop()  # SIGKILL; the append-only file keeps every acknowledged write
            await asyncio.sleep(0.5)
            redis.start()
            soak.redis_restarts += 1
            next_redis = time.monotonic() + REDIS_EVERY_S
        await asyncio.to_thread(server.start, 30.0)


async def _play(game: Game, stop: float) -> None:
    if not await game.start():
        return
    while time.monotonic() < stop and await game.move():
        pass


async def _agree(soak: Soak, games: list[Game]) -> None:
    """Every instance shows every game at the mirror's version."""
    for game in games:
        for index, stub in enumerate(soak.stubs):
            got = await stub.GetGame(pb.GetGameRequest(game_id=game.game_id), timeout=RETRY_FOR_S,
                                     wait_for_ready=True)
            if got.view.version != game.version:
                soak.anomaly(f"instance {index} shows {game.game_id} at v{got.view.version}, not v{game.version}")


async def run(seconds: float) -> dict[str, float]:
    redis = PrivateRedis(persistent=True)
    redis.start()
    prefix = f"soak-{uuid.uuid4().hex[:8]}"
    servers = [ServerProcess("--allow-prearranged-decks", redis_url=redis.url, prefix=prefix)
               for _ in range(INSTANCES)]
    try:
        for server in servers:
            server.start()
        soak = Soak(servers, random.Random(1))
        games = [Game(soak, random.Random(100 + i)) for i in range(GAMES)]
        started = time.monotonic()
        stop = started + seconds
        await asyncio.gather(_chaos(soak, redis, stop), *(_play(g, stop) for g in games))
        elapsed = time.monotonic() - started
        await _agree(soak, [g for g in games if hasattr(g, "game_id")])
        figures: dict[str, float] = {
            "soak_seconds": elapsed, "soak_moves_tried": soak.tried, "soak_moves_applied": soak.applied,
            "soak_raced_retries": soak.raced_retries, "soak_raced_moves": soak.raced_moves,
            "soak_server_kills": soak.kills, "soak_redis_restarts": soak.redis_restarts,
        }
        figures.update({f"soak_status_{name.lower()}": count for name, count in sorted(soak.statuses.items())})
        figures["soak_anomalies"] = len(soak.anomalies)
        for channel in soak.channels:
            await channel.close()
        return figures
    finally:
        for server in servers:
            server.stop()
        redis.close()


def main() -> None:
    figures = asyncio.run(run(SECONDS))
    for name, value in figures.items():
        print(f"{name} {value:.1f}" if isinstance(value, float) else f"{name} {value}", flush=True)
    if figures["soak_anomalies"]:
        sys.exit(1)


if __name__ == "__main__":
    main()
