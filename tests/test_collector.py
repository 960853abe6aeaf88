"""The garbage collector's clock (cugraph_stream.collector)."""
import gc

from cugraph_stream import collector


def test_the_clock_counts_each_collection_once_and_is_installed_once():
    before = collector.collector_seconds()
    clocks = [c for c in gc.callbacks if isinstance(c, collector._CollectorClock)]
    assert len(clocks) == 1
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        assert collector.collector_seconds() == before          # nothing collected meanwhile
        gc.collect()
        after_one = collector.collector_seconds()
        gc.collect(0)
        after_two = collector.collector_seconds()
    finally:
        if was_enabled:
            gc.enable()
    assert before < after_one < after_two
    assert [c for c in gc.callbacks if isinstance(c, collector._CollectorClock)] == clocks
