package cardgame.client

import kotlin.random.Random
import kotlin.time.Duration
import kotlin.time.Duration.Companion.milliseconds
import kotlin.time.Duration.Companion.seconds

/**
 * How a unary call is retried (the Python client's own retries, `GameClient.send`): a call refused
 * as UNAVAILABLE or DEADLINE_EXCEEDED, or as RESOURCE_EXHAUSTED with a `google.rpc.RetryInfo`
 * delay (a limit that waiting lifts), is sent again at most [retries] times, unchanged (its request
 * id included, so the server applies a move once), each after an exponential backoff
 * ([initialBackoff] doubled per retry, at most [maxBackoff]) with jitter (x0.5 to x1.5), and never
 * sooner than the RetryInfo asks. A refusal asking more than [maxRetryDelay] is raised at once.
 * ABORTED (a stale expected version) is never retried: the caller must look at the game again.
 */
public data class RetryPolicy(
    val retries: Int = 3,
    val initialBackoff: Duration = 200.milliseconds,
    val maxBackoff: Duration = 2.seconds,
    val maxRetryDelay: Duration = 5.seconds,
) {
    init {
        require(retries >= 0) { "retries must be >= 0, got $retries" }
        require(initialBackoff > Duration.ZERO && initialBackoff <= maxBackoff) {
            "backoffs must be above 0, the initial one at most maxBackoff"
        }
    }

    /** Whether [error] may be sent again after a wait. */
    public fun isRetryable(error: GameException): Boolean = when (error.code) {
        Code.UNAVAILABLE, Code.DEADLINE_EXCEEDED -> true
        Code.RESOURCE_EXHAUSTED -> error.retryDelay != null
        else -> false
    }

    /** The wait before retry number [attempt] + 1 (0 = the first retry), jitter included. */
    public fun backoff(attempt: Int, random: Random = Random.Default): Duration {
        val base = initialBackoff * (1L shl attempt.coerceAtMost(20)).toDouble()
        return base.coerceAtMost(maxBackoff) * (0.5 + random.nextDouble())
    }

    public companion object {
        /** No retries at all. */
        public val NONE: RetryPolicy = RetryPolicy(retries = 0)
    }
}
