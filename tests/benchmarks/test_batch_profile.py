"""benchmarks.batch_profile: the wrappers account for nested steps and leave nothing patched."""
import numpy as np

from benchmarks import batch_profile
from cugraph_stream.graph import StreamGraph


def test_self_time_excludes_wrapped_callees():
    profiler = batch_profile.StepProfiler()
    inner = profiler.wrap("inner", lambda: sum(range(20000)))
    outer = profiler.wrap("outer", lambda: inner() + inner())
    outer()
    calls_outer, self_outer = profiler.stats["outer"][:2]
    calls_inner, self_inner = profiler.stats["inner"][:2]
    assert (calls_outer, calls_inner) == (1, 2)
    assert self_inner > 0 and self_outer < self_inner


def test_make_batches_halves_deletions_and_insertions():
    edges = {"src": np.arange(100), "dst": np.arange(100) + 1, "weight": np.ones(100, np.float32)}
    g0, batches = batch_profile.make_batches(np, edges, 4, 3, seed=0)
    assert g0["src"].size == 100 - 12 and len(batches) == 3
    for batch in batches:
        assert batch["op"].tolist() == [-1, -1, 1, 1]
        assert all(batch[c].size == 4 for c in batch)


def test_runs_on_the_cpu_and_unpatches(capsys):
    import cugraph_stream.graph as graph_module
    from cugraph_stream.engine.journal import Journal

    before = StreamGraph.apply, graph_module.reduce_batch, Journal.save
    assert batch_profile.main(["--scale", "8", "--rows", "1", "--batches", "3", "--top", "5"]) == 0
    assert batch_profile.main(["--scale", "8", "--rows", "64", "--batches", "2", "--top", "5"]) == 0
    out = capsys.readouterr().out
    assert "| StreamGraph.apply |" in out or "| op:" in out
    assert (StreamGraph.apply, graph_module.reduce_batch, Journal.save) == before


def test_synchronised_operators_time_their_own_work(capsys, monkeypatch):
    """--sync-operators waits for the device after each operator, inside its
    timer and outside the batch's counts, and --queries none profiles the
    store's update alone."""
    from cugraph_stream.backends import get_backend

    ops = get_backend("cpu")
    waits = []
    monkeypatch.setattr(type(ops), "synchronize", lambda self: waits.append(1))
    profiler = batch_profile.StepProfiler()
    with batch_profile.patched(profiler, ops, sync_operators=True):
        before = ops.calls.snapshot()
        ops.unique(np.array([3, 1, 3]), 4)
        assert ops.calls.since(before) == (1, 1)          # unique's own call and wait only
    assert waits == [1] and profiler.stats["op:unique"][0] == 1 and "op:synchronize" not in profiler.stats
    monkeypatch.undo()
    assert batch_profile.main(["--scale", "8", "--rows", "64", "--batches", "2", "--top", "40", "--queries", "none",
                               "--sync-operators"]) == 0
    out = capsys.readouterr().out
    assert "every operator synchronised" in out and "MonotonicEngine" not in out and "| op:net_changes |" in out
