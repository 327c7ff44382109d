package cardgame.client

import cardgame.v1.Enums
import com.connectrpc.ConnectErrorDetail
import com.connectrpc.ConnectException
import com.google.protobuf.CodedOutputStream
import java.io.ByteArrayOutputStream
import kotlin.random.Random
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds
import okio.ByteString.Companion.toByteString
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.assertThrows

/** What needs no server: notations, retry timing, errors' details. */
class UnitTest {
    @Test
    fun `notations come from the legal action`() {
        val play = LegalAction.newBuilder().setNotation("play AS").build()
        assertEquals("play AS", notationFor(play))
        val choose = LegalAction.newBuilder().setNotation("exchange").addAllCards(listOf("2C", "3D", "4H", "5S"))
            .setMinCards(1).setMaxCards(3).build()
        assertEquals("exchange 3D 4H", notationFor(choose, listOf("3D", "4H")))
        repeat(20) {
            val chosen = notationFor(choose, random = Random(it)).split(" ")
            assertEquals("exchange", chosen.first())
            assertTrue(chosen.size - 1 in 1..3 && choose.cardsList.containsAll(chosen.drop(1)))
        }
        assertThrows<IllegalArgumentException> { notationFor(LegalAction.getDefaultInstance()) }
        assertEquals(Enums.PlayerKind.PLAYER_KIND_BOT_STRONG, playerKind("strong"))
        assertEquals(Enums.PlayerKind.PLAYER_KIND_HUMAN, playerKind("human"))
        assertTrue(newRequestId() != newRequestId())
    }

    @Test
    fun `backoff doubles with jitter up to its cap`() {
        val policy = RetryPolicy(retries = 5, initialBackoff = 100.milliseconds, maxBackoff = 1.seconds)
        repeat(50) {
            assertTrue(policy.backoff(0) in 50.milliseconds..150.milliseconds)
            assertTrue(policy.backoff(2) in 200.milliseconds..600.milliseconds)
            assertTrue(policy.backoff(9) in 500.milliseconds..1500.milliseconds)
        }
        val limited = GameException(Code.RESOURCE_EXHAUSTED, "slow down", retryDelay = 1.seconds)
        assertTrue(policy.isRetryable(limited))
        assertTrue(!policy.isRetryable(GameException(Code.RESOURCE_EXHAUSTED, "a cap")))
        assertTrue(!policy.isRetryable(GameException(Code.ABORTED, "stale")))
        assertTrue(policy.isRetryable(GameException(Code.UNAVAILABLE, "down")))
    }

    @Test
    fun `error details are decoded`() {
        val info = message { out ->
            out.writeString(1, "MUST_FOLLOW_SUIT")
            out.writeString(2, "cardgame.v1")
            out.writeByteArray(3, message { entry -> entry.writeString(1, "seat"); entry.writeString(2, "2") })
        }
        val retry = message { out -> out.writeByteArray(1, message { d -> d.writeInt64(1, 2); d.writeInt32(2, 500_000_000) }) }
        val error = ConnectException(Code.FAILED_PRECONDITION, "you must follow suit").withErrorDetails(
            com.connectrpc.extensions.GoogleJavaProtobufStrategy().errorDetailParser(),
            listOf(
                ConnectErrorDetail("type.googleapis.com/google.rpc.ErrorInfo", info.toByteString()),
                ConnectErrorDetail("google.rpc.RetryInfo", retry.toByteString()),
            ),
        )
        val decoded = GameException.from(error)
        assertEquals(Code.FAILED_PRECONDITION, decoded.code)
        assertEquals("MUST_FOLLOW_SUIT", decoded.reason)
        assertEquals("cardgame.v1", decoded.domain)
        assertEquals(mapOf("seat" to "2"), decoded.errorMetadata)
        assertEquals(2.5.seconds, decoded.retryDelay)
        assertTrue(decoded.isRefusedMove)
        assertTrue(decoded.message!!.contains("MUST_FOLLOW_SUIT"))
    }

    private fun message(write: (CodedOutputStream) -> Unit): ByteArray {
        val bytes = ByteArrayOutputStream()
        val out = CodedOutputStream.newInstance(bytes)
        write(out)
        out.flush()
        return bytes.toByteArray()
    }
}
