"""The lifecycle around a game through real channels against real Redis: players and labels,
token reissue, listing, turn deadlines swept by several instances, leaving, deleting, the event
stream, the history and rematches."""

from __future__ import annotations

import hashlib
import random
import threading
import time
import uuid

import grpc
import pytest

import engine
from cardgame.moves import notation_for
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import lifecycle_pb2 as lc
from cardgame.v1 import options_pb2
from service.rpc import apikeys, requests
from service.table.table import MAX_BOT_ACTIONS
from tests.rpc.conftest import instances, stubs_of
from tests.support.players import acting_seat, auth, choose, create, play_to_end, tokens_of

KEY, ENTRY = apikeys.new_key("lobby")
OTHER_KEY, OTHER_ENTRY = apikeys.new_key("arcade")
BASIC = enums.PLAYER_KIND_BOT_BASIC
ENV = {"CARDGAME_API_KEYS": f"{ENTRY},{OTHER_ENTRY}"}


def key(value: str = KEY) -> list[tuple[str, str]]:
    return [("x-api-key", value)]


@pytest.fixture(scope="module")
def servers(redis_url: str, module_prefix: str):
    """Three instances on one Redis and prefix, with API keys and deadlines from 10 ms (the test
    mode --allow-short-deadlines); games are swept by all three."""
    with instances(3, "--create-burst", "1000", "--create-rate", "1000", "--allow-short-deadlines",
                   redis_url=redis_url, prefix=module_prefix,
                   env=ENV) as procs:
        yield procs


@pytest.fixture(scope="module")
def stubs(servers):
    with stubs_of(servers) as stubs:
        yield stubs


def _new(stub, variant: str = "buck_euchre", humans: int = 1, labels=None, players=None, timeout_ms: int = 0,
         away_after: int = 0, abandon: bool = False, api_key: str = KEY, request_id: str = "", **fields):
    n = {"buck_euchre": 4, "spades": 4, "spades2": 2}[variant]
    seats = [pb.SeatConfig(name=f"P{i}", kind=enums.PLAYER_KIND_HUMAN if i < humans else BASIC,
                           external_player_id=(players or {}).get(i, "")) for i in range(n)]
    life = lc.LifecycleOptions(turn_timeout_ms=timeout_ms, timeouts_before_away=away_after,
                               leave_policy=lc.LEAVE_POLICY_ABANDON if abandon else lc.LEAVE_POLICY_BOT_PLAYS)
    return stub.CreateGame(pb.CreateGameRequest(variant_name=variant, seats=seats, labels=labels or {},
                                                lifecycle=life, first_dealer=0, request_id=request_id, **fields),
                           metadata=key(api_key), timeout=10)


