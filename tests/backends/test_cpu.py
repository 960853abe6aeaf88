"""The CPU backend's placements and removals are all or nothing: a failure
part-way leaves every list as it was (the journal enters a call's pre-images
only after it returns, so a call that raises must change nothing itself)."""
import numpy as np
import pytest

from cugraph_stream.backends import cpu_kernels, cpu_threads
from cugraph_stream.backends.cpu import _BOTH_ADJACENCIES_FROM as BOTH_FROM
from cugraph_stream.backends.cpu import CPUBackend
from cugraph_stream.engine.adjacency import Adjacency

BACKENDS = [pytest.param(True, id="compiled",
                         marks=pytest.mark.skipif(not cpu_kernels.available(), reason="numba is not installed")),
            pytest.param(False, id="numpy")]


def paired(ops, rng, n=24, arcs=120):
    """An out- and an in-adjacency of up to ``arcs`` random arcs over ``n`` vertices."""
    key = np.unique(rng.integers(0, n, arcs) * n + rng.integers(0, n, arcs))
    src, dst = key // n, key % n
    adjs = Adjacency(ops, np.float32, with_twin=False), Adjacency(ops, np.float32, with_twin=False)
    for adj, (a, b) in zip(adjs, ((src, dst), (dst, src))):
        adj.ensure_vertices(n)
        adj.build(a, b, np.ones(src.size, dtype=np.float32), src_sorted=adj is adjs[0])
    return adjs


def lists(adjs):
    """Each list's entries (neighbour, weight) in order, per adjacency."""
    return [[list(zip(adj.nbr[s:s + d].tolist(), adj.wgt[s:s + d].tolist()))
             for s, d in zip(adj.start.tolist(), adj.degree.tolist())] for adj in adjs]


def entries(adj, rng, rows):
    """``(owners, slots)`` of ``rows`` distinct entries of ``adj`` drawn at random."""
    owner = np.repeat(np.arange(adj.degree.size), adj.degree)
    slot = np.concatenate([np.arange(s, s + d) for s, d in zip(adj.start.tolist(), adj.degree.tolist())])
    pick = rng.choice(slot.size, rows, replace=False)
    return owner[pick], slot[pick]


def arcs(rng, rows, n=24):
    return (rng.integers(0, n, rows), rng.integers(0, n, rows), rng.integers(1, 9, rows).astype(np.float32))


