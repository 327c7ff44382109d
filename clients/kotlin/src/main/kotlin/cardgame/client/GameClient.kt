package cardgame.client

import cardgame.v1.GameServiceClient
import cardgame.v1.GameServiceClientInterface
import cardgame.v1.GameServiceOuterClass.ActRequest
import cardgame.v1.GameServiceOuterClass.DeleteGameRequest
import cardgame.v1.GameServiceOuterClass.GetCatalogRequest
import cardgame.v1.GameServiceOuterClass.GetGameRequest
import cardgame.v1.GameServiceOuterClass.GetHistoryRequest
import cardgame.v1.GameServiceOuterClass.GetScoreRequest
import cardgame.v1.GameServiceOuterClass.LeaveGameRequest
import cardgame.v1.GameServiceOuterClass.ListGamesRequest
import cardgame.v1.GameServiceOuterClass.RematchRequest
import cardgame.v1.GameServiceOuterClass.ReissueSeatTokenRequest
import cardgame.v1.GameServiceOuterClass.SeatConfig
import cardgame.v1.GameServiceOuterClass.SeatToken
import cardgame.v1.GameServiceOuterClass.WatchGameRequest
import com.connectrpc.ConnectException
import com.connectrpc.Headers
import com.connectrpc.ProtocolClientConfig
import com.connectrpc.ResponseMessage
import com.connectrpc.StreamType
import com.connectrpc.extensions.GoogleJavaJSONStrategy
import com.connectrpc.extensions.GoogleJavaProtobufStrategy
import com.connectrpc.impl.ProtocolClient
import com.connectrpc.okhttp.ConnectOkHttpClient
import com.connectrpc.protocols.NetworkProtocol
import java.io.Closeable
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.NonCancellable
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.withContext
import okhttp3.Dispatcher
import okhttp3.OkHttpClient
import kotlin.random.Random
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlin.time.TimeSource

/** How a client reaches the server: Connect or gRPC-Web (the HTTP port), or gRPC (the gRPC port, HTTP/2 cleartext). */
public typealias Protocol = NetworkProtocol

/** How one seat of a new game is filled: a human (by default) or one of the server's bots. */
public data class Seat(
    val name: String,
    val kind: PlayerKind = PlayerKind.PLAYER_KIND_HUMAN,
    /** The backend's id of the player, for ListGames. */
    val externalPlayerId: String = "",
    /** The bot that plays the seat's timed-out turns, while it is away and after it leaves. */
    val fallback: PlayerKind? = null,
) {
    public companion object {
        /** A human seat, played through its seat token. */
        public fun human(name: String): Seat = Seat(name)

        /** A seat of the server's bot: "basic", "random", "strong" (or a PlayerKind name). */
        public fun bot(name: String, strategy: String = "basic"): Seat = Seat(name, playerKind(strategy))
    }
}

/** The PlayerKind of a name: "human", "basic", "random", "strong", or the enum's own name ("PLAYER_KIND_BOT_BASIC"). */
public fun playerKind(name: String): PlayerKind {
    val key = name.trim().uppercase().replace('-', '_')
    return listOf(key, "PLAYER_KIND_$key", "PLAYER_KIND_BOT_$key").firstNotNullOfOrNull { candidate ->
        PlayerKind.values().firstOrNull { it.name == candidate && it != PlayerKind.UNRECOGNIZED }
    } ?: throw IllegalArgumentException("unknown player kind $name")
}

/** What CreateGame (and Rematch) answered: the game's id, each human seat's token, the spectator view. */
public data class CreatedGame(
    val gameId: String,
    /** Seat number to seat token, for every human seat. */
    val tokens: Map<Int, String>,
    /** The spectator view of the new game (empty after a rematch: getGame gives it). */
    val view: GameView,
    /** The spectator token, under SPECTATOR_POLICY_TOKEN (empty otherwise). */
    val spectatorToken: String = "",
)

