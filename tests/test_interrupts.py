"""Ctrl-C during a batch: held back where it could tear an operator's writes,
raised at the next safe point, and rolled back (``cugraph_stream/interrupts.py``)."""
import json
import os
import signal
import subprocess
import sys
import threading

import pytest

from cugraph_stream.interrupts import DeferredInterrupts

HERE = os.path.dirname(os.path.abspath(__file__))


def test_sigint_is_held_until_exit_then_delivered():
    with pytest.raises(KeyboardInterrupt):
        with DeferredInterrupts() as interrupts:
            signal.raise_signal(signal.SIGINT)
            assert interrupts.pending              # held: we are still here
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_raise_pending_raises_once():
    with DeferredInterrupts() as interrupts:
        interrupts.raise_pending()                 # nothing pending: nothing happens
        signal.raise_signal(signal.SIGINT)
        with pytest.raises(KeyboardInterrupt):
            interrupts.raise_pending()
        interrupts.raise_pending()                 # already raised


def test_an_ignored_sigint_stays_ignored():
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with DeferredInterrupts():
            signal.raise_signal(signal.SIGINT)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)


def test_another_thread_installs_nothing():
    seen = []

    def run():
        with DeferredInterrupts() as interrupts:
            seen.append(interrupts._installed)
    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert seen == [False]


# a real SIGINT at fractions of an uninterrupted apply's time (60K edges, 30K rows,
# SSSP + WCC + PageRank tracked), from a timer thread of the child process
FRACTIONS = [0.02, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.97, 1.5]


def test_ctrl_c_at_any_moment_of_a_batch_leaves_the_graph_whole():
    outcomes = []
    for i, fraction in enumerate(FRACTIONS):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.dirname(HERE), os.environ.get("PYTHONPATH", "")]))
        done = subprocess.run([sys.executable, os.path.join(HERE, "sigint_child.py"), str(i), str(fraction)],
                              capture_output=True, text=True, timeout=120, env=env)
        assert done.returncode == 0, done.stderr[-3000:]
        result = json.loads(done.stdout.strip().splitlines()[-1])
        where = f"SIGINT at {fraction} of the apply: {result}"
        # interrupted: rolled back (or, in the last instructions after the commit, kept whole)
        expected = {"interrupted": ("before", "after"), "applied": ("after",)}[result["outcome"]]
        assert result["state"] in expected, where
        assert result["next_ok"], where
        outcomes.append((result["outcome"], result["state"]))
    assert outcomes.count(("interrupted", "before")) >= len(FRACTIONS) // 2, outcomes
