"""The Python client (cardgame.client) against a live server on Redis: every method, typed errors
with their reasons, request ids reused on retry, and a watch that survives a server restart."""

from __future__ import annotations

import contextlib
import random
import threading
import time
from concurrent import futures

import grpc
import pytest

from cardgame import errors
from cardgame.client import CreatedGame, GameClient
from cardgame.retry import DEFAULT_RETRY_POLICY
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from testkit.launcher import ServerProcess, closed_port
from tests.clients.lost import LostAnswer
from tests.conftest import SERVER_TEST_FLAGS

SUIT_LETTERS = {enums.SUIT_CLUBS: "C", enums.SUIT_DIAMONDS: "D", enums.SUIT_HEARTS: "H", enums.SUIT_SPADES: "S"}
CALL_KINDS = {enums.ACTION_KIND_ORDER_UP: "order-up", enums.ACTION_KIND_PASS: "pass",
              enums.ACTION_KIND_STAY_IN: "stay", enums.ACTION_KIND_DROP_OUT: "drop",
              enums.ACTION_KIND_DOUBLE_NIL: "double-nil"}


# ---- helpers ----

def take(seat: GameClient, view, action, rng: random.Random, used: set[str]):
    """Perform ``action`` through the wrapper method made for it; records the method's name."""
    game, kind = view.game_id, action.kind
    if kind == enums.ACTION_KIND_PLAY:
        used.add("play")
        return seat.play(game, action.card)
    if kind == enums.ACTION_KIND_BID:
        used.add("bid")
        return seat.bid(game, action.tricks)
    if kind == enums.ACTION_KIND_NAME_SUIT:
        used.add("bid name")
        return seat.bid(game, suit=SUIT_LETTERS[action.suit])
    if kind in CALL_KINDS:
        used.add(f"bid {CALL_KINDS[kind]}")
        return seat.bid(game, kind=CALL_KINDS[kind])
    if kind == enums.ACTION_KIND_DEAL:
        used.add("deal")
        return seat.deal(game)
    if kind == enums.ACTION_KIND_REVEAL:
        used.add("reveal_hand")
        return seat.reveal_hand(game)
    if kind in (enums.ACTION_KIND_DRAW_KEEP, enums.ACTION_KIND_DRAW_DISCARD):
        used.add("draw")
        return seat.draw(game, keep=kind == enums.ACTION_KIND_DRAW_KEEP)
    if kind == enums.ACTION_KIND_EXCHANGE:
        used.add("exchange")
        return seat.exchange(game, rng.sample(list(action.cards), action.max_cards))
    raise AssertionError(f"unexpected action {action}")


def pick(view, rng: random.Random, first_hand: bool):
    """A legal action: seat 0 bids Double Nil and orders up when offered in the first hand, low bids, else random."""
    actions = list(view.legal_actions)
    kinds = {a.kind: a for a in actions}
    for wanted in (enums.ACTION_KIND_DOUBLE_NIL, enums.ACTION_KIND_ORDER_UP):
        if first_hand and view.viewer_seat == 0 and wanted in kinds:
            return kinds[wanted]
    low, high = (4, 7) if view.variant == enums.VARIANT_SPADES_TWO_PLAYER else (1, 3)
    bids = [a for a in actions if a.kind == enums.ACTION_KIND_BID and low <= a.tricks <= high]
    if bids:
        return kinds.get(enums.ACTION_KIND_REVEAL) if rng.random() < 0.3 and enums.ACTION_KIND_REVEAL in kinds \
            else rng.choice(bids)
    plain = [a for a in actions if a.kind not in (enums.ACTION_KIND_REVEAL, enums.ACTION_KIND_DOUBLE_NIL)]
    return rng.choice(plain or actions)


