"""cugraph_stream/report.py: the phase clock's marks, read once and given back."""
import time

from cugraph_stream.report import PhaseClock


def test_a_clock_reads_its_marks_once_and_gives_them_back(ops, monkeypatch):
    released = []
    monkeypatch.setattr(ops, "release_marks", released.extend)
    clock = PhaseClock(ops)
    clock.lap("validate")
    time.sleep(0.002)
    clock.lap("store")
    clock.lap("validate")
    ops.synchronize()               # (the device past the last mark, as after a batch's commit)
    times = clock.times()
    assert list(times) == ["validate", "store"] and times["store"] > 0
    assert len(released) == 4 and clock.times() == {}


def test_the_backend_hands_given_back_marks_out_again(ops):
    """The GPU's events are made once and recorded again; clocks of reused events
    still time their phases (that they do, not how long: tests assert no timings)."""
    first = ops.mark()
    ops.synchronize()
    ops.release_marks([first])
    if ops.name == "gpu":           # (the CPU's marks are clock readings: nothing to reuse)
        assert ops.mark() is first
    for _ in range(3):              # (each clock gives its marks back for the next)
        clock = PhaseClock(ops)
        time.sleep(0.002)
        clock.lap("slept")
        ops.synchronize()
        assert clock.times()["slept"] > 0     # (a pending or foreign event would raise or go negative)
