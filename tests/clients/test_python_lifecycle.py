"""The Python client's lifecycle calls against live servers on Redis that require API keys: labels,
player ids, fallback bots and turn deadlines at creation, reissued tokens, listing across pages,
away and back, leaving and abandoning, deleting, the event stream (resumed after a server
restart), the history with its deck commitments, rematches, and the reasons of the new refusals."""

from __future__ import annotations

import threading
import time
import uuid

import grpc
import pytest

from cardgame import errors
from cardgame.client import CreatedGame, GameClient, GameView, commitment
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import lifecycle_pb2 as lc
from service.rpc import apikeys
from testkit.launcher import ServerProcess
from tests.clients.lost import LostAnswer, Refused
from tests.conftest import SERVER_TEST_FLAGS

KEY, ENTRY = apikeys.new_key("py-backend")
OTHER_KEY, OTHER_ENTRY = apikeys.new_key("py-other")
KEYS_ENV = {"CARDGAME_API_KEYS": f"{ENTRY},{OTHER_ENTRY}"}
FAST_CREATE = ("--create-rate", "1000", "--create-burst", "1000")
BOTS = [("West", "basic"), ("North", "basic"), ("East", "basic")]
MAX_MOVES = 3000


@pytest.fixture(scope="module")
def keyed(redis_url: str, module_prefix: str):
    """A server that requires API keys (and lets them create games quickly)."""
    proc = ServerProcess(*SERVER_TEST_FLAGS, *FAST_CREATE, redis_url=redis_url, prefix=module_prefix, env=KEYS_ENV)
    proc.start()
    yield proc
    proc.stop()


@pytest.fixture
def backend(keyed):
    """The backend's client: the API key, no seat token."""
    with GameClient(keyed.address, api_key=KEY) as client:
        yield client


def wait_until(condition, what: str, seconds: float = 15.0) -> None:
    """Poll ``condition`` until it is true; fail naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def play_out(seat: GameClient, game_id: str) -> GameView:
    """Play the seat's first legal action until the game is over (bots play the other seats); the last view."""
    view = seat.get_game(game_id)
    for _ in range(MAX_MOVES):
        if view.phase == enums.PHASE_GAME_OVER:
            return view
        view = seat.act(view, view.legal_actions[0])
    raise AssertionError("the game did not end")


def short_euchre(backend: GameClient, **fields) -> CreatedGame:
    """A Buck Euchre game of one human (seat 0, the first dealer) against three bots, soon over."""
    return backend.create_game("buck-euchre", ["Ann", *BOTS], options={"starting_score": 5}, first_dealer=0,
                               **fields)


class Collector(threading.Thread):
    """watch_events in a thread, keeping every event (or the error that ended the iteration)."""

    def __init__(self, address: str, after_id: str = "", api_key: str = KEY):
        super().__init__(daemon=True)
        self.client = GameClient(address, api_key=api_key)
        self.after_id = after_id
        self.events: list[lc.Event] = []
        self.failure: BaseException | None = None
        self.stopping = threading.Event()

    def run(self) -> None:
        stream = self.client.watch_events(self.after_id, reconnect_timeout=30)
        try:
            for event in stream:
                self.events.append(event)
                if self.stopping.is_set():
                    break
        except BaseException as exc:  # reported by the test
            self.failure = exc
        finally:
            stream.close()

    def of(self, game_id: str) -> list[lc.Event]:
        return [e for e in self.events if e.game_id == game_id]

    def stop(self) -> None:
        """End the iteration (at the next event, or when the channel closes) and join."""
        self.stopping.set()
        self.client.close()
        self.join(10)


# ---- creating for the backend's users ----