def next_actor(client: GameClient, created: CreatedGame, seats: dict[int, GameClient]):
    """(seat client, its view) of a seat that has something to do, or (None, spectator view) at the end."""
    spectator = client.get_game(created.game_id)
    if spectator.phase == enums.PHASE_GAME_OVER:
        return None, spectator
    order = [spectator.turn] if spectator.HasField("turn") else sorted(seats)
    for number in order:
        view = seats[number].get_game(created.game_id)
        if any(a.kind != enums.ACTION_KIND_REVEAL for a in view.legal_actions):
            return seats[number], view
    raise AssertionError("nobody can act")


def human_names(count: int) -> list[str]:
    """Names for an all-human table."""
    return [f"P{i}" for i in range(count)]


# ---- whole games through every method ----

@pytest.mark.parametrize("variant,seats,options,expected", [
    ("spades", 4, {"target_score": 100},
     {"deal", "reveal_hand", "bid", "bid double-nil", "exchange", "play"}),
    ("spades2", 2, {"target_score": 100}, {"deal", "draw", "bid", "bid double-nil", "exchange", "play"}),
    ("buck-euchre", 4, {"starting_score": 8},
     {"deal", "bid order-up", "bid pass", "bid stay", "exchange", "play"}),
])
def test_whole_game_through_every_wrapper_method(client, variant, seats, options, expected):
    created = client.create_game(variant, human_names(seats), options=options, first_dealer=0, shuffle_seed=7)
    assert isinstance(created, CreatedGame) and sorted(created.tokens) == list(range(seats))
    assert created.view.game_id == created.game_id and not created.view.HasField("viewer_seat")
    players = {seat: client.with_token(token) for seat, token in created.tokens.items()}
    rng, used, moves = random.Random(variant), set(), 0
    while True:
        seat, view = next_actor(client, created, players)
        if seat is None:
            break
        action = pick(view, rng, first_hand=view.hand_number <= 1)
        after = take(seat, view, action, rng, used)
        assert after.version > view.version and after.viewer_seat == view.viewer_seat
        moves += 1
        assert moves < 3000
    assert expected <= used, f"methods not exercised: {expected - used}"
    score = client.get_score(created.game_id)
    assert score.hands and score.HasField("winner_side") and list(score.winner_seats)
    assert view.phase == enums.PHASE_GAME_OVER and view.winner_side == score.winner_side


class RecordMethods(grpc.UnaryUnaryClientInterceptor):
    """Forwards every call and records the name of its method."""

    def __init__(self):
        self.methods: list[str] = []

    def intercept_unary_unary(self, continuation, client_call_details, request):
        """Record the method's name and forward the call."""
        self.methods.append(client_call_details.method.rsplit("/", 1)[-1])
        return continuation(client_call_details, request)


@pytest.mark.parametrize("variant,seats,options,expected", [
    ("spades", 4, {"target_score": 100}, {enums.ACTION_KIND_DEAL, enums.ACTION_KIND_BID,
                                           enums.ACTION_KIND_DOUBLE_NIL, enums.ACTION_KIND_EXCHANGE}),
    ("spades2", 2, {"target_score": 100}, {enums.ACTION_KIND_DEAL, enums.ACTION_KIND_BID,
                                            enums.ACTION_KIND_DOUBLE_NIL, enums.ACTION_KIND_EXCHANGE}),
    ("buck-euchre", 4, {"starting_score": 8}, {enums.ACTION_KIND_DEAL, enums.ACTION_KIND_ORDER_UP,
                                                enums.ACTION_KIND_EXCHANGE}),
])
def test_whole_game_only_through_act(server, variant, seats, options, expected):
    recorder = RecordMethods()
    with GameClient(server.address, interceptors=[recorder]) as client:
        created = client.create_game(variant, human_names(seats), options=options, first_dealer=0, shuffle_seed=21)
        players = {seat: client.with_token(token) for seat, token in created.tokens.items()}
        rng, kinds, moves = random.Random(f"act-{variant}"), set(), 0
        while True:
            seat, view = next_actor(client, created, players)
            if seat is None:
                break
            action = pick(view, rng, first_hand=view.hand_number <= 1)
            kinds.add(action.kind)
            if action.kind == enums.ACTION_KIND_EXCHANGE and rng.random() < 0.5:
                count = rng.randint(action.min_cards, action.max_cards)
                after = seat.act(view.game_id, "exchange", rng.sample(list(action.cards), count))
            elif action.kind == enums.ACTION_KIND_EXCHANGE:
                after = seat.act(view, action)  # a random allowed choice of cards
            elif rng.random() < 0.5:
                after = seat.act(view.game_id, action.notation)
            else:
                after = seat.act(view, action, expected_version=view.version)
            assert after.version > view.version and after.viewer_seat == view.viewer_seat
            moves += 1
            assert moves < 3000
    assert view.phase == enums.PHASE_GAME_OVER and view.HasField("winner_side") and list(view.winner_seats)
    assert expected | {enums.ACTION_KIND_PLAY} <= kinds
    assert set(recorder.methods) == {"CreateGame", "GetGame", "Act"}
    assert recorder.methods.count("Act") == moves