/**
 * A client of cardgame.v1.GameService acting for one seat ([token]), or as a spectator (no token).
 *
 * [baseUrl] is the server's HTTP port (`http://host:8080`) for [Protocol.CONNECT] (the default)
 * and [Protocol.GRPC_WEB], or its gRPC port (`http://host:50051`) for [Protocol.GRPC] (HTTP/2
 * without TLS, "prior knowledge"); `https://` where the server has TLS. [binary]: Protobuf on
 * the wire (default), else JSON (Connect only). [apiKey] goes out as `x-api-key` on every call.
 *
 * Every unary call has a deadline ([timeout]) and is retried as [retry] says; every mutating call
 * carries a request id, generated once per logical call and the same on each retry, so the server
 * applies it once. Failures are thrown as [GameException]. [withToken] gives a client of another
 * seat on the same connections; [close] the client that made them. A client made without
 * [okHttpClient] allows 256 calls at once to a server (each open watch stream holds one); an
 * OkHttpClient of yours keeps its Dispatcher's limits (OkHttp's default: 5 per host).
 */
public class GameClient(
    public val baseUrl: String,
    public val token: String? = null,
    public val apiKey: String? = null,
    public val protocol: Protocol = Protocol.CONNECT,
    public val binary: Boolean = true,
    public val timeout: Duration = 5.seconds,
    public val retry: RetryPolicy = RetryPolicy(),
    okHttpClient: OkHttpClient? = null,
) : Closeable {
    private val ownsHttp = okHttpClient == null
    private val http: OkHttpClient = (okHttpClient ?: defaultHttpClient()).let { client ->
        if (protocol == Protocol.GRPC && baseUrl.startsWith("http://")) {
            client.newBuilder().protocols(listOf(okhttp3.Protocol.H2_PRIOR_KNOWLEDGE)).build()
        } else {
            client
        }
    }

    init {
        require(binary || protocol == Protocol.CONNECT) { "JSON is served by the Connect protocol only" }
    }

    /**
     * The generated stub, for calls this class has no method for. Calls on it get neither the
     * seat token nor retries: pass [headers] and a request id yourself.
     */
    public val stub: GameServiceClientInterface = GameServiceClient(
        ProtocolClient(
            // Streams wait for the game's next change as long as it takes: no read timeout.
            ConnectOkHttpClient(http, http.newBuilder().readTimeout(0, java.util.concurrent.TimeUnit.MILLISECONDS).build()),
            ProtocolClientConfig(
                host = baseUrl,
                serializationStrategy = if (binary) GoogleJavaProtobufStrategy() else GoogleJavaJSONStrategy(),
                networkProtocol = protocol,
                timeoutOracle = { spec -> if (spec.streamType == StreamType.UNARY) timeout else null },
            ),
        ),
    )

    /** A client acting for another seat ([token]; null: a spectator) over the same connections. */
    public fun withToken(token: String?): GameClient =
        GameClient(baseUrl, token, apiKey, protocol, binary, timeout, retry, http)

    /** Releases the connections and threads of a client made without an OkHttpClient (not of one made by withToken). */
    override fun close() {
        if (ownsHttp) {
            http.dispatcher.executorService.shutdown()
            http.connectionPool.evictAll()
        }
    }

    /** The metadata of every call: the seat token (`authorization: Bearer …`) and the API key. */
    public fun headers(): Headers = buildMap {
        token?.let { put("authorization", listOf("Bearer $it")) }
        apiKey?.let { put("x-api-key", listOf(it)) }
    }

    // ---- the game ----

    /**
     * Every game the server plays (GetCatalog): its names, seats and sides, phases and action
     * words, and its settings with their types, ranges and defaults.
     */
    public suspend fun getCatalog(): List<GameDescription> =
        send { stub.getCatalog(GetCatalogRequest.getDefaultInstance(), it) }.gamesList

    /**
     * Creates a game of [game] (its registry name, title or an alias, in any case, with "-", "_"
     * or spaces between words: "buck-euchre", "Two-player Spades"; [getCatalog] lists them) with
     * [seats] in seat order. [settings] are the game's settings by name (RuleOptions.settings,
     * e.g. `mapOf("target" to 30)`; values are sent as text), [firstDealer] the first dealer
     * (random when null); [configure] sets any other field of the request (decks, labels,
     * lifecycle, spectators, typed options, ...).
     */
    public suspend fun createGame(
        game: String,
        seats: List<Seat>,
        settings: Map<String, Any> = emptyMap(),
        firstDealer: Int? = null,
        requestId: String? = null,
        configure: cardgame.v1.GameServiceOuterClass.CreateGameRequest.Builder.() -> Unit = {},
    ): CreatedGame {
        val builder = CreateGameRequest.newBuilder()
            .setVariantName(game.trim())
            .setRequestId(requestId ?: newRequestId())
        for (seat in seats) {
            val config = SeatConfig.newBuilder().setName(seat.name).setKind(seat.kind)
                .setExternalPlayerId(seat.externalPlayerId)
            seat.fallback?.let { config.setFallback(it) }
            builder.addSeats(config)
        }
        if (settings.isNotEmpty()) {
            builder.optionsBuilder.putAllSettings(settings.mapValues { (_, value) -> value.toString() })
        }
        firstDealer?.let { builder.setFirstDealer(it) }
        builder.configure()
        return createGame(builder.build())
    }

    /** Sends a CreateGame request as it is (a request id is added when it has none). */
    public suspend fun createGame(request: CreateGameRequest): CreatedGame {
        val sent = if (request.requestId.isEmpty()) request.toBuilder().setRequestId(newRequestId()).build() else request
        val response = send { stub.createGame(sent, it) }
        return CreatedGame(response.gameId, tokens(response.seatTokensList), response.view, response.spectatorToken)
    }

    /** The caller's view of a game. */
    public suspend fun getGame(gameId: String): GameView =
        send { stub.getGame(GetGameRequest.newBuilder().setGameId(gameId).build(), it) }.view

    /**
     * Takes an action by its notation, exactly as a view's legal action gives it ("play AS",
     * "bid 4", "pass"; a card-choosing one with its cards, "exchange 2C 3D 4H"). Returns the
     * caller's view after it and any bot turns it caused. [expectedVersion]: refused with
     * ABORTED unless the game is at that version.
     */
    public suspend fun act(
        gameId: String,
        notation: String,
        requestId: String? = null,
        expectedVersion: Long? = null,
    ): GameView {
        val request = ActRequest.newBuilder().setGameId(gameId).setAction(notation)
            .setRequestId(requestId ?: newRequestId())
        expectedVersion?.let { request.setExpectedVersion(it) }
        val sent = request.build()
        return send { stub.act(sent, it) }.view
    }

    /**
     * Takes [action], one of [view]'s legal actions, by its notation; for a card-choosing action,
     * with [cards] (null: a random allowed choice). See [notationFor].
     */
    public suspend fun act(
        view: GameView,
        action: LegalAction,
        cards: List<String>? = null,
        requestId: String? = null,
        expectedVersion: Long? = null,
        random: Random = Random.Default,
    ): GameView = act(view.gameId, notationFor(action, cards, random), requestId, expectedVersion)

    /** Every completed hand's score breakdown (all pages joined), the totals and the winner. */
    public suspend fun getScore(gameId: String): GetScoreResponse {
        val request = GetScoreRequest.newBuilder().setGameId(gameId).setPageSize(MAX_SCORE_PAGE)
        val first = send { stub.getScore(request.build(), it) }
        val joined = first.toBuilder()
        var pageToken = first.nextPageToken
        while (pageToken.isNotEmpty()) {
            val page = send { stub.getScore(request.setPageToken(pageToken).build(), it) }
            joined.addAllHands(page.handsList)
            pageToken = page.nextPageToken
        }
        return joined.setNextPageToken("").build()
    }

    /**
     * The caller's view after every change of the game, from the first version after
     * [fromVersion] (0: the current view first), ending after the view of the game's end.
     *
     * A cold flow: each collection opens its own WatchGame stream. When the connection is lost
     * (a server restarted, a network down) or the server ends the stream early, it is opened
     * again with `from_version` = the last version delivered, after a backoff with jitter, so no
     * version is delivered twice and versions only increase. Fails with the last error when the
     * server stays unreachable for [reconnectTimeout], or at once on an error that reconnecting
     * does not cure (NOT_FOUND, PERMISSION_DENIED, ...). Cancelling the collection closes the stream.
     */
    public fun watchGame(
        gameId: String,
        fromVersion: Long = 0,
        reconnectTimeout: Duration = 30.seconds,
    ): Flow<GameView> = flow {
        var last = fromVersion
        var downSince: TimeSource.Monotonic.ValueTimeMark? = null
        var attempt = 0
        while (true) {
            val opened = TimeSource.Monotonic.markNow()
            var received = false
            var emitting = false
            val failure: GameException = try {
                val stream = stub.watchGame(headers())
                try {
                    val request = WatchGameRequest.newBuilder().setGameId(gameId).setFromVersion(last).build()
                    val sent = stream.sendAndClose(request)
                    var closedBy: Throwable? = sent.exceptionOrNull()
                    if (closedBy == null) {
                        val channel = stream.responseChannel()
                        while (true) {
                            val next = channel.receiveCatching()
                            if (next.isClosed) {
                                closedBy = next.exceptionOrNull()
                                break
                            }
                            val view = next.getOrThrow().view
                            received = true
                            if (view.version <= last) continue
                            last = view.version
                            emitting = true // the collector's exceptions are its own: never a reason to reconnect
                            emit(view)
                            emitting = false
                            if (view.isOver) return@flow
                        }
                    }
                    closedBy?.let(::asGameException)
                        ?: GameException(Code.UNAVAILABLE, "the watch stream ended before the game was over")
                } finally {
                    withContext(NonCancellable) { stream.receiveClose() }
                }
            } catch (e: GameException) {
                throw e
            } catch (e: CancellationException) {
                throw e
            } catch (e: ConnectException) {
                if (emitting) throw e
                asGameException(e)
            } catch (e: java.io.IOException) {
                if (emitting) throw e
                asGameException(e)
            }
            if (failure.code !in RECONNECTABLE) throw failure
            // A stream that delivered, or stayed open a while (a server draining ends idle ones too),
            // is a new outage: reconnect after the first, short backoff.
            if (received || opened.elapsedNow() > 1.seconds) attempt = 0
            val now = TimeSource.Monotonic.markNow()
            val since = downSince
            if (since == null || received || opened.elapsedNow() > 1.seconds) {
                downSince = now // a new outage, not the same one going on
            } else if (since.elapsedNow() > reconnectTimeout) {
                throw failure
            }
            val wait = (RECONNECT_BACKOFF * (1L shl attempt.coerceAtMost(10)).toDouble()).coerceAtMost(MAX_RECONNECT_BACKOFF)
            delay(wait * (0.5 + Random.nextDouble()))
            attempt++
        }
    }

    // ---- lifecycle ----

    /** The seat leaves the game (its fallback bot plays on, or the game ends as abandoned); returns the spectator view. */
    public suspend fun leaveGame(gameId: String, requestId: String? = null): GameView {
        val request = LeaveGameRequest.newBuilder().setGameId(gameId).setRequestId(requestId ?: newRequestId()).build()
        return send { stub.leaveGame(request, it) }.view
    }

    /** (API key) A new token for a human seat; its old one stops working (a retry gets the same new one). */
    public suspend fun reissueSeatToken(gameId: String, seat: Int, requestId: String? = null): String {
        val request = ReissueSeatTokenRequest.newBuilder().setGameId(gameId).setSeat(seat)
            .setRequestId(requestId ?: newRequestId()).build()
        return send { stub.reissueSeatToken(request, it) }.seatToken.token
    }

    /** (API key) A new game with the seats, labels and options of [gameId]. */
    public suspend fun rematch(gameId: String, requestId: String? = null): CreatedGame {
        val request = RematchRequest.newBuilder().setGameId(gameId).setRequestId(requestId ?: newRequestId()).build()
        val response = send { stub.rematch(request, it) }
        return CreatedGame(response.gameId, tokens(response.seatTokensList), response.view, response.spectatorToken)
    }

    /**
     * (API key) Removes a game. DeleteGame carries no request id: a retry answered NOT_FOUND after
     * an attempt whose answer was lost counts as done.
     */
    public suspend fun deleteGame(gameId: String) {
        try {
            send { stub.deleteGame(DeleteGameRequest.newBuilder().setGameId(gameId).build(), it) }
        } catch (e: GameException) {
            if (e.code != Code.NOT_FOUND || !e.mayHaveRun) throw e
        }
    }

    /** (API key) The caller's games, newest first, page after page; filters as ListGamesRequest has them. */
    public fun listGames(
        status: GameStatus = GameStatus.GAME_STATUS_UNSPECIFIED,
        labels: Map<String, String> = emptyMap(),
        externalPlayerId: String = "",
        pageSize: Int = 0,
    ): Flow<GameSummary> = flow {
        var pageToken = ""
        do {
            val request = ListGamesRequest.newBuilder().setStatus(status).putAllLabels(labels)
                .setExternalPlayerId(externalPlayerId).setPageSize(pageSize).setPageToken(pageToken).build()
            val page = send { stub.listGames(request, it) }
            for (game in page.gamesList) emit(game)
            pageToken = page.nextPageToken
        } while (pageToken.isNotEmpty())
    }

    /** One page of the game's log with chance outcomes, as far as the caller may know them (AIP-158 paging). */
    public suspend fun getHistory(gameId: String, pageSize: Int = 0, pageToken: String = ""): GetHistoryResponse {
        val request = GetHistoryRequest.newBuilder().setGameId(gameId).setPageSize(pageSize).setPageToken(pageToken).build()
        return send { stub.getHistory(request, it) }
    }

    // ---- plumbing ----

    /**
     * Calls [rpc] with this client's headers, retrying as [retry] says; returns the answer or
     * throws a [GameException]. The request is built once by the caller, so each retry sends the
     * same request id.
     */
    public suspend fun <Res : Any> send(rpc: suspend (Headers) -> ResponseMessage<Res>): Res {
        var mayHaveRun = false // an earlier attempt's answer was lost: it may have run on the server
        var attempt = 0
        while (true) {
            val error = try {
                when (val response = rpc(headers())) {
                    is ResponseMessage.Success -> return response.message
                    is ResponseMessage.Failure -> failureOf(response)
                }
            } catch (e: CancellationException) {
                throw e
            } catch (e: Exception) {
                asGameException(e)
            }
            error.attempts = attempt + 1
            error.mayHaveRun = mayHaveRun
            val asked = error.retryDelay ?: Duration.ZERO
            if (!retry.isRetryable(error) || attempt >= retry.retries || asked > retry.maxRetryDelay) throw error
            mayHaveRun = mayHaveRun || error.code != Code.RESOURCE_EXHAUSTED // a refusal never ran
            delay(maxOf(retry.backoff(attempt), asked)) // never sooner than the server asked
            attempt++
        }
    }

    private fun failureOf(response: ResponseMessage.Failure<*>): GameException {
        val metadata = response.headers + response.trailers + response.cause.metadata
        return GameException.from(response.cause.withMetadata(metadata))
    }

    private fun asGameException(error: Throwable): GameException = when (error) {
        is GameException -> error
        is ConnectException -> GameException.from(error)
        else -> GameException(Code.UNAVAILABLE, error.message ?: error.toString(), cause = error)
    }

    private fun tokens(seatTokens: List<SeatToken>): Map<Int, String> = seatTokens.associate { it.seat to it.token }

    private companion object {
        /** OkHttp's defaults, but for more calls at once to one server (each open watch stream holds one). */
        fun defaultHttpClient(): OkHttpClient {
            val dispatcher = Dispatcher().apply {
                maxRequests = MAX_CALLS
                maxRequestsPerHost = MAX_CALLS
            }
            return OkHttpClient.Builder().dispatcher(dispatcher).build()
        }

        const val MAX_CALLS = 256
        const val MAX_SCORE_PAGE = 500 // the most hands the server returns per GetScore page
        val RECONNECT_BACKOFF = 100.milliseconds
        val MAX_RECONNECT_BACKOFF = 1.seconds

        /** Codes after which a watch stream is opened again: the server went away or the connection broke. */
        val RECONNECTABLE = setOf(Code.UNAVAILABLE, Code.CANCELED, Code.INTERNAL_ERROR, Code.UNKNOWN, Code.DEADLINE_EXCEEDED)
    }
}