def test_create_game_takes_player_ids_fallbacks_labels_and_lifecycle(backend):
    created = backend.create_game(
        "spades", [{"name": "Ann", "external_player_id": "u-ann", "fallback": "random"},
                   pb.SeatConfig(name="Bo", external_player_id="u-bo"),
                   ("Cy", "basic"), {"name": "Di", "kind": "human", "fallback": enums.PLAYER_KIND_BOT_BASIC}],
        labels={"table": "7", "tier": "gold"}, turn_timeout_ms=60_000, timeouts_before_away=2,
        leave_policy="abandon", first_dealer=0)
    assert sorted(created.tokens) == [0, 1, 3]
    view = created.view
    assert dict(view.labels) == {"table": "7", "tier": "gold"} and view.status == enums.GAME_STATUS_WAITING
    assert [s.external_player_id for s in view.seats] == ["u-ann", "u-bo", "", ""]
    assert [s.kind for s in view.seats] == [enums.PLAYER_KIND_HUMAN, enums.PLAYER_KIND_HUMAN,
                                            enums.PLAYER_KIND_BOT_BASIC, enums.PLAYER_KIND_HUMAN]
    dealt = backend.with_token(created.tokens[0]).deal(created.game_id)
    assert dealt.HasField("turn_deadline") and dealt.status == enums.GAME_STATUS_IN_PLAY
    assert 50_000 < dealt.turn_deadline.ToMilliseconds() - time.time() * 1000 <= 60_000
    again = backend.create_game("buck-euchre", ["Ann", *BOTS], first_dealer=1,  # a bot deals at once
                                lifecycle=lc.LifecycleOptions(turn_timeout_ms=5000), leave_policy="bot-plays")
    assert again.view.status == enums.GAME_STATUS_IN_PLAY and again.view.HasField("turn_deadline")
    assert 0 < again.view.turn_deadline.ToMilliseconds() - time.time() * 1000 <= 5000
    with pytest.raises(errors.InvalidArgument):
        backend.create_game("buck-euchre", ["Ann", *BOTS], labels={"Not A Key": "x"})
    with pytest.raises(errors.InvalidArgument):
        backend.create_game("buck-euchre", ["Ann", *BOTS], turn_timeout_ms=10)
    with pytest.raises(ValueError):
        backend.create_game("buck-euchre", [{"name": "Ann", "player": "u-1"}, *BOTS])
    with pytest.raises(ValueError):
        backend.create_game("buck-euchre", ["Ann", *BOTS], leave_policy="vanish")
    with GameClient(backend.target) as anonymous, pytest.raises(errors.Unauthenticated):
        anonymous.create_game("buck-euchre", ["Ann", *BOTS])


# ---- seat tokens ----

def test_a_reissued_token_replaces_the_old_one(backend):
    created = backend.create_game("spades", ["A", "B", *BOTS[:2]], first_dealer=0, request_id=uuid.uuid4().hex)
    old = created.tokens[1]
    request_id = uuid.uuid4().hex
    new = backend.reissue_seat_token(created.game_id, 1, request_id=request_id)
    assert new != old and backend.reissue_seat_token(created.game_id, 1, request_id=request_id) == new
    assert backend.with_token(new).get_game(created.game_id).viewer_seat == 1
    with pytest.raises(errors.Unauthenticated):
        backend.with_token(old).get_game(created.game_id)
    fresh = backend.reissue_seat_token(created.game_id, 1)  # no request id given: the client makes one
    assert fresh not in (old, new) and backend.with_token(fresh).get_game(created.game_id).viewer_seat == 1
    with pytest.raises(errors.InvalidArgument):
        backend.reissue_seat_token(created.game_id, 2)  # a bot's seat
    with GameClient(backend.target, api_key=OTHER_KEY) as other, pytest.raises(errors.NotFound):
        other.reissue_seat_token(created.game_id, 1)  # another backend's game is not even confirmed
    backend.with_token(created.tokens[0]).leave_game(created.game_id)
    left = pytest.raises(errors.SeatLeft, backend.reissue_seat_token, created.game_id, 0).value
    assert left.reason == "SEAT_LEFT" and isinstance(left, errors.FailedPrecondition)
    assert not isinstance(left, errors.IllegalMove)


def test_a_create_retry_after_a_reissue_is_refused_with_its_reason(backend):
    request_id = uuid.uuid4().hex
    created = short_euchre(backend, request_id=request_id)
    assert short_euchre(backend, request_id=request_id).tokens == created.tokens  # a retry: the same tokens
    backend.reissue_seat_token(created.game_id, 0)
    refused = pytest.raises(errors.TokenReissued, short_euchre, backend, request_id=request_id).value
    assert refused.reason == "TOKEN_REISSUED" and refused.code == grpc.StatusCode.FAILED_PRECONDITION


# ---- listing ----