def test_get_game_shows_the_seat_its_hand_and_legal_actions(client):
    created = client.create_game("buck-euchre", ["Me", ("B1", "basic"), ("B2", "random"), ("B3", "basic")],
                                 first_dealer=3)
    assert list(created.tokens) == [0]
    seat = client.with_token(created.tokens[0])
    view = seat.get_game(created.game_id)
    assert view.viewer_seat == 0 and view.hand_visible and len(view.hand) == 5
    assert [s.kind for s in view.seats] == [enums.PLAYER_KIND_HUMAN, enums.PLAYER_KIND_BOT_BASIC,
                                            enums.PLAYER_KIND_BOT_RANDOM, enums.PLAYER_KIND_BOT_BASIC]
    assert view.legal_actions and not client.get_game(created.game_id).legal_actions
    after = seat.act(view, view.legal_actions[0])
    assert after.version > view.version
    assert client.get_score(created.game_id).totals[0].score == 25


def test_views_carry_the_game_name_and_its_own_part(client):
    for variant, name, rules, seat_rules in [("spades", "spades", "spades", "spades"),
                                             ("spades2", "spades2", "spades_two_player", "spades"),
                                             ("buck-euchre", "buck_euchre", "buck_euchre", "buck_euchre")]:
        created = client.create_game(variant, human_names(2 if variant == "spades2" else 4), first_dealer=0)
        view = client.with_token(created.tokens[0]).deal(created.game_id)
        assert (view.variant_name, view.WhichOneof("rules")) == (name, rules)
        assert {seat.WhichOneof("rules") for seat in view.seats} == {seat_rules}
    assert view.buck_euchre.turn_up and not view.buck_euchre.HasField("maker")
    with pytest.raises(errors.InvalidArgument):
        client.create_game("no_such_game", human_names(4))
    with pytest.raises(errors.InvalidArgument):
        client.with_token(created.tokens[1]).act(created.game_id, "fly")


def test_with_token_shares_the_channel_and_close_keeps_it_open(server):
    with GameClient(server.address) as owner:
        created = owner.create_game("spades2", ["A", ("Bot", "basic")], first_dealer=0)
        seat = owner.with_token(created.tokens[0])
        assert seat._raw_channel is owner._raw_channel and seat.token == created.tokens[0]
        with seat:
            pass  # closing a derived client leaves the shared channel open
        assert seat.deal(created.game_id).phase == enums.PHASE_DRAW


def test_options_and_expected_version(client):
    created = client.create_game("spades", human_names(4), options={"target_score": 200, "double_nil_allowed": False},
                                 first_dealer=0)
    dealer = client.with_token(created.tokens[0])
    assert created.view.options.spades.target_score == 200
    with pytest.raises(errors.Aborted) as caught:
        dealer.deal(created.game_id, expected_version=created.view.version + 5)
    assert caught.value.code == grpc.StatusCode.ABORTED and caught.value.reason is None
    view = dealer.deal(created.game_id, expected_version=created.view.version)
    assert view.phase == enums.PHASE_BID
    assert not any(a.kind == enums.ACTION_KIND_DOUBLE_NIL for a in client.with_token(created.tokens[1])
                   .get_game(created.game_id).legal_actions)


