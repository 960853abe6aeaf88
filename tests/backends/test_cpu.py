"""The CPU backend's placements and removals are all or nothing: a failure
part-way leaves every list as it was (the journal enters a call's pre-images
only after it returns, so a call that raises must change nothing itself)."""
import numpy as np
import pytest

from cugraph_stream.backends import cpu_kernels
from cugraph_stream.backends.cpu import CPUBackend
from cugraph_stream.engine.adjacency import Adjacency

BACKENDS = [pytest.param(True, id="compiled",
                         marks=pytest.mark.skipif(not cpu_kernels.available(), reason="numba is not installed")),
            pytest.param(False, id="numpy")]


def paired(ops, rng, n=24):
    """An out- and an in-adjacency of a few random arcs over ``n`` vertices."""
    key = np.unique(rng.integers(0, n, 120) * n + rng.integers(0, n, 120))
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


def arcs(rng, rows, n=24):
    return (rng.integers(0, n, rows), rng.integers(0, n, rows), rng.integers(1, 9, rows).astype(np.float32))


@pytest.mark.parametrize("compiled", BACKENDS)
@pytest.mark.parametrize("rows", [1, 40])
def test_place_arcs_that_fails_in_the_second_adjacency_changes_neither(monkeypatch, compiled, rows):
    """The out-adjacency's placement is undone where the in-adjacency's fails; the
    counts the compiled placement keeps between calls stay clean, so the next
    call places exactly as on an adjacency that never saw the failure."""
    ops = CPUBackend(compiled=compiled)
    rng = np.random.default_rng(rows)
    adjs, untouched = paired(ops, np.random.default_rng(0)), paired(ops, np.random.default_rng(0))
    before = lists(adjs)
    u, v, w = arcs(rng, rows)
    place, calls = ops._place, []

    def second_fails(*args, **kwargs):
        calls.append(args[0])
        if len(calls) == 2:
            raise MemoryError("injected")
        return place(*args, **kwargs)

    monkeypatch.setattr(ops, "_place", second_fails)
    with pytest.raises(MemoryError):
        ops.place_arcs(adjs, u, v, w, degrees=True)
    monkeypatch.undo()
    assert calls == list(adjs) and lists(adjs) == before
    assert (ops._count == 0).all()
    for pair in (adjs, untouched):
        ops.place_arcs(pair, u, v, w, degrees=True)
    assert lists(adjs) == lists(untouched)


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