def test_list_games_follows_every_page_with_filters(backend):
    mark = uuid.uuid4().hex[:10]
    made = []
    for i in range(5):
        made.append(backend.create_game("buck-euchre", [{"name": "Ann", "external_player_id": f"{mark}-{i % 2}"},
                                                        *BOTS], labels={"run": mark, "odd": str(i % 2)},
                                        first_dealer=0))
        time.sleep(0.002)  # distinct creation times
    newest_first = [g.game_id for g in reversed(made)]
    assert [g.game_id for g in backend.list_games({"run": mark}, page_size=2)] == newest_first
    page = backend.list_games_page({"run": mark}, page_size=2)
    assert len(page.games) <= 2 and page.next_page_token
    rest = backend.list_games_page({"run": mark}, page_size=200, page_token=page.next_page_token)
    assert [g.game_id for g in [*page.games, *rest.games]] == newest_first and not rest.next_page_token
    odd = list(backend.list_games(labels={"run": mark, "odd": "1"}))
    assert [g.game_id for g in odd] == [made[3].game_id, made[1].game_id]
    summary = odd[0]
    assert summary.variant_name == "buck_euchre" and summary.status == enums.GAME_STATUS_WAITING
    assert [s.external_player_id for s in summary.seats] == [f"{mark}-1", "", "", ""]
    assert dict(summary.labels) == {"run": mark, "odd": "1"} and summary.create_time.ToMilliseconds() > 0
    assert [g.game_id for g in backend.list_games(external_player_id=f"{mark}-0")] == [
        made[4].game_id, made[2].game_id, made[0].game_id]
    backend.with_token(made[2].tokens[0]).deal(made[2].game_id)
    assert [g.game_id for g in backend.list_games({"run": mark}, status="in-play")] == [made[2].game_id]
    assert made[2].game_id not in [g.game_id for g in backend.list_games({"run": mark},
                                                                         status=enums.GAME_STATUS_WAITING)]
    with GameClient(backend.target, api_key=OTHER_KEY) as other:
        assert list(other.list_games({"run": mark})) == []  # another backend's games are not shown
    with pytest.raises(ValueError):
        list(backend.list_games(status="lost"))


# ---- turn deadlines, away and back ----

def test_a_seat_that_lets_its_turn_pass_is_away_until_back(backend):
    """Four humans, turns of 2 s; seat 0 lets its bid pass its deadline, the fallback bids for it,
    and seat 0 is marked away after that one timeout, until it says it is back."""
    created = backend.create_game("spades", ["A", "B", "C", "D"], first_dealer=0, turn_timeout_ms=2000,
                                  timeouts_before_away=1)
    game = created.game_id
    seats = {n: backend.with_token(token) for n, token in created.tokens.items()}
    events = Collector(backend.target)
    events.start()
    try:
        view = seats[0].deal(game)
        for n in (1, 2, 3):  # seats 1..3 bid at once; seat 0 then has 2 s
            view = seats[n].bid(game, 2)
        assert view.turn == 0 and view.HasField("turn_deadline")
        wait_until(lambda: any(e.kind == lc.EVENT_KIND_TIMEOUT for e in events.of(game)), "the timeout event")
        mine = seats[0].get_game(game)
        assert mine.seats[0].presence == enums.PRESENCE_AWAY and mine.seats[0].timeouts == 1
        # away, the fallback bot made seat 0's bid at once
        assert mine.seats[0].HasField("bid_tricks") or mine.seats[0].spades.double_nil
        assert mine.phase != enums.PHASE_GAME_OVER
        assert [a.notation for a in mine.legal_actions if a.kind == enums.ACTION_KIND_BACK] == ["back"]
        back = seats[0].back(game)
        assert back.seats[0].presence == enums.PRESENCE_PLAYING and back.seats[0].timeouts == 0
        not_away = pytest.raises(errors.NotAway, seats[0].back, game).value
        assert not_away.reason == "NOT_AWAY" and isinstance(not_away, errors.IllegalMove)
        timeout = next(e for e in events.of(game) if e.kind == lc.EVENT_KIND_TIMEOUT)
        assert timeout.seat == 0 and timeout.action
        assert timeout.time.ToMilliseconds() >= timeout.deadline.ToMilliseconds()
    finally:
        events.stop()
    assert events.failure is None, events.failure


# ---- leaving ----