# ---- errors ----

def spades_deck() -> list[str]:
    """A deck for dealer 0 giving seat 1: C2-C7 D2-D7 S2, seat 2: C8-CA D8-DK, seat 3: H2-HK DA, seat 0: S3-SA HA."""
    ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    hands = {1: [r + "C" for r in ranks[:6]] + [r + "D" for r in ranks[:6]] + ["2S"],
             2: [r + "C" for r in ranks[6:]] + [r + "D" for r in ranks[6:12]],
             3: [r + "H" for r in ranks[:12]] + ["AD"],
             0: [r + "S" for r in ranks[1:]] + ["AH"]}
    deck = []
    for i in range(13):
        for seat in (1, 2, 3, 0):  # one card at a time clockwise from the dealer's left
            deck.append(hands[seat][i])
    assert len(set(deck)) == 52
    return deck


def raises(error_class: type[errors.GameError], call, *args, **kwargs) -> errors.GameError:
    """Call and return the error, asserting its class."""
    with pytest.raises(error_class) as caught:
        call(*args, **kwargs)
    return caught.value


def test_illegal_moves_raise_classes_that_carry_the_reason(client):
    created = client.create_game("spades", human_names(4), first_dealer=0, decks=[spades_deck()])
    game = created.game_id
    p = {seat: client.with_token(token) for seat, token in created.tokens.items()}
    error = raises(errors.WrongPhase, p[1].play, game, "2C")
    assert error.reason == "WRONG_PHASE" and error.code == grpc.StatusCode.FAILED_PRECONDITION
    p[0].deal(game)
    error = raises(errors.NotYourTurn, p[2].bid, game, 3)
    assert (error.reason, error.code) == ("NOT_YOUR_TURN", grpc.StatusCode.FAILED_PRECONDITION)
    assert isinstance(error, errors.IllegalMove) and isinstance(error, errors.GameError)
    assert "NOT_YOUR_TURN" in str(error) and error.message
    assert raises(errors.InvalidBid, p[1].bid, game, 14).reason == "INVALID_BID"
    p[1].reveal_hand(game)
    assert raises(errors.BlindNilAfterLooking, p[1].bid, game, kind="double-nil").reason == "BLIND_NIL_AFTER_LOOKING"
    for seat in (1, 2, 3, 0):
        p[seat].bid(game, 2)
    error = raises(errors.NotYourTurn, p[2].play, game, "8C")
    assert error.reason == "NOT_YOUR_TURN"
    assert raises(errors.SpadesNotBroken, p[1].play, game, "2S").reason == "SPADES_NOT_BROKEN"
    assert raises(errors.CardNotInHand, p[1].play, game, "AS").reason == "CARD_NOT_IN_HAND"
    p[1].play(game, "2C")
    error = raises(errors.MustFollowSuit, p[2].play, game, "8D")
    assert error.reason == "MUST_FOLLOW_SUIT" and "follow" in error.describe().lower()
    assert raises(errors.WrongPhase, p[0].deal, game).reason == "WRONG_PHASE"
    # status errors carry no reason
    assert raises(errors.InvalidArgument, p[2].play, game, "ZZ").reason is None
    assert raises(errors.PermissionDenied, client.play, game, "8C").code == grpc.StatusCode.PERMISSION_DENIED
    assert raises(errors.Unauthenticated, client.with_token("not-a-token").play, game, "8C").reason is None
    assert raises(errors.NotFound, client.get_game, "0" * 24).code == grpc.StatusCode.NOT_FOUND
    assert p[2].play(game, "8C").current_trick.plays[-1].card == "8C"