def test_players_labels_and_status_show_in_views(stubs):
    created = _new(stubs[0], humans=2, labels={"table": "red", "tier": "gold"}, players={0: "u-1", 1: "u-2"})
    view = created.view
    assert view.status == enums.GAME_STATUS_WAITING and dict(view.labels) == {"table": "red", "tier": "gold"}
    assert [s.external_player_id for s in view.seats] == ["u-1", "u-2", "", ""]
    assert all(s.presence == enums.PRESENCE_PLAYING for s in view.seats)
    dealt = stubs[1].Act(pb.ActRequest(game_id=created.game_id, action="deal"),
                         metadata=auth(tokens_of(created)[0]), timeout=10)
    assert dealt.view.status == enums.GAME_STATUS_IN_PLAY and not dealt.view.HasField("turn_deadline")
    for bad in ({"Bad Key": "x"}, {"k": "x" * 300}, {f"k{i}": "v" for i in range(17)}):
        with pytest.raises(grpc.RpcError) as refused:
            _new(stubs[0], labels=bad)
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_a_reissued_token_replaces_the_old_one_for_the_owner_only(stubs):
    created = _new(stubs[0], humans=2)
    old = tokens_of(created)[1]
    request = pb.ReissueSeatTokenRequest(game_id=created.game_id, seat=1, request_id=uuid.uuid4().hex)
    new = stubs[1].ReissueSeatToken(request, metadata=key(), timeout=10).seat_token
    assert new.seat == 1 and new.token != old
    again = stubs[2].ReissueSeatToken(request, metadata=key(), timeout=10).seat_token
    assert again.token == new.token  # a retry gets the same new token
    spectator = stubs[0].GetGame(pb.GetGameRequest(game_id=created.game_id), metadata=auth(new.token), timeout=10)
    assert spectator.view.viewer_seat == 1
    with pytest.raises(grpc.RpcError) as void:
        stubs[0].GetGame(pb.GetGameRequest(game_id=created.game_id), metadata=auth(old), timeout=10)
    assert void.value.code() == grpc.StatusCode.UNAUTHENTICATED
    for metadata, code in ((key(OTHER_KEY), grpc.StatusCode.NOT_FOUND), ([], grpc.StatusCode.UNAUTHENTICATED)):
        with pytest.raises(grpc.RpcError) as refused:
            stubs[0].ReissueSeatToken(pb.ReissueSeatTokenRequest(game_id=created.game_id, seat=1),
                                      metadata=metadata, timeout=10)
        assert refused.value.code() == code
    with pytest.raises(grpc.RpcError) as bot_seat:
        stubs[0].ReissueSeatToken(pb.ReissueSeatTokenRequest(game_id=created.game_id, seat=3),
                                  metadata=key(), timeout=10)
    assert bot_seat.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def _list(stub, api_key: str = KEY, **fields) -> list[str]:
    """Every game id ListGames gives, following the page tokens (bounded)."""
    found: list[str] = []
    token = ""
    for _ in range(100):
        page = stub.ListGames(pb.ListGamesRequest(page_token=token, **fields), metadata=key(api_key), timeout=10)
        found += [g.game_id for g in page.games]
        token = page.next_page_token
        if not token:
            return found
    raise AssertionError("ListGames did not end")


def test_list_games_filters_newest_first_across_pages_and_callers(stubs):
    mark = uuid.uuid4().hex[:8]
    made = []
    for i in range(7):
        made.append(_new(stubs[i % 3], labels={"run": mark, "parity": str(i % 2)}, players={0: f"{mark}-{i % 3}"}))
        time.sleep(0.002)  # distinct creation times
    newest_first = [g.game_id for g in reversed(made)]
    assert _list(stubs[0], labels={"run": mark}, page_size=3) == newest_first
    odd = [g.game_id for g in reversed(made) if g.view.labels["parity"] == "1"]
    assert _list(stubs[1], labels={"run": mark, "parity": "1"}) == odd
    assert _list(stubs[2], external_player_id=f"{mark}-1") == [made[4].game_id, made[1].game_id]
    assert _list(stubs[0], api_key=OTHER_KEY, labels={"run": mark}) == []  # another backend's games are not shown
    stubs[0].Act(pb.ActRequest(game_id=made[3].game_id, action="deal"),
                 metadata=auth(tokens_of(made[3])[0]), timeout=10)
    assert _list(stubs[0], labels={"run": mark}, status=enums.GAME_STATUS_IN_PLAY) == [made[3].game_id]
    assert made[3].game_id not in _list(stubs[0], labels={"run": mark}, status=enums.GAME_STATUS_WAITING)
    stubs[1].DeleteGame(pb.DeleteGameRequest(game_id=made[6].game_id), metadata=key(), timeout=10)
    assert _list(stubs[0], labels={"run": mark}) == newest_first[1:]
    with pytest.raises(grpc.RpcError) as gone:
        stubs[0].GetGame(pb.GetGameRequest(game_id=made[6].game_id), timeout=10)
    assert gone.value.code() == grpc.StatusCode.NOT_FOUND
    with pytest.raises(grpc.RpcError) as forged:
        stubs[0].ListGames(pb.ListGamesRequest(page_token="bm9wZQ=="), metadata=key(), timeout=10)
    assert forged.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_deleting_a_game_ends_its_watch_streams_on_every_instance_at_once(stubs):
    made = _new(stubs[0])
    streams = [stub.WatchGame(pb.WatchGameRequest(game_id=made.game_id), metadata=auth(tokens_of(made)[0]),
                              timeout=30) for stub in stubs[:2]]
    for stream in streams:
        assert next(stream).view.game_id == made.game_id   # each instance's feed follows the game
    started = time.monotonic()
    stubs[2].DeleteGame(pb.DeleteGameRequest(game_id=made.game_id), metadata=key(), timeout=10)
    for stream in streams:
        with pytest.raises(grpc.RpcError) as ended:
            for _ in stream:
                pass
        assert ended.value.code() == grpc.StatusCode.NOT_FOUND
    assert time.monotonic() - started < 5   # told by the deletion, not found by the feeds' 30 s check


