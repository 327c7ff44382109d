"""A small typed, synchronous wrapper around the generated GameService stub.

Every move goes through the Act RPC, by the notation of the action ("play AS", "bid 4", "pass",
"exchange 2C 3D"). Every mutating call gets a fresh ``request_id`` that is reused on each retry,
so a retry after a lost answer never applies a move twice. Retries come in two layers: the
channel's gRPC retry policy (:mod:`cardgame.retry`; ``retry_policy``, None = off) retries an
attempt refused as UNAVAILABLE or RESOURCE_EXHAUSTED within the call's deadline, and ``send``
retries the whole call ``retries`` times with a fresh deadline, waiting as RetryInfo says. Failures are raised as
:mod:`cardgame.errors` exceptions that carry the ErrorInfo reason. A backend's calls (listing,
deleting, reissuing tokens, events, rematches) send the client's ``api_key``.

>>> variant_of("buck-euchre") == variant_of("VARIANT_BUCK_EUCHRE") == enums.VARIANT_BUCK_EUCHRE
True
>>> bid_notation(4), bid_notation(kind="double-nil"), bid_notation(suit="hearts"), bid_notation(kind="stay")
('bid 4', 'double-nil', 'name H', 'stay')
>>> [seat.kind for seat in seat_configs(["You", ("Bot", "basic")])] == [
...     enums.PLAYER_KIND_HUMAN, enums.PLAYER_KIND_BOT_BASIC]
True
>>> seat = seat_configs([{"name": "Ann", "external_player_id": "u-17", "fallback": "random"}])[0]
>>> seat.external_player_id, seat.fallback == enums.PLAYER_KIND_BOT_RANDOM
('u-17', True)
>>> lifecycle_options(turn_timeout_ms=30_000, leave_policy="abandon").leave_policy == lc.LEAVE_POLICY_ABANDON
True
>>> commitment("AS KS", "00ff") == hashlib.sha256(b"00ff:AS KS").hexdigest()
True
"""

from __future__ import annotations

import contextlib
import hashlib
import random
import threading
import time
import uuid
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc

from cardgame import errors, games
from cardgame.moves import notation_for
from cardgame.retry import DEFAULT_RETRY_POLICY, RetryPolicy, channel_options
from cardgame.v1 import catalog_pb2, options_pb2, view_pb2
from cardgame.v1 import enums_pb2 as enums
from cardgame.v1 import game_service_pb2 as pb
from cardgame.v1 import game_service_pb2_grpc as pb_grpc
from cardgame.v1 import lifecycle_pb2 as lc

GameView = view_pb2.GameView
LegalAction = view_pb2.LegalAction
Event = lc.Event
GameSummary = lc.GameSummary
# A seat of create_game: a name (a human), a (name, kind) pair, a mapping of SeatConfig fields
# (name, kind, external_player_id, fallback; kinds by name or value) or a SeatConfig.
SeatSpec = str | tuple[str, str | int] | Mapping[str, Any] | pb.SeatConfig

# Derived from the one table of games (cardgame.games), kept for callers that read them.
VARIANTS = {games.command_name(game): game.variant for game in games.GAMES if game.variant}
SEAT_COUNTS = {game.variant: game.seats for game in games.GAMES if game.variant}
KINDS = {"human": enums.PLAYER_KIND_HUMAN, "basic": enums.PLAYER_KIND_BOT_BASIC,
         "random": enums.PLAYER_KIND_BOT_RANDOM, "strong": enums.PLAYER_KIND_BOT_STRONG}
BID_KINDS = {"tricks": pb.BID_KIND_TRICKS, "double-nil": pb.BID_KIND_DOUBLE_NIL, "order-up": pb.BID_KIND_ORDER_UP,
             "pass": pb.BID_KIND_PASS, "name": pb.BID_KIND_NAME_SUIT, "stay": pb.BID_KIND_STAY_IN,
             "drop": pb.BID_KIND_DROP_OUT}
