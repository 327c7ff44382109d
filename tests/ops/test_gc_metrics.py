"""Garbage collections timed into the metrics' histogram."""

from __future__ import annotations


def test_garbage_collections_are_timed_into_a_histogram():
    import gc

    from prometheus_client import REGISTRY

    from service.telemetry import metrics

    def collections(generation: str) -> float:
        return REGISTRY.get_sample_value("cardgame_gc_pause_seconds_count", {"generation": generation}) or 0.0

    metrics.time_gc()
    metrics.time_gc()   # once per process, however often asked
    assert gc.callbacks.count(metrics._gc_pause) == 1
    gc.disable()   # no collection but the test's own between the counts
    try:
        metrics.flush_gc()
        before = collections("1")
        gc.collect(1)
        # the collector's callback only queues the pause: observing it there could take a metric's
        # lock that the interrupted code holds; the next flush (every call's end) observes it
        assert collections("1") == before
        metrics.flush_gc()
        assert collections("1") == before + 1
        assert REGISTRY.get_sample_value("cardgame_gc_pause_seconds_sum", {"generation": "1"}) > 0
    finally:
        gc.enable()
        gc.callbacks.remove(metrics._gc_pause)   # the rest of this test process runs untimed
