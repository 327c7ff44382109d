"""`make bench`: every benchmark, one `name value` line per figure."""

from bench import (
    engine_hands,
    idle,
    instructions,
    lifecycle,
    openspiel,
    python_calls,
    redis_bytes,
    service_moves,
    views,
    watch_fanout,
)

if __name__ == "__main__":
    engine_hands.main()
    openspiel.main()
    views.main()
    service_moves.main()
    instructions.main()
    python_calls.main()
    redis_bytes.main()
    lifecycle.main()
    watch_fanout.main()
    idle.main()