# The Act notation of each call (bids of tricks and named suits carry a number or a suit letter).
BID_NOTATIONS: dict[int, str] = {
    pb.BID_KIND_DOUBLE_NIL: "double-nil", pb.BID_KIND_ORDER_UP: "order-up", pb.BID_KIND_PASS: "pass",
    pb.BID_KIND_STAY_IN: "stay", pb.BID_KIND_DROP_OUT: "drop"}
LEAVE_POLICIES = {"bot-plays": lc.LEAVE_POLICY_BOT_PLAYS, "abandon": lc.LEAVE_POLICY_ABANDON}
STATUSES = {"waiting": enums.GAME_STATUS_WAITING, "in-play": enums.GAME_STATUS_IN_PLAY,
            "finished": enums.GAME_STATUS_FINISHED}
SEAT_FIELDS = frozenset({"name", "kind", "external_player_id", "fallback"})
SUITS = {"C": enums.SUIT_CLUBS, "D": enums.SUIT_DIAMONDS, "H": enums.SUIT_HEARTS, "S": enums.SUIT_SPADES}
SUIT_LETTERS: dict[int, str] = {value: letter for letter, value in SUITS.items()}
RETRYABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED,
                       grpc.StatusCode.RESOURCE_EXHAUSTED, grpc.StatusCode.CANCELLED})
# CANCELLED: this client never cancels a call, but a gRPC server that stops cancels the calls it had
# received and not yet begun (grpc/grpc#41785), so another instance may take it (request ids make
# every call safe to send again).
# Codes after which a watch stream is reopened: the server went away or the connection broke.
RECONNECTABLE = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED, grpc.StatusCode.INTERNAL,
                           grpc.StatusCode.UNKNOWN, grpc.StatusCode.DEADLINE_EXCEEDED})
CHANNEL_OPTIONS = [("grpc.initial_reconnect_backoff_ms", 100), ("grpc.min_reconnect_backoff_ms", 100),
                   ("grpc.max_reconnect_backoff_ms", 1000)]
BACKOFF_S = 0.2
MAX_BACKOFF_S = 2.0
MAX_RETRY_DELAY_S = 5.0  # a longer wait asked for by the server (RetryInfo) is raised to the caller
READY_POLL_S = 0.5  # a reconnecting stream looks this often whether its client was closed


@dataclass
class CreatedGame:
    """The result of create_game (and rematch): the game id, the token of every human seat and the
    spectator view (empty after a rematch, whose answer carries none: get_game gives it)."""

    game_id: str
    tokens: dict[int, str] = field(default_factory=dict)
    view: GameView = field(default_factory=GameView)


def variant_of(variant: str | int) -> int:
    """The Variant enum value of a game's name in any spelling the client knows ("spades2",
    "buck-euchre", "VARIANT_BUCK_EUCHRE", "Buck Euchre"; see cardgame.games) or of an enum value."""
    if isinstance(variant, int):
        return variant
    game = games.find(variant)
    if game is None or not game.variant:
        raise ValueError(f"unknown variant {variant!r}; choose one of {', '.join(VARIANTS)}")
    return game.variant


def suit_of(suit: str | int) -> int:
    """The Suit enum value of a suit letter ("C", "D", "H", "S") or of an enum value."""
    if isinstance(suit, int):
        return suit
    key = suit.strip().upper()[:1]
    if key not in SUITS:
        raise ValueError(f"unknown suit {suit!r}; choose C, D, H or S")
    return SUITS[key]


def bid_notation(tricks: int | None = None, *, kind: str | int | None = None, suit: str | int | None = None) -> str:
    """The Act notation of a bid or call, with the arguments of :meth:`GameClient.bid`."""
    if kind is None:
        kind = "name" if suit is not None else "tricks"
    kind = BID_KINDS[kind] if isinstance(kind, str) else kind
    if kind == pb.BID_KIND_TRICKS:
        if tricks is None:
            raise ValueError("a bid of tricks needs the number of tricks")
        return f"bid {tricks}"
    if kind == pb.BID_KIND_NAME_SUIT:
        if suit is None:
            raise ValueError("naming trump needs a suit")
        return f"name {SUIT_LETTERS[suit_of(suit)]}"
    if kind not in BID_NOTATIONS:
        raise ValueError(f"unknown bid kind {kind!r}")
    return BID_NOTATIONS[kind]


