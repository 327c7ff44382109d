package cardgame.client

import java.io.IOException
import java.net.ServerSocket
import java.util.Collections
import kotlin.random.Random
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import okhttp3.Interceptor
import okhttp3.OkHttpClient
import okhttp3.Response
import org.junit.jupiter.api.Assertions.assertArrayEquals
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertNotEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.DynamicTest
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.TestFactory
import org.junit.jupiter.api.assertThrows

/** The client against a live server: whole games of every declared game over every protocol, refusals, retries. */
class LiveGamesTest {
    /** How a test reaches the server: a protocol, its encoding and the port that serves it. */
    private data class Wire(val name: String, val protocol: Protocol, val binary: Boolean, val grpcPort: Boolean) {
        fun client(okHttp: OkHttpClient? = null, retry: RetryPolicy = RetryPolicy()): GameClient =
            GameClient(if (grpcPort) Live.grpcServer else Live.httpServer, protocol = protocol, binary = binary,
                retry = retry, okHttpClient = okHttp)
    }

    private val wires = listOf(
        Wire("Connect binary", Protocol.CONNECT, binary = true, grpcPort = false),
        Wire("Connect JSON", Protocol.CONNECT, binary = false, grpcPort = false),
        Wire("gRPC-Web", Protocol.GRPC_WEB, binary = true, grpcPort = false),
        Wire("gRPC", Protocol.GRPC, binary = true, grpcPort = true),
    )

    /** The server's games, as GetCatalog lists them. */
    private val catalog: List<GameDescription> by lazy { runBlocking { wires.first().client().use { it.getCatalog() } } }

    @TestFactory
    fun `every game of the catalog is played to the end over every protocol`(): List<DynamicTest> {
        assertTrue(catalog.isNotEmpty(), "the server's catalog lists no game")
        assertEquals(catalog.size, catalog.map { it.name }.toSet().size, "a game listed twice")
        return wires.flatMap { wire ->
            catalog.mapIndexed { index, game ->
                DynamicTest.dynamicTest("${game.name} over ${wire.name}") {
                    runBlocking { playWhileWatching(wire, game, Random(index * 31 + wire.name.length)) }
                }
            }
        }
    }

    private suspend fun playWhileWatching(wire: Wire, game: GameDescription, random: Random) = wire.client().use { lobby ->
        val started = System.nanoTime()
        val table = Table.open(lobby, game)
        assertEquals(game.name, table.created.view.variantName)
        assertTrue(table.created.tokens.keys.containsAll((0 until game.seats step 2).toList()), "a token per human seat")
        val watched = Collections.synchronizedList(mutableListOf<GameView>())
        val watcher = CoroutineScope(Dispatchers.IO).launch {
            table.seats.getValue(0).watchGame(table.gameId).collect { watched += it }
        }
        val last = try {
            Live.waitUntil("the watch's first view", 10.seconds) { watched.isNotEmpty() }
            table.playToEnd(random).also { withTimeout(30.seconds) { watcher.join() } }
        } finally {
            watcher.cancel()
        }
        assertTrue(last.isOver)
        assertEquals(0, table.moves.first().first, "seat 0, the first dealer, moves first")
        assertEquals(table.seats.keys, table.moves.map { it.first }.toSet(), "every human seat acted with its token")
        val versions = watched.map { it.version }
        assertEquals((versions.first()..last.version).toList(), versions, "the watch skipped or repeated a version")
        assertTrue(watched.last().isOver && watched.all { it.viewerSeat == 0 })
        val score = lobby.getScore(table.gameId)
        assertTrue(score.winnerSeatsCount > 0, "${game.name}: no winner")
        assertEquals(last.handNumber, score.handsCount)
        val ms = (System.nanoTime() - started) / 1_000_000
        println("KOTLIN-GAME ${game.name} over ${wire.name}: ${table.moves.size} moves, ${score.handsCount} hands, " +
            "version ${last.version}, ${versions.size} views watched, winners ${score.winnerSeatsList}, $ms ms")
    }