class _Events(threading.Thread):
    """A WatchEvents stream in a thread, keeping every event."""

    def __init__(self, stub, after_id: str = ""):
        super().__init__(daemon=True)
        self.call = stub.WatchEvents(pb.WatchEventsRequest(after_id=after_id), metadata=key(), timeout=120)
        self.events: list[lc.Event] = []

    def run(self) -> None:
        try:
            for message in self.call:
                self.events.append(message.event)
        except grpc.RpcError:
            pass

    def of(self, game_id: str) -> list[lc.Event]:
        return [e for e in self.events if e.game_id == game_id]

    def stop(self) -> None:
        self.call.cancel()
        self.join(5)


def _wait(condition, within_s: float, what: str) -> None:
    deadline = time.monotonic() + within_s
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def test_expired_turns_are_played_once_by_any_instance_within_a_second(stubs):
    """100 games left alone on three instances: every passed deadline is played exactly once."""
    events = _Events(stubs[0])
    events.start()
    try:
        games = [_new(stubs[i % 3], timeout_ms=1000, away_after=100, labels={"sweep": "1"}) for i in range(100)]
        for game in games:  # the human deals (unless the clock dealt first), then leaves every turn to it
            try:
                stubs[1].Act(pb.ActRequest(game_id=game.game_id, action="deal"),
                             metadata=auth(tokens_of(game)[0]), timeout=10)
            except grpc.RpcError as exc:
                assert exc.code() == grpc.StatusCode.FAILED_PRECONDITION, exc
        _wait(lambda: all(len([e for e in events.of(g.game_id) if e.kind == lc.EVENT_KIND_TIMEOUT]) >= 2
                          for g in games), 30, "deadlines were not swept")
    finally:
        events.stop()
    lags = []
    for game in games:
        timeouts = [e for e in events.of(game.game_id) if e.kind == lc.EVENT_KIND_TIMEOUT]
        assert [e.sequence for e in events.of(game.game_id)] == sorted({e.sequence for e in events.of(game.game_id)})
        history = stubs[2].GetHistory(pb.GetHistoryRequest(game_id=game.game_id), timeout=10)
        notes = [entry for entry in history.entries if entry.note == "timeout"]
        assert len(notes) >= len(timeouts)  # one log note per timeout played, never two for one deadline
        assert len({e.deadline.ToMilliseconds() for e in timeouts}) == len(timeouts)
        lags += [e.time.ToMilliseconds() - e.deadline.ToMilliseconds() for e in timeouts]
        assert all(e.seat == 0 for e in timeouts)
    assert min(lags) >= 0 and max(lags) <= 1000, (min(lags), max(lags))