def kind_of(kind: str | int) -> int:
    """The PlayerKind value of a name (a key of KINDS: "human", "basic", "random", ...) or of an enum value."""
    if isinstance(kind, int):
        return kind
    key = kind.strip().lower()
    if key not in KINDS:
        raise ValueError(f"unknown player kind {kind!r}; choose one of {', '.join(KINDS)}")
    return KINDS[key]


def seat_configs(seats: Sequence[SeatSpec]) -> list[pb.SeatConfig]:
    """SeatConfig messages from names (humans), (name, kind) pairs, mappings of SeatConfig fields
    (``{"name": "Ann", "external_player_id": "u-17", "fallback": "random"}``) or SeatConfig messages."""
    result = []
    for seat in seats:
        if isinstance(seat, pb.SeatConfig):
            result.append(seat)
        elif isinstance(seat, str):
            result.append(pb.SeatConfig(name=seat, kind=enums.PLAYER_KIND_HUMAN))
        elif isinstance(seat, Mapping):
            unknown = set(seat) - SEAT_FIELDS
            if unknown:
                raise ValueError(f"unknown seat fields {sorted(unknown)}; a seat has {', '.join(sorted(SEAT_FIELDS))}")
            config = pb.SeatConfig(name=seat.get("name", ""), external_player_id=seat.get("external_player_id", ""))
            # protoc's stubs take only the enum type for an enum field; protobuf accepts any int
            config.kind = kind_of(seat.get("kind", "human"))  # type: ignore[assignment]
            if seat.get("fallback") is not None:
                config.fallback = kind_of(seat["fallback"])  # type: ignore[assignment]
            result.append(config)
        else:
            name, kind = seat
            result.append(pb.SeatConfig(name=name, kind=kind_of(kind)))  # type: ignore[arg-type]  # any int
    return result


def lifecycle_options(lifecycle: lc.LifecycleOptions | None = None, *, turn_timeout_ms: int | None = None,
                      timeouts_before_away: int | None = None, leave_policy: str | int | None = None
                      ) -> lc.LifecycleOptions | None:
    """A LifecycleOptions message from one (copied) and/or its fields; None when nothing is set.

    ``leave_policy`` is "bot-plays", "abandon" or a LeavePolicy value.
    """
    if lifecycle is None and turn_timeout_ms is None and timeouts_before_away is None and leave_policy is None:
        return None
    result = lc.LifecycleOptions()
    if lifecycle is not None:
        result.CopyFrom(lifecycle)
    if turn_timeout_ms is not None:
        result.turn_timeout_ms = turn_timeout_ms
    if timeouts_before_away is not None:
        result.timeouts_before_away = timeouts_before_away
    if isinstance(leave_policy, str):
        if leave_policy not in LEAVE_POLICIES:
            raise ValueError(f"unknown leave policy {leave_policy!r}; choose one of {', '.join(LEAVE_POLICIES)}")
        result.leave_policy = LEAVE_POLICIES[leave_policy]
    elif leave_policy is not None:
        result.leave_policy = leave_policy  # type: ignore[assignment]  # any int, as in seat_configs
    return result


def status_of(status: str | int | None) -> int:
    """The GameStatus value of a name ("waiting", "in-play", "finished"), of an enum value, or 0 for None."""
    if status is None or isinstance(status, int):
        return status or enums.GAME_STATUS_UNSPECIFIED
    key = status.strip().lower().replace("_", "-")
    if key not in STATUSES:
        raise ValueError(f"unknown game status {status!r}; choose one of {', '.join(STATUSES)}")
    return STATUSES[key]


