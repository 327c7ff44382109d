package cardgame.client

import com.connectrpc.ConnectException
import com.google.protobuf.CodedInputStream
import com.google.protobuf.InvalidProtocolBufferException
import java.io.IOException
import kotlin.time.Duration
import kotlin.time.Duration.Companion.nanoseconds
import kotlin.time.Duration.Companion.seconds

/**
 * A failed GameService call.
 *
 * - [code]: the gRPC / Connect status code (FAILED_PRECONDITION for an illegal move, ...);
 * - [reason]: the `google.rpc.ErrorInfo` reason, when the server sent one: the engine's code of a
 *   refused move ("NOT_YOUR_TURN", "MUST_FOLLOW_SUIT", ...), "RATE_LIMITED", ... Reasons are
 *   strings, not an enum: games may add their own;
 * - [domain] and [errorMetadata]: the rest of the ErrorInfo;
 * - [metadata]: the response's headers and trailers (gRPC metadata);
 * - [retryDelay]: how long the server's `google.rpc.RetryInfo` asks to wait, if it sent one;
 * - [attempts]: how many times the client sent the call before giving up with this error;
 * - [mayHaveRun]: whether an earlier attempt's answer was lost (it may have run on the server).
 */
public open class GameException(
    public val code: Code,
    public val serverMessage: String,
    public val reason: String? = null,
    public val domain: String? = null,
    public val errorMetadata: Map<String, String> = emptyMap(),
    public val metadata: Map<String, List<String>> = emptyMap(),
    public val retryDelay: Duration? = null,
    cause: Throwable? = null,
) : Exception(describe(code, serverMessage, reason), cause) {
    public var attempts: Int = 1
        internal set
    public var mayHaveRun: Boolean = false
        internal set

    /** Whether the rules (or the seat's state) refused a move: FAILED_PRECONDITION with a reason. */
    public val isRefusedMove: Boolean
        get() = code == Code.FAILED_PRECONDITION && reason != null

    public companion object {
        /** The reason domain of the server's ErrorInfo. */
        public const val DOMAIN: String = "cardgame.v1"

        private fun describe(code: Code, message: String, reason: String?): String {
            val text = message.ifEmpty { code.codeName }
            return if (reason != null) "$text (${code.codeName}, $reason)" else "$text (${code.codeName})"
        }

        /** The GameException of a failed Connect / gRPC call, with its ErrorInfo and RetryInfo decoded. */
        public fun from(error: ConnectException): GameException {
            var reason: String? = null
            var domain: String? = null
            var errorMetadata: Map<String, String> = emptyMap()
            var retryDelay: Duration? = null
            for (detail in error.details) {
                val bytes = detail.payload.toByteArray()
                try {
                    when (detail.type.substringAfterLast('/')) {
                        "google.rpc.ErrorInfo" -> if (reason == null) {
                            val info = parseErrorInfo(bytes)
                            reason = info.reason.ifEmpty { null }
                            domain = info.domain.ifEmpty { null }
                            errorMetadata = info.metadata
                        }
                        "google.rpc.RetryInfo" -> retryDelay = parseRetryDelay(bytes)
                    }
                } catch (_: InvalidProtocolBufferException) {
                    // a detail we cannot read says nothing we rely on
                }
            }
            val code = if (error.code == Code.UNKNOWN && isTransportFailure(error)) Code.UNAVAILABLE else error.code
            return GameException(code, error.message ?: "", reason, domain, errorMetadata, error.metadata,
                retryDelay, error)
        }

        /** A connection that could not be made or broke: the server is unreachable, not refusing. */
        private fun isTransportFailure(error: ConnectException): Boolean {
            var cause: Throwable? = error.exception
            while (cause != null) {
                if (cause is IOException) return true
                cause = cause.cause
            }
            return false
        }
    }
}

private class ErrorInfo(val reason: String, val domain: String, val metadata: Map<String, String>)

// ErrorInfo { string reason = 1; string domain = 2; map<string, string> metadata = 3; }, read by
// hand so that the client needs no google.rpc stubs (as the TypeScript client does).
private fun parseErrorInfo(bytes: ByteArray): ErrorInfo {
    val input = CodedInputStream.newInstance(bytes)
    var reason = ""
    var domain = ""
    val metadata = LinkedHashMap<String, String>()
    while (true) {
        val tag = input.readTag()
        when (tag) {
            0 -> return ErrorInfo(reason, domain, metadata)
            (1 shl 3) or 2 -> reason = input.readStringRequireUtf8()
            (2 shl 3) or 2 -> domain = input.readStringRequireUtf8()
            (3 shl 3) or 2 -> {
                val entry = CodedInputStream.newInstance(input.readByteArray())
                var key = ""
                var value = ""
                while (true) {
                    val part = entry.readTag()
                    when (part) {
                        0 -> break
                        (1 shl 3) or 2 -> key = entry.readStringRequireUtf8()
                        (2 shl 3) or 2 -> value = entry.readStringRequireUtf8()
                        else -> entry.skipField(part)
                    }
                }
                metadata[key] = value
            }
            else -> input.skipField(tag)
        }
    }
}

// RetryInfo { google.protobuf.Duration retry_delay = 1; }  Duration { int64 seconds = 1; int32 nanos = 2; }
private fun parseRetryDelay(bytes: ByteArray): Duration {
    val input = CodedInputStream.newInstance(bytes)
    var delay = Duration.ZERO
    while (true) {
        val tag = input.readTag()
        when (tag) {
            0 -> return delay
            (1 shl 3) or 2 -> {
                val duration = CodedInputStream.newInstance(input.readByteArray())
                while (true) {
                    val part = duration.readTag()
                    when (part) {
                        0 -> break
                        (1 shl 3) -> delay += duration.readInt64().seconds
                        (2 shl 3) -> delay += duration.readInt32().nanoseconds
                        else -> duration.skipField(part)
                    }
                }
            }
            else -> input.skipField(tag)
        }
    }
}