def test_a_seat_that_keeps_timing_out_is_away_until_it_says_back(stubs):
    """Seat 0 lets its turns pass; seat 1 plays its own, so the game goes on without seat 0."""
    game = _new(stubs[0], variant="spades", humans=2, timeout_ms=1000, away_after=2)
    tokens = tokens_of(game)
    view = stubs[0].Act(pb.ActRequest(game_id=game.game_id, action="deal"), metadata=auth(tokens[0]),
                        timeout=10).view
    assert view.HasField("turn_deadline")  # both humans have a bid to make
    assert 0 < view.turn_deadline.ToMilliseconds() - time.time() * 1000 <= 1000
    rng = random.Random(4)
    deadline = time.monotonic() + 20
    while True:
        seen = stubs[1].GetGame(pb.GetGameRequest(game_id=game.game_id), metadata=auth(tokens[1]), timeout=10).view
        if seen.seats[0].presence == enums.PRESENCE_AWAY:
            break
        assert time.monotonic() < deadline, "seat 0 was not marked away"
        playable = [a for a in seen.legal_actions if a.kind != enums.ACTION_KIND_REVEAL]
        if playable:
            try:
                stubs[1].Act(pb.ActRequest(game_id=game.game_id, action=notation_for(choose(seen, rng), rng=rng),
                                           expected_version=seen.version), metadata=auth(tokens[1]), timeout=10)
            except grpc.RpcError as exc:  # the sweeper moved the game on meanwhile
                assert exc.code() == grpc.StatusCode.ABORTED
        time.sleep(0.05)
    assert seen.seats[0].timeouts >= 2 and seen.phase != enums.PHASE_GAME_OVER
    mine = stubs[1].GetGame(pb.GetGameRequest(game_id=game.game_id), metadata=auth(tokens[0]), timeout=10).view
    assert [a.notation for a in mine.legal_actions if a.kind == enums.ACTION_KIND_BACK] == ["back"]
    with pytest.raises(grpc.RpcError) as stale:
        stubs[2].Act(pb.ActRequest(game_id=game.game_id, action="back", expected_version=1),
                     metadata=auth(tokens[0]), timeout=10)
    assert stale.value.code() == grpc.StatusCode.ABORTED
    back = stubs[2].Act(pb.ActRequest(game_id=game.game_id, action="back"), metadata=auth(tokens[0]),
                        timeout=10).view
    assert back.seats[0].presence == enums.PRESENCE_PLAYING and back.seats[0].timeouts == 0
    with pytest.raises(grpc.RpcError) as twice:
        stubs[2].Act(pb.ActRequest(game_id=game.game_id, action="back"), metadata=auth(tokens[0]), timeout=10)
    assert twice.value.code() == grpc.StatusCode.FAILED_PRECONDITION


def test_a_timed_out_bid_is_a_bid_not_only_a_look_at_the_cards(stubs):
    # seat 0's next turn (its first card) passes a whole timeout after its bid's: time to look
    game = _new(stubs[0], variant="spades", timeout_ms=1000, away_after=100)
    stubs[0].Act(pb.ActRequest(game_id=game.game_id, action="deal"), metadata=auth(tokens_of(game)[0]), timeout=10)
    deadline = time.monotonic() + 10
    while (view := stubs[1].GetGame(pb.GetGameRequest(game_id=game.game_id), timeout=10).view).seats[0].timeouts < 1:
        assert time.monotonic() < deadline, "the bid did not time out"
        time.sleep(0.05)
    assert view.seats[0].timeouts == 1 and view.seats[0].last_call  # one timeout, and seat 0 has bid


def test_bots_play_out_a_game_longer_than_one_commit_holds_once_its_human_left(stubs):
    """Some 6,000 bot turns (Spades to 5000) after the only human leaves: each commit takes at
    most MAX_BOT_ACTIONS of them and the sweepers play on at once, up to the end; meanwhile no
    view shows a turn deadline, since no player has a turn."""
    options = options_pb2.RuleOptions(spades=options_pb2.SpadesOptions(target_score=5000))
    game = _new(stubs[0], variant="spades", options=options)
    stubs[0].LeaveGame(pb.LeaveGameRequest(game_id=game.game_id), metadata=auth(tokens_of(game)[0]), timeout=30)
    deadline, polls = time.monotonic() + 120, 0
    while True:
        polls += 1
        view = stubs[polls % 3].GetGame(pb.GetGameRequest(game_id=game.game_id), timeout=10).view
        assert not view.HasField("turn_deadline"), view.version
        if view.phase == enums.PHASE_GAME_OVER:
            break
        assert time.monotonic() < deadline, f"the bots stopped at version {view.version}"
        time.sleep(0.1)
    assert view.version > 2 * MAX_BOT_ACTIONS and len(view.winner_seats) == 2, view.version
    versions, after = [], 0
    while True:
        page = stubs[1].GetHistory(pb.GetHistoryRequest(game_id=game.game_id, after_version=after, page_size=5000),
                                   timeout=30)
        versions += [entry.version for entry in page.entries]
        after = page.next_after_version
        if not after:
            break
    assert versions == list(range(2, view.version + 1))   # every turn once, none lost in between