def commitment(deck: str | Iterable[str], salt: str) -> str:
    """The deck commitment of a deal (lowercase hex SHA-256 of ``"<salt>:<deck>"``, the deck as card
    names from the top separated by spaces), to compare with a view's ``deck_commitment`` or a
    HandScore's ``commitment``."""
    text = deck if isinstance(deck, str) else " ".join(deck)
    return hashlib.sha256(f"{salt}:{text}".encode()).hexdigest()


def rule_options(variant: int | str, options: options_pb2.RuleOptions | Mapping[str, Any] | None
                 ) -> options_pb2.RuleOptions | None:
    """A RuleOptions message from a message, or from a dict of any game's settings by name (its
    ``settings``, each value written as text: GetCatalog lists every game's settings; the server
    checks them and names a bad one).

    >>> sorted(rule_options("spades", {"target_score": 300, "double_nil_allowed": False}).settings.items())
    [('double_nil_allowed', 'false'), ('target_score', '300')]
    """
    if options is None or isinstance(options, options_pb2.RuleOptions):
        return options
    return options_pb2.RuleOptions(settings={name: setting_text(value) for name, value in options.items()})


def setting_text(value: Any) -> str:
    """A setting's value as RuleOptions.settings writes it: "true"/"false", a number, or the text."""
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


MAX_SCORE_PAGE = 500  # the most hands the server returns per GetScore page
MAX_LIST_PAGE = 200  # the most games the server returns per ListGames page