def euchre_game(client: GameClient) -> tuple[str, dict[int, GameClient]]:
    """A dealt Buck Euchre game, dealer 0, with the 9 of hearts turned up; (game id, seat clients)."""
    cards = [f"{r}{s}" for s in "CDHS" for r in ("9", "10", "J", "Q", "K", "A")]
    cards.remove("9H")
    created = client.create_game("buck-euchre", human_names(4), first_dealer=0,
                                 decks=[cards[:20] + ["9H"] + cards[20:]])
    p = {seat: client.with_token(token) for seat, token in created.tokens.items()}
    p[0].deal(created.game_id)
    return created.game_id, p


def test_buck_euchre_reasons(client):
    game, p = euchre_game(client)
    for seat in (1, 2, 3, 0):
        p[seat].bid(game, kind="pass")
    error = raises(errors.SuitTurnedDown, p[1].bid, game, suit="H")
    assert error.reason == "SUIT_TURNED_DOWN" and isinstance(error, errors.IllegalMove)
    view = p[1].bid(game, suit="S")
    assert view.buck_euchre.trump == enums.SUIT_SPADES and view.buck_euchre.maker == 1
    assert view.phase == enums.PHASE_DROP_OUT and view.seats[1].last_call == "name S"

    game, p = euchre_game(client)
    view = p[1].bid(game, kind="order-up")
    assert view.buck_euchre.maker == 1 and view.phase == enums.PHASE_DEALER_DISCARD
    hand = p[0].get_game(game).hand
    assert raises(errors.InvalidExchange, p[0].exchange, game, list(hand[:2])).reason == "INVALID_EXCHANGE"
    assert p[0].exchange(game, [hand[0]]).phase == enums.PHASE_DROP_OUT


def test_every_reason_maps_to_its_own_class():
    reasons = ["WRONG_PHASE", "NOT_YOUR_TURN", "CARD_NOT_IN_HAND", "MUST_FOLLOW_SUIT", "SPADES_NOT_BROKEN",
               "INVALID_BID", "BLIND_NIL_AFTER_LOOKING", "INVALID_EXCHANGE", "SUIT_TURNED_DOWN",
               "MAKER_CANNOT_DROP", "CANNOT_DROP_ON_CLUBS"]
    classes = {type(errors.error_for(grpc.StatusCode.FAILED_PRECONDITION, "x", r)) for r in reasons}
    assert len(classes) == 11 and all(issubclass(c, errors.IllegalMove) for c in classes)
    for reason in reasons:
        error = errors.error_for(grpc.StatusCode.FAILED_PRECONDITION, "msg", reason)
        assert error.reason == reason and error.code == grpc.StatusCode.FAILED_PRECONDITION
    assert type(errors.error_for(grpc.StatusCode.FAILED_PRECONDITION, "x", "NEW_REASON")) is errors.IllegalMove
    assert type(errors.error_for(grpc.StatusCode.DATA_LOSS, "x")) is errors.GameError


def test_unreachable_server_and_deadlines():
    started = time.monotonic()
    with closed_port() as port, GameClient(f"127.0.0.1:{port}", timeout=0.5, retries=2) as nowhere:
        error = raises(errors.Unavailable, nowhere.get_game, "0" * 24)
    assert error.code == grpc.StatusCode.UNAVAILABLE and time.monotonic() - started < 10
    assert GameClient.__init__.__kwdefaults__ == {"timeout": 5.0, "retries": 3, "channel": None, "interceptors": (),
                                               "api_key": None, "retry_policy": DEFAULT_RETRY_POLICY}


@contextlib.contextmanager
def get_score_server(answer):
    """A server of GetScore alone, answering with ``answer(request, context)``; its address."""
    handler = grpc.method_handlers_generic_handler("cardgame.v1.GameService", {
        "GetScore": grpc.unary_unary_rpc_method_handler(
            answer, request_deserializer=pb.GetScoreRequest.FromString,
            response_serializer=pb.GetScoreResponse.SerializeToString)})
    made = grpc.server(futures.ThreadPoolExecutor(max_workers=4), handlers=[handler])
    port = made.add_insecure_port("127.0.0.1:0")
    made.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        made.stop(0)