def test_leaving_hands_the_seat_to_its_bot_or_abandons_the_game(backend):
    created = backend.create_game("buck-euchre", ["Ann", "Bo", *BOTS[:2]], options={"starting_score": 5},
                                  first_dealer=0)
    bo = backend.with_token(created.tokens[1])
    left = bo.leave_game(created.game_id)
    assert left.seats[1].presence == enums.PRESENCE_LEFT and not left.HasField("viewer_seat")
    with pytest.raises(errors.Unauthenticated):
        bo.get_game(created.game_id)
    play_out(backend.with_token(created.tokens[0]), created.game_id)  # Bo's fallback bot plays on
    over = backend.get_game(created.game_id)
    assert over.phase == enums.PHASE_GAME_OVER and not over.abandoned

    abandoned = backend.create_game("spades", ["A", "B", *BOTS[:2]], first_dealer=0, leave_policy="abandon")
    ended = backend.with_token(abandoned.tokens[0]).leave_game(abandoned.game_id)
    assert ended.phase == enums.PHASE_GAME_OVER and ended.abandoned and ended.winner_side == 1
    assert ended.status == enums.GAME_STATUS_FINISHED
    game_over = pytest.raises(errors.GameOver, backend.with_token(abandoned.tokens[1]).leave_game,
                              abandoned.game_id).value
    assert game_over.reason == "GAME_OVER" and isinstance(game_over, errors.IllegalMove)
    with pytest.raises(errors.PermissionDenied):
        backend.leave_game(abandoned.game_id)  # a spectator has no seat to leave


# ---- history and fairness ----

def test_history_reveals_every_deal_after_the_game_and_each_matches_its_commitment(backend):
    created = short_euchre(backend, shuffle_seed=3)
    seat = backend.with_token(created.tokens[0])
    dealt = seat.deal(created.game_id)
    during = backend.get_history(created.game_id)
    assert [e.action for e in during.entries][:1] == ["deal"] and not during.entries[0].deck  # still hidden
    assert during.variant_name == "buck_euchre" and during.first_dealer == 0 and during.version == dealt.version
    play_out(seat, created.game_id)
    history = backend.get_history(created.game_id)
    deals = [e for e in history.entries if e.action == "deal"]
    hands = backend.get_score(created.game_id).hands
    assert deals and len(deals) == len(hands)
    for deal, hand in zip(deals, hands, strict=True):
        assert len(deal.deck) == 24 and deal.salt
        assert commitment(deal.deck, deal.salt) == hand.commitment == commitment(hand.deck, hand.salt)
    assert commitment(deals[0].deck, deals[0].salt) == dealt.deck_commitment
    assert [e.version for e in history.entries] == list(range(2, history.version + 1))


# ---- rematch ----

def test_rematch_seats_the_same_players_in_a_new_game(backend):
    created = backend.create_game("buck-euchre", [{"name": "Ann", "external_player_id": "u-a"}, *BOTS],
                                  labels={"series": "s9"}, options={"starting_score": 5})
    request_id = uuid.uuid4().hex
    again = backend.rematch(created.game_id, request_id=request_id)
    assert isinstance(again, CreatedGame) and again.game_id != created.game_id and list(again.tokens) == [0]
    assert backend.rematch(created.game_id, request_id=request_id) == again  # a retry: the same game and tokens
    view = backend.with_token(again.tokens[0]).get_game(again.game_id)
    assert view.viewer_seat == 0 and dict(view.labels) == {"series": "s9"}
    assert view.seats[0].external_player_id == "u-a" and view.options.buck_euchre.starting_score == 5
    with GameClient(backend.target, api_key=OTHER_KEY) as other, pytest.raises(errors.NotFound):
        other.rematch(created.game_id)


# ---- deleting ----

class FirstDeleteFails(grpc.UnaryUnaryClientInterceptor):
    """The first DeleteGame fails: refused before it runs (``Refused``), or run with its answer
    lost (``LostAnswer``, ``ran=True``); every call's method is recorded."""

    def __init__(self, ran: bool):
        self.ran = ran
        self.methods: list[str] = []

    def intercept_unary_unary(self, continuation, client_call_details, request):
        name = client_call_details.method.rsplit("/", 1)[-1]
        self.methods.append(name)
        if name != "DeleteGame" or self.methods.count("DeleteGame") > 1:
            return continuation(client_call_details, request)
        if not self.ran:
            raise Refused()
        continuation(client_call_details, request).result()  # the game is gone...
        raise LostAnswer()  # ...but the client never hears it