def test_leaving_hands_the_seat_to_its_bot_or_abandons_the_game(stubs):
    events = _Events(stubs[0])
    events.start()
    try:
        game = _new(stubs[0], variant="spades", humans=2)
        tokens = tokens_of(game)
        leave = pb.LeaveGameRequest(game_id=game.game_id, request_id=uuid.uuid4().hex)
        left = stubs[1].LeaveGame(leave, metadata=auth(tokens[1]), timeout=10)
        assert left.view.seats[1].presence == enums.PRESENCE_LEFT
        again = stubs[2].LeaveGame(leave, metadata=auth(tokens[1]), timeout=10)  # its token is void now
        assert again == left  # a retry of the leave is answered as the first time
        with pytest.raises(grpc.RpcError) as void:
            stubs[0].GetGame(pb.GetGameRequest(game_id=game.game_id), metadata=auth(tokens[1]), timeout=10)
        assert void.value.code() == grpc.StatusCode.UNAUTHENTICATED
        play_to_end(stubs[2], game.game_id, {0: tokens[0]}, random.Random(5))  # the bot plays seat 1 on

        abandoned = _new(stubs[0], variant="spades", humans=2, abandon=True)
        tokens = tokens_of(abandoned)
        over = stubs[2].LeaveGame(pb.LeaveGameRequest(game_id=abandoned.game_id), metadata=auth(tokens[0]),
                                  timeout=10).view
        assert over.phase == enums.PHASE_GAME_OVER and over.abandoned and over.winner_side == 1
        assert over.status == enums.GAME_STATUS_FINISHED
        with pytest.raises(grpc.RpcError) as late:
            stubs[0].Act(pb.ActRequest(game_id=abandoned.game_id, action="deal"), metadata=auth(tokens[1]),
                         timeout=10)
        assert late.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        _wait(lambda: [e.kind for e in events.of(abandoned.game_id)] == [lc.EVENT_KIND_LEAVE, lc.EVENT_KIND_GAME_OVER],
              10, "no leave and game-over events")
        standings = events.of(abandoned.game_id)[1].standings
        assert standings.abandoned and standings.left_seat == 0 and standings.winner_side == 1
    finally:
        events.stop()


def test_events_tell_each_hand_and_the_end_once_in_order_and_resume(stubs):
    events = _Events(stubs[0])
    events.start()
    try:
        game = _new(stubs[1], variant="buck_euchre", labels={"watch": "me"})
        play_to_end(stubs[1], game.game_id, tokens_of(game), random.Random(8))
        score = stubs[0].GetScore(pb.GetScoreRequest(game_id=game.game_id, page_size=500), timeout=10)
        _wait(lambda: any(e.kind == lc.EVENT_KIND_GAME_OVER for e in events.of(game.game_id)), 10, "no game over")
    finally:
        events.stop()
    mine = events.of(game.game_id)
    assert [e.sequence for e in mine] == list(range(1, len(mine) + 1))
    hands = [e.hand for e in mine if e.kind == lc.EVENT_KIND_HAND_END]
    assert hands == list(score.hands) and mine[-1].kind == lc.EVENT_KIND_GAME_OVER
    assert mine[-1].standings.winner_side == score.winner_side and dict(mine[-1].labels) == {"watch": "me"}
    resumed = _Events(stubs[2], after_id=mine[1].id)
    resumed.start()
    try:
        _wait(lambda: len(resumed.of(game.game_id)) == len(mine) - 2, 10, "resume did not deliver the rest")
    finally:
        resumed.stop()
    assert [e.id for e in resumed.of(game.game_id)] == [e.id for e in mine[2:]]