@pytest.mark.parametrize("compiled", BACKENDS)
@pytest.mark.parametrize("rows", [1, 40, 6000])         # (6000: the compiled kernels place both at once)
@pytest.mark.parametrize("failing", [0, 1])
def test_place_arcs_that_fails_in_either_adjacency_changes_neither(monkeypatch, compiled, rows, failing):
    """The other adjacency's placement is undone where one adjacency's fails; the
    counts the compiled placement keeps between calls stay clean, so the next
    call places exactly as on an adjacency that never saw the failure."""
    monkeypatch.setenv(cpu_threads.ENV_VAR, "2")
    ops = CPUBackend(compiled=compiled)
    rng = np.random.default_rng(rows)
    n, m = (24, 120) if rows < 1000 else (400, 16000)     # (lists with room for part of the rows)
    adjs, untouched = (paired(ops, np.random.default_rng(0), n, m) for _ in range(2))
    before = lists(adjs)
    u, v, w = arcs(rng, rows, n)
    place, calls = ops._place, []

    def one_fails(*args, **kwargs):
        calls.append(args[0])
        if args[0] is adjs[failing]:
            raise MemoryError("injected")
        return place(*args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(ops, "_place", one_fails)
        with pytest.raises(MemoryError):
            ops.place_arcs(adjs, u, v, w, degrees=True)
    at_once = compiled and rows >= BOTH_FROM     # (else the out-adjacency first; it failing, nothing else runs)
    assert len(calls) == (2 if at_once or failing == 1 else 1) and lists(adjs) == before
    assert all((count == 0).all() for count in ops._counts)
    placed = [ops.place_arcs(pair, u, v, w, degrees=True) for pair in (adjs, untouched)]
    assert lists(adjs) == lists(untouched) and all((p.slots >= 0).any() for p in placed[0])


@pytest.mark.skipif(not cpu_kernels.available(), reason="numba is not installed")
@pytest.mark.parametrize("rows", [40, 6000])          # (6000: both adjacencies at once)
@pytest.mark.parametrize("failing", [0, 1])
def test_remove_arcs_that_fails_in_either_adjacency_changes_neither(monkeypatch, rows, failing):
    """The other adjacency's removal is undone where one adjacency's fails."""
    monkeypatch.setenv(cpu_threads.ENV_VAR, "2")
    ops = CPUBackend(compiled=True)
    rng = np.random.default_rng(rows)
    adjs = paired(ops, np.random.default_rng(4), n=400, arcs=16000)
    before = lists(adjs)
    owners, slots = zip(*(entries(adj, rng, rows) for adj in adjs))
    remove, calls = ops.kernels.remove_entries, []

    def one_fails(adj, *args, **kwargs):
        calls.append(adj)
        if adj is adjs[failing]:
            raise MemoryError("injected")
        return remove(adj, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(ops.kernels, "remove_entries", one_fails)
        with pytest.raises(MemoryError):
            ops.remove_arcs(adjs, owners, slots)
    assert len(calls) == (2 if rows >= BOTH_FROM or failing == 1 else 1) and lists(adjs) == before
    ops.remove_arcs(adjs, owners, slots)            # (and without a failure: each adjacency loses its rows)
    assert [sum(map(len, per_list)) for per_list in lists(adjs)] == [sum(map(len, per_list)) - rows
                                                                      for per_list in before]


@pytest.mark.parametrize("compiled", BACKENDS)
def test_a_placement_that_fails_after_writing_degrees_puts_them_back(monkeypatch, compiled):
    """A placement that raises after it wrote the degrees (the NumPy placement
    allocates its results after its writes) leaves the degrees as they were."""
    ops = CPUBackend(compiled=compiled)
    adj = paired(ops, np.random.default_rng(1))[0]
    before = lists([adj])
    u, v, w = arcs(np.random.default_rng(2), 30)
    order = np.argsort(u, kind="stable")
    real = ops.kernels.place_entries if compiled else ops._place_entries

    def fails_after(*args):
        real(*args)
        raise MemoryError("injected")

    monkeypatch.setattr(ops.kernels if compiled else ops, "place_entries" if compiled else "_place_entries",
                        fails_after)
    with pytest.raises(MemoryError):
        ops.place_entries(adj, u[order], v[order], w[order], degrees=True)
    assert lists([adj]) == before


def test_a_numpy_removal_that_fails_part_way_puts_the_entries_back(monkeypatch):
    """The NumPy removal (``Backend.remove_entries``) allocates between its
    writes; where it fails after closing the holes, the removed entries and
    the degrees are put back from the pre-images it read first."""
    ops = CPUBackend(compiled=False)
    adj = paired(ops, np.random.default_rng(3))[0]
    before = lists([adj])
    owners = np.repeat(np.arange(adj.degree.size), adj.degree)
    slots = np.concatenate([np.arange(s, s + d) for s, d in zip(adj.start.tolist(), adj.degree.tolist())])
    pick = np.sort(np.random.default_rng(4).choice(slots.size, 25, replace=False))
    close_holes = ops.close_holes

    def fails_after(*args):
        close_holes(*args)
        raise MemoryError("injected")

    monkeypatch.setattr(ops, "close_holes", fails_after)
    with pytest.raises(MemoryError):
        ops.remove_entries(adj, owners[pick], slots[pick], keep=True)
    assert lists([adj]) == before


@pytest.mark.skipif(not cpu_kernels.available(), reason="numba is not installed")
def test_batches_large_enough_for_both_adjacencies_at_once_keep_sssp_exact(monkeypatch):
    """Batches whose removals and placements run in both adjacencies at once (two
    threads) leave the graph and SSSP as one thread does, and as a recomputation."""
    import cugraph_stream as cgs
    from cugraph_stream.datasets import mixed_stream, rmat

    stream = mixed_stream(rmat(13, edge_factor=8, seed=5), 3, 2 * BOTH_FROM + 2000, delete_fraction=0.5, seed=5)
    results = {}
    for threads in ("1", "2"):
        monkeypatch.setenv(cpu_threads.ENV_VAR, threads)
        g = cgs.StreamGraph.from_edgelist(stream.initial, weight="weight", backend=CPUBackend(compiled=True))
        sssp = g.track(cgs.SSSP(source=int(stream.initial["src"].iloc[0]), mode="incremental"))
        for batch in stream:
            g.apply(batch, weight="weight")
        scratch = g.track(cgs.SSSP(source=sssp.source, mode="recompute"))
        paths = sssp.result().sort_values("vertex", ignore_index=True)
        results[threads] = (paths, g.edges().sort_values(["src", "dst"], ignore_index=True))
        assert paths.equals(scratch.result().sort_values("vertex", ignore_index=True))
    assert all(a.equals(b) for a, b in zip(results["1"], results["2"]))