def test_a_retried_delete_after_a_refusal_still_says_the_game_is_not_there(keyed):
    """A refusal deleted nothing, so the retry's NOT_FOUND is the answer: no such game."""
    refusing = FirstDeleteFails(ran=False)
    with GameClient(keyed.address, api_key=KEY, interceptors=[refusing]) as client:
        with pytest.raises(errors.NotFound) as missing:
            client.delete_game("0" * 24)
        assert refusing.methods == ["DeleteGame", "DeleteGame"] and missing.value.attempts == 2


def test_delete_game_removes_the_game_once_even_when_its_answer_is_lost(keyed, backend):
    created = short_euchre(backend)
    backend.delete_game(created.game_id)
    with pytest.raises(errors.NotFound):
        backend.get_game(created.game_id)
    assert pytest.raises(errors.NotFound, backend.delete_game, created.game_id).value.attempts == 1
    lossy = FirstDeleteFails(ran=True)
    with GameClient(keyed.address, api_key=KEY, interceptors=[lossy]) as client:
        other = short_euchre(client)
        client.delete_game(other.game_id)  # retried; the retry finds it gone, which is what was asked
        assert lossy.methods == ["CreateGame", "DeleteGame", "DeleteGame"]
        with pytest.raises(errors.NotFound):
            client.get_game(other.game_id)
    with GameClient(keyed.address, api_key=OTHER_KEY) as foreign:
        kept = short_euchre(backend)
        with pytest.raises(errors.NotFound):
            foreign.delete_game(kept.game_id)
        assert backend.get_game(kept.game_id).game_id == kept.game_id


# ---- events ----

def test_watch_events_tells_each_game_once_in_order_and_resumes_after_an_id(backend):
    events = Collector(backend.target)
    events.start()
    try:
        created = short_euchre(backend, labels={"events": "yes"}, shuffle_seed=8)
        play_out(backend.with_token(created.tokens[0]), created.game_id)
        wait_until(lambda: any(e.kind == lc.EVENT_KIND_GAME_OVER for e in events.of(created.game_id)), "game over")
        backend.delete_game(created.game_id)
        wait_until(lambda: any(e.kind == lc.EVENT_KIND_DELETE for e in events.of(created.game_id)), "the delete")
    finally:
        events.stop()
    assert events.failure is None, events.failure
    mine = events.of(created.game_id)
    kinds = [e.kind for e in mine]
    assert kinds[-2:] == [lc.EVENT_KIND_GAME_OVER, lc.EVENT_KIND_DELETE]
    assert set(kinds[:-2]) == {lc.EVENT_KIND_HAND_END} and len(kinds) >= 3
    assert [e.sequence for e in mine[:-1]] == list(range(1, len(mine)))
    assert all(dict(e.labels) == {"events": "yes"} for e in mine)
    over = mine[-2]
    assert over.standings.HasField("winner_side") and list(over.standings.winner_seats)
    assert [e.hand.hand_number for e in mine[:-2]] == list(range(1, len(mine) - 1))
    resumed = Collector(backend.target, after_id=mine[0].id)
    resumed.start()
    try:
        wait_until(lambda: len(resumed.of(created.game_id)) == len(mine) - 1, "the resumed stream")
    finally:
        resumed.stop()
    assert [e.id for e in resumed.of(created.game_id)] == [e.id for e in mine[1:]]
    with GameClient(backend.target, api_key=OTHER_KEY) as other:
        stream = other.watch_events(mine[0].id)
        first_foreign = []
        thread = threading.Thread(target=lambda: first_foreign.extend([next(stream, None)]), daemon=True)
        thread.start()
        thread.join(1.5)  # nothing of another backend's games arrives
        assert not first_foreign
    with GameClient(backend.target) as anonymous, pytest.raises(errors.Unauthenticated):
        next(anonymous.watch_events())