def test_a_slow_server_is_deadline_exceeded_after_retries():
    calls = []

    def slow_get_score(request, context):
        """Answer GetScore after a second."""
        calls.append(request.game_id)
        time.sleep(1.0)
        return pb.GetScoreResponse()

    with get_score_server(slow_get_score) as address:
        started = time.monotonic()
        with GameClient(address, timeout=0.3, retries=1) as hurried:
            error = raises(errors.DeadlineExceeded, hurried.get_score, "0" * 24)
        assert error.code == grpc.StatusCode.DEADLINE_EXCEEDED and 0.6 <= time.monotonic() - started < 5
        assert calls == ["0" * 24] * 2


def test_a_call_a_stopping_server_cancelled_is_sent_again():
    """A gRPC server that stops cancels the calls it has received and not yet begun: the client
    sends such a call again (to another instance behind a balancer), as it does UNAVAILABLE."""
    calls = []

    def cancelled_once(request, context):
        """Answer CANCELLED the first time, as a stopping server does, then the score."""
        calls.append(request.game_id)
        if len(calls) == 1:
            context.abort(grpc.StatusCode.CANCELLED, "Server Shutdown")
        return pb.GetScoreResponse()

    with get_score_server(cancelled_once) as address, GameClient(address, retries=1) as client:
        assert client.get_score("0" * 24) == pb.GetScoreResponse()
    assert calls == ["0" * 24] * 2


# ---- request ids and retries ----

class LoseFirstAnswer(grpc.UnaryUnaryClientInterceptor):
    """Forwards every call and records it; the first answer of an Act whose action starts with ``action`` is lost."""

    def __init__(self, action: str):
        self.action = action
        self.sent: list[tuple[str, str, str]] = []
        self.lost = False

    def intercept_unary_unary(self, continuation, client_call_details, request):
        """Record the call (method, action, request id), forward it, and lose the first matching answer."""
        name = client_call_details.method.rsplit("/", 1)[-1]
        action = getattr(request, "action", "")
        self.sent.append((name, action, getattr(request, "request_id", "")))
        outcome = continuation(client_call_details, request)
        if name == "Act" and action.startswith(self.action) and not self.lost:
            outcome.result()  # the server has applied the move...
            self.lost = True
            raise LostAnswer()  # ...but the answer never arrives
        return outcome


def test_a_retry_reuses_the_request_id_and_the_move_is_applied_once(server):
    interceptor = LoseFirstAnswer("bid ")
    with GameClient(server.address, interceptors=[interceptor]) as client:
        created = client.create_game("spades", human_names(4), first_dealer=0)
        game = created.game_id
        p = {seat: client.with_token(token) for seat, token in created.tokens.items()}
        before = p[0].deal(game)
        view = p[1].bid(game, 4)  # first answer lost, retried with the same id
        bids = [(action, rid) for name, action, rid in interceptor.sent if name == "Act" and action != "deal"]
        assert len(bids) == 2 and bids[0] == bids[1] and bids[0][0] == "bid 4" and len(bids[0][1]) == 32
        assert view.version == before.version + 1 == client.get_game(game).version
        assert view.seats[1].bid_tricks == 4 and view.turn == 2
        p[2].bid(game, 3)
        ids = [rid for name, _, rid in interceptor.sent if name in ("Act", "CreateGame")]
        assert len(set(ids)) == len(ids) - 1  # every call has its own id; only the retry repeats one
        assert {name for name, _, _ in interceptor.sent} == {"CreateGame", "Act", "GetGame"}


def test_the_same_request_id_twice_returns_the_first_answer(client):
    created = client.create_game("spades", human_names(4), first_dealer=0, request_id="create-once-" + str(time.time()))
    game = created.game_id
    dealer = client.with_token(created.tokens[0])
    first = dealer.deal(game, request_id="deal-1")
    again = dealer.deal(game, request_id="deal-1")  # a second Deal would be WRONG_PHASE
    assert again == first
    seat1 = client.with_token(created.tokens[1])
    assert seat1.bid(game, 2, request_id="bid-1") == seat1.bid(game, 2, request_id="bid-1")
    assert client.get_game(game).version == first.version + 1