class GameClient:
    """A GameService client acting for one seat (or as a spectator when ``token`` is None).

    ``api_key`` is sent as ``x-api-key`` on every call: servers configured with API keys require
    it for CreateGame and the backend's calls (ListGames, DeleteGame, ReissueSeatToken,
    WatchEvents, Rematch), which act only on games created with the same key id.
    """

    def __init__(self, target: str, token: str | None = None, *, timeout: float = 5.0, retries: int = 3,
                 channel: grpc.Channel | None = None, interceptors: Sequence[object] = (), api_key: str | None = None,
                 retry_policy: RetryPolicy | None = DEFAULT_RETRY_POLICY):
        """A client of the server at ``target`` (host:port) acting with ``token``.

        ``retry_policy`` is the gRPC retry policy of the channel the client opens (None: gRPC does
        not retry); a caller's ``channel`` keeps its own. ``retries`` are the client's own retries
        of a whole call (0: none).
        """
        self.target = target
        self.token = token
        self.api_key = api_key
        self.timeout = timeout
        self.retries = retries
        self.retry_policy = retry_policy
        self._owns_channel = channel is None
        self._raw_channel = channel or grpc.insecure_channel(target, options=CHANNEL_OPTIONS +
                                                             channel_options(retry_policy))
        self._interceptors = tuple(interceptors)
        self.channel = grpc.intercept_channel(self._raw_channel, *interceptors) if interceptors else self._raw_channel
        self.stub = pb_grpc.GameServiceStub(self.channel)
        self._closed = threading.Event()  # set when the channel is closed; shared with with_token's clients

    # ---- plumbing ----

    def with_token(self, token: str | None) -> GameClient:
        """A client acting for another seat (or a spectator) over the same channel."""
        other = GameClient(self.target, token, timeout=self.timeout, retries=self.retries,
                           channel=self._raw_channel, interceptors=self._interceptors, api_key=self.api_key,
                           retry_policy=self.retry_policy)
        other._closed = self._closed
        return other

    def close(self) -> None:
        """Close the channel, unless it is shared with the client this one was made from; the
        iterators of watch and watch_events on a closed channel end."""
        if self._owns_channel:
            self._closed.set()
            self._raw_channel.close()

    def __enter__(self) -> GameClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def metadata(self) -> list[tuple[str, str]]:
        """Call metadata carrying this client's seat token (none for a spectator) and API key (if any)."""
        metadata = [("authorization", f"Bearer {self.token}")] if self.token else []
        return metadata + [("x-api-key", self.api_key)] if self.api_key else metadata

    def send(self, method: str, request, *, timeout: float | None = None):
        """Call ``method`` with ``request``, retrying UNAVAILABLE / DEADLINE_EXCEEDED / CANCELLED (a server
        that stopped), and RESOURCE_EXHAUSTED that carries a RetryInfo delay (a limit that waiting
        lifts), with jittered exponential backoff; returns the response.

        A mutating request without a ``request_id`` gets a fresh one, the same on every retry.
        """
        if "request_id" in type(request).DESCRIPTOR.fields_by_name and not request.request_id:
            request.request_id = uuid.uuid4().hex
        rpc = getattr(self.stub, method)
        may_have_run = False   # an earlier attempt's answer was lost: it may have run on the server
        for attempt in range(self.retries + 1):
            try:
                return rpc(request, timeout=timeout or self.timeout, metadata=self.metadata())
            except grpc.RpcError as exc:
                error = errors.from_rpc_error(exc)
                error.attempts = attempt + 1
                error.may_have_run = may_have_run
                may_have_run |= error.code != grpc.StatusCode.RESOURCE_EXHAUSTED   # a refusal never ran
                waiting_helps = error.code != grpc.StatusCode.RESOURCE_EXHAUSTED or error.retry_delay is not None
                if (error.code not in RETRYABLE or not waiting_helps or attempt == self.retries
                        or (error.retry_delay or 0.0) > MAX_RETRY_DELAY_S):
                    raise error from None
            backoff = min(BACKOFF_S * 2 ** attempt, MAX_BACKOFF_S) * (0.5 + random.random())
            time.sleep(max(backoff, error.retry_delay or 0.0))  # never sooner than the server asked
        raise AssertionError("unreachable")

    def _act(self, game_id: str, action: str, expected_version: int | None, request_id: str | None) -> GameView:
        request = pb.ActRequest(game_id=game_id, action=action, request_id=request_id or "")
        if expected_version is not None:
            request.expected_version = expected_version
        return self.send("Act", request).view

    # ---- the API ----

    def create_game(self, variant: str | int, seats: Sequence[SeatSpec],
                    *, options: options_pb2.RuleOptions | Mapping[str, Any] | None = None,
                    first_dealer: int | None = None, decks: Sequence[Sequence[str]] = (),
                    shuffle_seed: int | None = None, request_id: str | None = None,
                    labels: Mapping[str, str] | None = None, lifecycle: lc.LifecycleOptions | None = None,
                    turn_timeout_ms: int | None = None, timeouts_before_away: int | None = None,
                    leave_policy: str | int | None = None) -> CreatedGame:
        """Create a game; ``seats`` are names (humans) or (name, "human"|"basic"|"random"|"strong") pairs.

        A seat may also be a mapping of SeatConfig fields (``name``, ``kind``, ``external_player_id``,
        ``fallback``: the bot that plays a human seat's timed-out turns, while it is away and after
        it leaves) or a SeatConfig.

        ``variant`` is a game's name in any spelling the client knows ("spades", "spades2",
        "buck-euchre", "VARIANT_BUCK_EUCHRE", "Buck Euchre"; see cardgame.games), a Variant value, or
        the name of another game the server registers (sent as ``variant_name``). ``labels`` are the backend's
        (for list_games and events); ``lifecycle`` and/or ``turn_timeout_ms``,
        ``timeouts_before_away`` and ``leave_policy`` ("bot-plays", "abandon") set turn deadlines and
        what leaving does.
        """
        known = games.find(variant)
        name = variant.strip() if isinstance(variant, str) and known is None else ""
        if known is not None and not known.variant:
            name = known.name
        number = known.variant if known is not None else variant if isinstance(variant, int) else 0
        request = pb.CreateGameRequest(variant=number,  # type: ignore[arg-type]  # any int, as in seat_configs
                                       variant_name=name, seats=seat_configs(seats),
                                       options=rule_options(variant, options),
                                       decks=[pb.Deck(cards=list(deck)) for deck in decks],
                                       request_id=request_id or "", labels=dict(labels or {}),
                                       lifecycle=lifecycle_options(lifecycle, turn_timeout_ms=turn_timeout_ms,
                                                                   timeouts_before_away=timeouts_before_away,
                                                                   leave_policy=leave_policy))
        if first_dealer is not None:
            request.first_dealer = first_dealer
        if shuffle_seed is not None:
            request.shuffle_seed = shuffle_seed
        response = self.send("CreateGame", request)
        return CreatedGame(response.game_id, {t.seat: t.token for t in response.seat_tokens}, response.view)

    def catalog(self) -> list[catalog_pb2.GameDescription]:
        """Every game the server plays: its seats and sides, its phases and action words, and its
        settings with their types, ranges or choices and defaults."""
        return list(self.send("GetCatalog", pb.GetCatalogRequest()).games)

    def get_game(self, game_id: str) -> GameView:
        """The caller's view of a game."""
        return self.send("GetGame", pb.GetGameRequest(game_id=game_id)).view

    def get_score(self, game_id: str) -> pb.GetScoreResponse:
        """Every completed hand's score breakdown, the totals and the winner (all pages joined)."""
        score = self.send("GetScore", pb.GetScoreRequest(game_id=game_id, page_size=MAX_SCORE_PAGE))
        token = score.next_page_token
        while token:
            page = self.send("GetScore", pb.GetScoreRequest(game_id=game_id, page_size=MAX_SCORE_PAGE,
                                                            page_token=token))
            score.hands.extend(page.hands)
            token = page.next_page_token
        score.next_page_token = ""
        return score

    # The calls below spell the words of the games first built in, as the deprecated per-kind RPCs
    # did; ``act`` takes any game's legal action (or its notation) and is the one to use.

    def deal(self, game_id: str, *, expected_version: int | None = None, request_id: str | None = None) -> GameView:
        """Deal the next hand (two-player Spades: start the draw)."""
        return self._act(game_id, "deal", expected_version, request_id)

    def draw(self, game_id: str, keep: bool, *, expected_version: int | None = None,
             request_id: str | None = None) -> GameView:
        """Two-player Spades: keep (True) or discard (False) the offered card."""
        return self._act(game_id, "keep" if keep else "discard", expected_version, request_id)

    def reveal_hand(self, game_id: str, *, expected_version: int | None = None,
                    request_id: str | None = None) -> GameView:
        """Look at one's cards (gives up Double Nil for this hand)."""
        return self._act(game_id, "reveal", expected_version, request_id)

    def bid(self, game_id: str, tricks: int | None = None, *, kind: str | int | None = None,
            suit: str | int | None = None, expected_version: int | None = None,
            request_id: str | None = None) -> GameView:
        """Bid ``tricks`` (0 = Nil), or call: kind "double-nil", "order-up", "pass", "name" (+ suit), "stay", "drop"."""
        return self._act(game_id, bid_notation(tricks, kind=kind, suit=suit), expected_version, request_id)

    def exchange(self, game_id: str, cards: Sequence[str], *, expected_version: int | None = None,
                 request_id: str | None = None) -> GameView:
        """Give / put aside the Double Nil exchange cards, or make the Buck Euchre dealer's discard."""
        return self._act(game_id, " ".join(["exchange", *cards]), expected_version, request_id)

    def play(self, game_id: str, card: str, *, expected_version: int | None = None,
             request_id: str | None = None) -> GameView:
        """Play one card, e.g. "AS" or "10H"."""
        return self._act(game_id, f"play {card}", expected_version, request_id)

    def act(self, game: GameView | str, action: LegalAction | str, cards: Sequence[str] | None = None, *,
            expected_version: int | None = None, request_id: str | None = None) -> GameView:
        """Take an action (Act): one of a view's legal_actions, or a notation such as "play AS" or "bid 4".

        ``game`` is the view the action comes from, or the game id. For an action that chooses cards
        (an exchange, a discard, a pass of cards), ``cards`` are the chosen ones (a LegalAction
        without them: a random allowed choice).
        """
        game_id = game if isinstance(game, str) else game.game_id
        if isinstance(action, str):
            notation = " ".join([action, *cards]) if cards else action
        else:
            notation = notation_for(action, cards)
        return self._act(game_id, notation, expected_version, request_id)

    def back(self, game_id: str, *, request_id: str | None = None) -> GameView:
        """A seat marked away (it let too many turns pass their deadline) plays its own turns again (Act "back")."""
        return self._act(game_id, "back", None, request_id)

    def watch(self, game_id: str, from_version: int = 0, *, reconnect_timeout: float = 30.0) -> Iterator[GameView]:
        """Views after every change from ``from_version`` on, ending after the GAME_OVER view.

        When the connection is lost (server restarted, network down) the stream is reopened from the
        last version seen, so no view is repeated; Unavailable after ``reconnect_timeout`` s down.
        """
        last = from_version

        def open_stream():
            return self.stub.WatchGame(pb.WatchGameRequest(game_id=game_id, from_version=last),
                                       metadata=self.metadata())

        with contextlib.closing(self._resumed(open_stream, reconnect_timeout,
                                              "the watch stream ended before the game was over")) as messages:
            for message in messages:
                if message.view.version <= last:
                    continue
                last = message.view.version
                yield message.view
                if message.view.phase_name == "game_over":
                    return

    # ---- the backend's calls (API key) ----

    def reissue_seat_token(self, game_id: str, seat: int, *, request_id: str | None = None) -> str:
        """A new token for a human seat; its old token stops working at once (a retry gets the same new one)."""
        request = pb.ReissueSeatTokenRequest(game_id=game_id, seat=seat, request_id=request_id or "")
        return self.send("ReissueSeatToken", request).seat_token.token

    def list_games_page(self, labels: Mapping[str, str] | None = None, external_player_id: str = "",
                        status: str | int | None = None, page_size: int = 0, page_token: str = ""
                        ) -> pb.ListGamesResponse:
        """One page of the caller's games, newest first (``next_page_token`` continues with the same filters).

        Only games with every one of ``labels``, with a seat of ``external_player_id``, in ``status``
        ("waiting", "in-play", "finished" or a GameStatus value; None for any). A page may hold fewer
        games than ``page_size`` (0: the server's 50, at most 200) even when more follow.
        """
        request = pb.ListGamesRequest(labels=dict(labels or {}), external_player_id=external_player_id,
                                      status=status_of(status),  # type: ignore[arg-type]  # any int
                                      page_size=page_size, page_token=page_token)
        return self.send("ListGames", request)

    def list_games(self, labels: Mapping[str, str] | None = None, external_player_id: str = "",
                   status: str | int | None = None, page_size: int = 0) -> Iterator[GameSummary]:
        """Every one of the caller's games that matches (see list_games_page), newest first, page after page."""
        token = ""
        while True:
            page = self.list_games_page(labels, external_player_id, status, page_size, token)
            yield from page.games
            token = page.next_page_token
            if not token:
                return

    def delete_game(self, game_id: str) -> None:
        """Remove a game and everything kept about it (a delete event follows in the event stream).

        A retry that finds the game gone after an attempt whose answer was lost counts as done (not
        after a refusal, which deleted nothing).
        """
        try:
            self.send("DeleteGame", pb.DeleteGameRequest(game_id=game_id))
        except errors.NotFound as error:
            if not error.may_have_run:
                raise

    def watch_events(self, after_id: str = "", *, reconnect_timeout: float = 30.0) -> Iterator[Event]:
        """The events of the caller's games (hand end, game over, timeout, leave, delete) after the event
        ``after_id`` (empty: from the oldest kept), each once and in order per game, waiting for new
        ones for as long as the caller iterates.

        When the connection is lost the stream is reopened after the last event seen; Unavailable after
        ``reconnect_timeout`` s down. Keep the last event's ``id`` to resume later.
        """
        last = after_id

        def open_stream():
            return self.stub.WatchEvents(pb.WatchEventsRequest(after_id=last), metadata=self.metadata())

        with contextlib.closing(self._resumed(open_stream, reconnect_timeout, "the event stream ended")) as messages:
            for message in messages:
                last = message.event.id
                yield message.event

    def rematch(self, game_id: str, *, request_id: str | None = None) -> CreatedGame:
        """A new game with the seats, labels and options of ``game_id``: its id, tokens and spectator view."""
        response = self.send("Rematch", pb.RematchRequest(game_id=game_id, request_id=request_id or ""))
        return CreatedGame(response.game_id, {t.seat: t.token for t in response.seat_tokens}, response.view)

    # ---- any caller ----

    def leave_game(self, game_id: str, *, request_id: str | None = None) -> GameView:
        """The seat leaves the game: its fallback bot plays on, or the game ends as abandoned (the
        game's leave policy); the seat's token stops working. Returns the spectator view after it."""
        return self.send("LeaveGame", pb.LeaveGameRequest(game_id=game_id, request_id=request_id or "")).view

    def get_history(self, game_id: str, page_size: int = 0, page_token: str = "") -> pb.GetHistoryResponse:
        """One page of the game's log with chance outcomes (decks and salts), as far as the caller may
        know them at the page's ``version``: everything after the game; during play, what a spectator
        may know. At most ``page_size`` entries (0: the server's 1000; more than 5000: 5000) after the
        page ``page_token`` continues ("": from the start); the page's ``next_page_token`` continues,
        "" after the last page (AIP-158)."""
        return self.send("GetHistory", pb.GetHistoryRequest(game_id=game_id, page_size=page_size,
                                                            page_token=page_token))

    def history_entries(self, game_id: str, page_size: int = 0) -> Iterator[lc.HistoryEntry]:
        """Every entry of the game's log (see get_history), in order, page after page. Each page shows
        its entries as of the version it was read at, so while the game is played on, later pages may
        reach past the first page's version."""
        token = ""
        while True:
            page = self.get_history(game_id, page_size, token)
            yield from page.entries
            token = page.next_page_token
            if not token:
                return

    # ---- streams ----

    def _resumed(self, open_stream: Callable[[], Any], reconnect_timeout: float, ended: str
                 ) -> Generator[Any, None, None]:
        """The messages of a server stream that ``open_stream()`` opens, reopening it (the caller's
        ``open_stream`` resumes after what it saw) whenever the connection is lost or the server ends
        the stream; Unavailable (``ended`` for a stream that ended) after ``reconnect_timeout`` s down.
        Ends when the client's channel is closed."""
        down_since: float | None = None
        while not self._closed.is_set():
            opened, received = time.monotonic(), False
            try:
                stream = open_stream()
            except ValueError:  # grpc's "Channel closed!", when close() came first
                return
            try:
                for message in stream:
                    received = True
                    yield message
                error: errors.GameError = errors.Unavailable(ended)
            except grpc.RpcError as exc:
                error = errors.from_rpc_error(exc)
                if self._closed.is_set():
                    return
                if error.code not in RECONNECTABLE:
                    raise error from None
            finally:
                stream.cancel()
            now = time.monotonic()
            if down_since is None or received or now - opened > 1.0:
                down_since = now  # a new outage, not the same one going on
            self._wait_until_ready(down_since + reconnect_timeout - now, error)

    def _wait_until_ready(self, seconds: float, error: errors.GameError) -> None:
        """Sleep a moment, then wait up to ``seconds`` for the channel to connect; raise ``error`` if not
        (return at once when the channel is closed meanwhile)."""
        time.sleep(BACKOFF_S)
        until = time.monotonic() + max(seconds - BACKOFF_S, 0.0)
        while not self._closed.is_set():
            ready = grpc.channel_ready_future(self._raw_channel)
            try:
                ready.result(timeout=max(min(READY_POLL_S, until - time.monotonic()), 0.0))
                return
            except grpc.FutureTimeoutError:
                if time.monotonic() >= until:
                    raise error from None
            finally:
                ready.cancel()
