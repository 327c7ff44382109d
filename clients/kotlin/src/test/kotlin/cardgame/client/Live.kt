package cardgame.client

import java.io.File
import kotlin.random.Random
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds
import kotlinx.coroutines.delay
import kotlinx.coroutines.withTimeout

/**
 * What the live tests are given by tests/clients/test_kotlin_client.py (or by hand): the addresses
 * of running servers. A missing one fails the test: these tests never skip.
 */
object Live {
    /** The HTTP port of the main server (Connect, gRPC-Web): `http://127.0.0.1:8080`. */
    val httpServer: String get() = env("CARDGAME_HTTP_SERVER")

    /** The gRPC port of the same server: `http://127.0.0.1:50051`. */
    val grpcServer: String get() = env("CARDGAME_SERVER")

    /** The HTTP port of the server that the test driver restarts on request. */
    val restartServer: String get() = env("CARDGAME_RESTART_HTTP_SERVER")

    /** Where the restart test and its driver leave each other files ("stop", "restarted"). */
    val signalDir: File get() = File(env("CARDGAME_SIGNAL_DIR"))

    private fun env(name: String): String =
        System.getenv(name)?.takeIf { it.isNotEmpty() }
            ?: throw AssertionError("$name is not set: run tests/clients/test_kotlin_client.py, or set it to a live server")

    /** Waits until [condition] holds, polling; fails naming [what] after [timeout]. */
    suspend fun waitUntil(what: String, timeout: Duration, condition: () -> Boolean) {
        try {
            withTimeout(timeout) {
                while (!condition()) delay(20.milliseconds)
            }
        } catch (e: kotlinx.coroutines.TimeoutCancellationException) {
            throw AssertionError("timed out after $timeout waiting for $what", e)
        }
    }
}

/** A game being played by the clients of its human seats. */
class Table(val game: GameDescription, val created: CreatedGame, val seats: Map<Int, GameClient>) {
    val gameId: String get() = created.gameId
    val moves = mutableListOf<Pair<Int, String>>()

    /**
     * One move: the first human seat (in seat order) whose view has legal actions takes one of
     * them at random; returns that seat's view after it, or null when no seat may act.
     */
    suspend fun step(random: Random): GameView? {
        for ((seat, client) in seats) {
            val view = client.getGame(gameId)
            if (view.isOver) return view
            if (view.legalActionsCount == 0) continue
            check(view.viewerSeat == seat) { "seat $seat was shown the view of seat ${view.viewerSeat}" }
            val action = view.legalActionsList[random.nextInt(view.legalActionsCount)]
            val notation = notationFor(action, random = random)
            moves += seat to notation
            return client.act(gameId, notation)
        }
        return null
    }

    /** Plays until the game is over (at most [maxMoves] moves); returns the last view. */
    suspend fun playToEnd(random: Random, maxMoves: Int = 3000): GameView {
        var view = seats.values.first().getGame(gameId)
        while (!view.isOver) {
            check(moves.size < maxMoves) { "${game.name}: not over after $maxMoves moves" }
            view = step(random) ?: throw AssertionError("${game.name}: no seat may act at version ${view.version}")
        }
        return view
    }

    companion object {
        /**
         * A new game of [game]: humans in the even seats (seat 0, the first dealer, among them),
         * the server's basic bots in the odd ones, at the shortest length the catalog allows
         * (the game's target setting at its smallest value).
         */
        suspend fun open(client: GameClient, game: GameDescription): Table {
            val seats = (0 until game.seats).map { if (it % 2 == 0) Seat.human("P$it") else Seat.bot("Bot $it", "basic") }
            val target = game.settingsList.firstOrNull { it.name == game.targetSetting }
            val settings = if (target == null) emptyMap() else mapOf(target.name to target.min)
            val created = client.createGame(game.name, seats, settings, firstDealer = 0)
            return Table(game, created, created.tokens.toSortedMap().mapValues { client.withToken(it.value) })
        }
    }
}