# ---- watch ----

def wait_until(condition, what: str, seconds: float = 10.0) -> None:
    """Poll ``condition`` until it is true; fail naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_watch_resumes_after_the_server_restarts(redis_url, module_prefix):
    flags = dict(redis_url=redis_url, prefix=module_prefix + "-restart")
    first = ServerProcess(*SERVER_TEST_FLAGS, **flags).start()
    second = None
    try:
        with GameClient(first.address) as setup:
            created = setup.create_game("buck-euchre", ["Me", ("W", "basic"), ("N", "basic"), ("E", "basic")],
                                        options={"starting_score": 10}, first_dealer=0, shuffle_seed=5)
        game = created.game_id
        seen: list = []
        failure: list[BaseException] = []

        def watch() -> None:
            """Collect the seat's views until the game is over."""
            try:
                with GameClient(first.address, created.tokens[0]) as watcher:
                    for view in watcher.watch(game, reconnect_timeout=30):
                        seen.append(view)
            except BaseException as exc:  # reported by the main thread
                failure.append(exc)

        thread = threading.Thread(target=watch, daemon=True)
        thread.start()
        wait_until(lambda: seen, "the watch's first view")
        rng = random.Random(5)
        with GameClient(first.address, created.tokens[0], retries=6) as me:
            view = me.get_game(game)
            for _ in range(3):
                view = me.act(view, rng.choice(list(view.legal_actions)))
            wait_until(lambda: seen[-1].version == view.version, "the views before the restart")
            before_restart = view.version
            first.proc.kill()  # a crash: no goodbye to the stream
            first.proc.wait()
            second = ServerProcess(*SERVER_TEST_FLAGS, port=first.port, **flags).start()
            while view.phase != enums.PHASE_GAME_OVER:
                view = me.act(view, rng.choice(list(view.legal_actions)))
        thread.join(30)
        assert not thread.is_alive() and not failure, failure
        versions = [v.version for v in seen]
        assert versions == sorted(set(versions)), "duplicates or going back"
        assert versions[0] == 1 and versions[-1] == view.version and seen[-1].phase == enums.PHASE_GAME_OVER
        assert any(v <= before_restart for v in versions) and any(v > before_restart for v in versions)
        assert all(v.viewer_seat == 0 for v in seen)
    finally:
        first.stop()
        if second is not None:
            second.stop()


def test_watch_from_a_version_skips_what_was_seen(client):
    created = client.create_game("spades2", ["A", ("Bot", "basic")], first_dealer=1)
    view = client.with_token(created.tokens[0]).get_game(created.game_id)
    stream = client.watch(created.game_id, from_version=view.version - 1)
    assert next(stream).version == view.version
    stream.close()


def test_a_busy_server_answers_resource_exhausted_and_the_client_retries(redis_url, module_prefix):
    with ServerProcess("--max-concurrent-rpcs", "1", redis_url=redis_url, prefix=f"{module_prefix}-busy") as proc:
        with GameClient(proc.address, retries=8) as client:
            game = client.create_game("spades", ["Ann", "Bo", "Cy", "Di"], first_dealer=0)
            with grpc.insecure_channel(proc.address) as channel:
                stream = channel.unary_stream("/cardgame.v1.GameService/WatchGame")(
                    pb.WatchGameRequest(game_id=game.game_id).SerializeToString(), timeout=10)
                next(stream)                                     # the stream holds the only slot
                plain = channel.unary_unary("/cardgame.v1.GameService/GetGame")
                with pytest.raises(grpc.RpcError) as info:
                    plain(pb.GetGameRequest(game_id=game.game_id).SerializeToString(), timeout=5)
                assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                threading.Timer(0.5, stream.cancel).start()       # the slot frees up shortly
                view = client.with_token(game.tokens[0]).deal(game.game_id)
            assert view.phase == enums.PHASE_BID and view.version == 2   # retried, applied once