    @Test
    fun `a refused move carries its code and reason and is not retried`() = runBlocking {
        wires.first().client().use { lobby ->
            val game = catalog.first()
            val created = lobby.createGame(game.name, (0 until game.seats).map { Seat.human("P$it") }, firstDealer = 0)
            val dealer = lobby.withToken(created.tokens.getValue(0))
            val other = lobby.withToken(created.tokens.getValue(1))
            val view = dealer.getGame(created.gameId)
            val notation = notationFor(view.legalActionsList.first())
            val refused = assertThrows<GameException> { runBlocking { other.act(created.gameId, notation) } }
            assertEquals(Code.FAILED_PRECONDITION, refused.code)
            assertEquals("NOT_YOUR_TURN", refused.reason)
            assertTrue(refused.isRefusedMove && refused.attempts == 1 && refused.serverMessage.isNotEmpty())
            assertEquals(GameException.DOMAIN, refused.domain)
            println("KOTLIN-REFUSED ${refused.code.codeName} ${refused.reason}: ${refused.serverMessage}")

            val spectator = assertThrows<GameException> { runBlocking { lobby.act(created.gameId, notation) } }
            assertEquals(Code.PERMISSION_DENIED, spectator.code)
            val stale = assertThrows<GameException> {
                runBlocking { dealer.act(created.gameId, notation, expectedVersion = view.version - 1) }
            }
            assertEquals(Code.ABORTED, stale.code)
            assertEquals(1, stale.attempts, "ABORTED is not retried")
            val malformed = assertThrows<GameException> { runBlocking { lobby.getGame("nope") } }
            assertEquals(Code.INVALID_ARGUMENT, malformed.code)
            val unknownGame = assertThrows<GameException> {
                runBlocking { lobby.createGame("no such game", listOf(Seat.human("A"))) }
            }
            assertEquals(Code.INVALID_ARGUMENT, unknownGame.code)
        }
    }

    /** Records the raw answer of every Act call; can lose the first answer (the call then fails as a broken connection). */
    private class ActRecorder(var loseNext: Boolean = false) : Interceptor {
        val answers: MutableList<ByteArray> = Collections.synchronizedList(mutableListOf())

        override fun intercept(chain: Interceptor.Chain): Response {
            val response = chain.proceed(chain.request())
            if (!chain.request().url.encodedPath.endsWith("/Act")) return response
            answers += response.peekBody(Long.MAX_VALUE).bytes()
            if (loseNext) {
                loseNext = false
                response.close()
                throw IOException("the answer was lost on the way")
            }
            return response
        }
    }

    @Test
    fun `the same request id twice is answered byte for byte the same`() = runBlocking {
        val recorder = ActRecorder()
        wires.first().client(OkHttpClient.Builder().addInterceptor(recorder).build()).use { lobby ->
            val game = catalog.first()
            val created = lobby.createGame(game.name, (0 until game.seats).map { Seat.human("P$it") }, firstDealer = 0)
            val dealer = lobby.withToken(created.tokens.getValue(0))
            val view = dealer.getGame(created.gameId)
            val notation = notationFor(view.legalActionsList.first())
            val requestId = newRequestId()
            val first = dealer.act(created.gameId, notation, requestId)
            val again = dealer.act(created.gameId, notation, requestId)
            assertEquals(2, recorder.answers.size)
            assertTrue(recorder.answers[0].isNotEmpty())
            assertArrayEquals(recorder.answers[0], recorder.answers[1], "a retry must get the first answer's bytes")
            assertEquals(first, again)
            assertNotEquals(view.version, first.version)
            assertEquals(first.version, dealer.getGame(created.gameId).version, "the retry changed the game")
            println("KOTLIN-IDEMPOTENT $notation answered twice with the same ${recorder.answers[0].size} bytes")
        }
    }

    @Test
    fun `a lost answer is retried with the same request id`() = runBlocking {
        val recorder = ActRecorder()
        val fast = RetryPolicy(retries = 2, initialBackoff = 10.milliseconds, maxBackoff = 50.milliseconds)
        wires.first().client(OkHttpClient.Builder().addInterceptor(recorder).build(), fast).use { lobby ->
            val game = catalog.first()
            val created = lobby.createGame(game.name, (0 until game.seats).map { Seat.human("P$it") }, firstDealer = 0)
            val dealer = lobby.withToken(created.tokens.getValue(0))
            val view = dealer.getGame(created.gameId)
            recorder.loseNext = true
            val moved = dealer.act(view, view.legalActionsList.first()) // one logical call, two attempts
            assertEquals(2, recorder.answers.size, "the lost answer was not retried")
            assertArrayEquals(recorder.answers[0], recorder.answers[1], "the retry was not answered as the first attempt")
            assertEquals(moved.version, dealer.getGame(created.gameId).version)
        }
    }

    @Test
    fun `an unreachable server is UNAVAILABLE after the retries`() = runBlocking {
        val port = ServerSocket(0).use { it.localPort } // free a moment ago: nothing listens there
        val retry = RetryPolicy(retries = 2, initialBackoff = 10.milliseconds, maxBackoff = 20.milliseconds)
        GameClient("http://127.0.0.1:$port", retry = retry).use { client ->
            val error = assertThrows<GameException> { runBlocking { client.getGame("0123456789abcdef") } }
            assertEquals(Code.UNAVAILABLE, error.code)
            assertEquals(3, error.attempts)
        }
    }
}