def test_history_hides_the_hand_in_play_and_replays_the_whole_game_after(stubs):
    game = _new(stubs[0], variant="spades", humans=4)
    tokens = tokens_of(game)
    rng = random.Random(11)
    for _ in range(400):  # play into the second hand
        seat, view = acting_seat(stubs[0], game.game_id, tokens)
        if view.hand_number == 2 and view.phase == enums.PHASE_PLAY:
            break
        stubs[0].Act(pb.ActRequest(game_id=game.game_id, action=notation_for(choose(view, rng), rng=rng)),
                     metadata=auth(tokens[seat]), timeout=10)
    during = stubs[1].GetHistory(pb.GetHistoryRequest(game_id=game.game_id), timeout=10)
    deals = [e for e in during.entries if e.action == "deal"]
    assert len(deals) == 2 and deals[0].deck and not deals[1].deck and not deals[1].salt
    first = stubs[0].GetScore(pb.GetScoreRequest(game_id=game.game_id), timeout=10).hands[0]
    assert (deals[0].salt, " ".join(deals[0].deck)) == (first.salt, first.deck)
    assert hashlib.sha256(f"{deals[0].salt}:{' '.join(deals[0].deck)}".encode()).hexdigest() == first.commitment
    play_to_end(stubs[0], game.game_id, tokens, random.Random(12))
    after = stubs[2].GetHistory(pb.GetHistoryRequest(game_id=game.game_id), timeout=10)
    while after.next_after_version:  # a whole Spades game may run past one page of 1000 entries
        page = stubs[2].GetHistory(pb.GetHistoryRequest(game_id=game.game_id,
                                                        after_version=after.next_after_version), timeout=10)
        after.entries.extend(page.entries)
        after.next_after_version = page.next_after_version
    assert [e.version for e in after.entries] == list(range(2, after.version + 1))
    assert all(e.deck for e in after.entries if e.action == "deal")
    log = [engine.LogEntry(e.seat, requests.act_action(e.action, engine.new_game("spades", first_dealer=0)),
                           engine.Chance(tuple(engine.parse_card(c) for c in e.deck), e.salt) if e.deck else None)
           for e in after.entries if e.action]
    replayed = engine.replay("spades", None, after.first_dealer, log)
    final = stubs[0].GetScore(pb.GetScoreRequest(game_id=game.game_id, page_size=500), timeout=10)
    assert replayed.scores == [t.score for t in final.totals] and replayed.phase == engine.Phase.GAME_OVER


def test_rematch_takes_the_seats_and_labels_into_a_new_game(stubs):
    game = _new(stubs[0], humans=2, labels={"series": "s1"}, players={0: "ann", 1: "bob"})
    request = pb.RematchRequest(game_id=game.game_id, request_id=uuid.uuid4().hex)
    again = stubs[1].Rematch(request, metadata=key(), timeout=10)
    assert again.game_id != game.game_id and sorted(t.seat for t in again.seat_tokens) == [0, 1]
    assert again.view.game_id == again.game_id and again.view.status != enums.GAME_STATUS_FINISHED  # a bot may deal
    assert stubs[2].Rematch(request, metadata=key(), timeout=10) == again  # a retry: the same game and tokens
    view = stubs[0].GetGame(pb.GetGameRequest(game_id=again.game_id), timeout=10).view
    assert dict(view.labels) == {"series": "s1"} and [s.external_player_id for s in view.seats][:2] == ["ann", "bob"]
    with pytest.raises(grpc.RpcError) as foreign:
        stubs[0].Rematch(pb.RematchRequest(game_id=game.game_id), metadata=key(OTHER_KEY), timeout=10)
    assert foreign.value.code() == grpc.StatusCode.NOT_FOUND


def test_a_server_without_keys_keeps_every_game_under_one_open_owner(stub):
    created = create(stub, "buck_euchre", first_dealer=0, labels={"open": uuid.uuid4().hex})
    listed = stub.ListGames(pb.ListGamesRequest(labels=dict(created.view.labels)), timeout=10)
    assert [g.game_id for g in listed.games] == [created.game_id]


def test_the_strong_bot_stands_in_for_a_seat_whose_turn_timed_out(stubs):
    seats = [pb.SeatConfig(name="you", fallback=enums.PLAYER_KIND_BOT_STRONG)] + [pb.SeatConfig(kind=BASIC)] * 3
    game = stubs[0].CreateGame(pb.CreateGameRequest(
        variant_name="buck_euchre", seats=seats, first_dealer=0, lifecycle=lc.LifecycleOptions(turn_timeout_ms=200)),
        metadata=key(), timeout=10)
    deadline = time.monotonic() + 15
    while (view := stubs[1].GetGame(pb.GetGameRequest(game_id=game.game_id), timeout=10).view).seats[0].timeouts < 2:
        assert time.monotonic() < deadline, "the strong fallback did not play the timed-out turns"
        time.sleep(0.1)
    history = stubs[2].GetHistory(pb.GetHistoryRequest(game_id=game.game_id), timeout=10)
    assert [e.version for e in history.entries if e.note == "timeout"][:2] and view.hand_number >= 1
