package cardgame.client

import java.io.File
import java.util.Collections
import kotlin.random.Random
import kotlin.time.Duration.Companion.seconds
import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test

/**
 * A WatchGame flow that outlives its server: the test asks its driver (a file "stop" in
 * CARDGAME_SIGNAL_DIR) to kill the server and start a new one on the same port and store; the
 * driver answers with a file "restarted". The flow must go on from the last version it delivered,
 * without a gap or a repeat, to the end of the game.
 */
class WatchRestartTest {
    @Test
    fun `a WatchGame flow survives a server restart`() = runBlocking {
        val dir = Live.signalDir
        GameClient(Live.restartServer, retry = RetryPolicy(retries = 6)).use { lobby ->
            val random = Random(7)
            val table = Table.open(lobby, lobby.getCatalog().first())
            val seen = Collections.synchronizedList(mutableListOf<GameView>())
            val watcher = CoroutineScope(Dispatchers.IO).launch {
                table.seats.getValue(0).watchGame(table.gameId, reconnectTimeout = 60.seconds).collect { seen += it }
            }
            var before = 0L
            val last = try {
                Live.waitUntil("the first view", 10.seconds) { seen.isNotEmpty() }
                repeat(3) { table.step(random) }
                before = lobby.getGame(table.gameId).version
                Live.waitUntil("the views before the restart", 10.seconds) { seen.last().version >= before }

                File(dir, "stop").writeText("$before\n")
                Live.waitUntil("the driver's restart", 60.seconds) { File(dir, "restarted").exists() }
                table.playToEnd(random).also { withTimeout(60.seconds) { watcher.join() } }
            } finally {
                watcher.cancel()
            }

            val versions = seen.map { it.version }
            assertEquals((versions.first()..last.version).toList(), versions, "a gap or a repeat in $versions")
            assertTrue(versions.any { it <= before } && versions.any { it > before })
            assertTrue(seen.last().isOver && seen.all { it.viewerSeat == 0 })
            println("KOTLIN-RESTART watched versions ${versions.first()}..${versions.last()} across a restart at version $before")
        }
    }
}