def test_watch_events_resumes_after_the_server_restarts(redis_url, module_prefix):
    flags = dict(redis_url=redis_url, prefix=module_prefix + "-restart", env=KEYS_ENV)
    first = ServerProcess(*SERVER_TEST_FLAGS, *FAST_CREATE, **flags)
    first.start()
    second = None
    events = Collector(first.address)
    try:
        events.start()
        with GameClient(first.address, api_key=KEY, retries=8) as backend:
            before = short_euchre(backend, shuffle_seed=1)
            play_out(backend.with_token(before.tokens[0]), before.game_id)
            wait_until(lambda: any(e.kind == lc.EVENT_KIND_GAME_OVER for e in events.of(before.game_id)), "game 1")
            first.proc.kill()  # a crash: the stream is cut without a goodbye
            first.proc.wait()
            second = ServerProcess(*SERVER_TEST_FLAGS, *FAST_CREATE, port=first.port, **flags)
            second.start()
            after = short_euchre(backend, shuffle_seed=2)
            play_out(backend.with_token(after.tokens[0]), after.game_id)
            wait_until(lambda: any(e.kind == lc.EVENT_KIND_GAME_OVER for e in events.of(after.game_id)), "game 2")
    finally:
        events.stop()
        first.stop()
        if second is not None:
            second.stop()
    assert events.failure is None, events.failure
    ids = [e.id for e in events.events]
    assert len(ids) == len(set(ids)), "an event came twice"
    assert ids == sorted(ids, key=lambda i: tuple(int(p) for p in i.split("-"))), "events out of order"
    for game in (before.game_id, after.game_id):
        mine = events.of(game)
        assert [e.sequence for e in mine] == list(range(1, len(mine) + 1))


# ---- the rate limit ----

def test_a_rate_limited_create_waits_as_retry_info_says_or_gives_up_beyond_five_seconds(redis_url, module_prefix):
    """0.15 games a second, bursts of 2: a third create at once is asked to wait ~6.7 s, beyond the
    client's 5 s, so it fails at once; two seconds later the wait is ~4.7 s, which the client waits."""
    proc = ServerProcess(*SERVER_TEST_FLAGS, "--create-rate", "0.15", "--create-burst", "2", redis_url=redis_url,
                         prefix=module_prefix + "-rate", env=KEYS_ENV)
    proc.start()
    try:
        with GameClient(proc.address, api_key=KEY) as client:
            for _ in range(2):
                short_euchre(client)
            started = time.monotonic()
            limited = pytest.raises(errors.RateLimited, short_euchre, client).value
            assert time.monotonic() - started < 2 and limited.attempts == 1
            assert limited.reason == "RATE_LIMITED" and isinstance(limited, errors.ResourceExhausted)
            assert limited.retry_delay is not None and 5 < limited.retry_delay <= 1 / 0.15
            time.sleep(2)
            started = time.monotonic()
            short_euchre(client)
            assert time.monotonic() - started >= limited.retry_delay - 2 - 0.1
    finally:
        proc.stop()


# ---- the reasons of the new refusals ----

def test_every_new_reason_maps_to_its_own_class():
    failed = grpc.StatusCode.FAILED_PRECONDITION
    expected = {("GAME_OVER", failed): errors.GameOver, ("NOT_AWAY", failed): errors.NotAway,
                ("SEAT_LEFT", failed): errors.SeatLeft, ("TOKEN_REISSUED", failed): errors.TokenReissued,
                ("TOKEN_SECRET_CHANGED", failed): errors.TokenSecretChanged,
                ("UNSUPPORTED_GAME_FORMAT", failed): errors.UnsupportedGameFormat,
                ("RATE_LIMITED", grpc.StatusCode.RESOURCE_EXHAUSTED): errors.RateLimited}
    for (reason, code), cls in expected.items():
        error = errors.error_for(code, "message", reason)
        assert type(error) is cls and error.reason == reason and error.code == code
    assert issubclass(errors.IllegalMove, errors.FailedPrecondition)
    assert issubclass(errors.SeatLeft, errors.FailedPrecondition)
    assert not issubclass(errors.SeatLeft, errors.IllegalMove)
    # a reason under another code than its own is that code's class
    assert type(errors.error_for(grpc.StatusCode.RESOURCE_EXHAUSTED, "x", "GAME_OVER")) is errors.ResourceExhausted
    assert type(errors.error_for(failed, "x", "RATE_LIMITED")) is errors.IllegalMove


def test_moves_and_reads_need_no_api_key_on_a_keyed_server(keyed, backend):
    created = short_euchre(backend)
    with GameClient(keyed.address, created.tokens[0]) as seat:  # a player's client holds no API key
        assert seat.deal(created.game_id).viewer_seat == 0
        assert seat.get_history(created.game_id).entries[0].action == "deal"
        with pytest.raises(errors.Unauthenticated):
            list(seat.list_games())
