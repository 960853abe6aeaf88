"""All or nothing under any failure: a fault injected at every operator call,
and at every allocation the package makes through NumPy (CPU) or at every
third through CuPy (GPU), inside operators too (``failing_memory.AllocationFaults``).

For each graph call (``apply``, ``remove_vertices``, ``add_vertices``,
``track``) the sweep fails the call at its first operator call, then at its
second, and so on (``cugraph_stream.backends.faults.FaultInjector``), until
the call runs through.  After every failure the graph must equal what it was
before the call: edges, vertices, every query's ``result()`` and
``changes()``, the last report, the store's invariants, the hot-list cache
(the same lists, equal to the store's) and the hotness counts.  The call
that finally runs through must then leave every query equal to the
from-scratch references (``tests/reference.py``), as must the batches after
it.  Batches are built to create and remove vertices, relocate outgrown
lists, compact the adjacency, rebuild the edge index, refresh the cache and
converge every query kind.
"""
import random

import numpy as np
import pytest

import cugraph_stream as cgs
from cugraph_stream.backends import cpu_kernels
from cugraph_stream.backends.cpu import CPUBackend
from cugraph_stream.backends.faults import FaultInjector
from cugraph_stream.engine import adjacency
from cugraph_stream.engine import journal as journal_module
from failing_memory import AllocationFaults
from reference import ALL_KINDS, Harness, ScriptedRefreshPolicy, host, random_batch


#: the GPU sweeps fail every GPU_STRIDE-th operator call (see sweep)
GPU_STRIDE = 4
#: the CPU backend's two paths (``CPUBackend(compiled=...)``): numba kernels, or NumPy alone
CPU_PATHS = [pytest.param(True, id="compiled", marks=pytest.mark.skipif(not cpu_kernels.available(),
                                                                        reason="numba is not installed")),
             pytest.param(False, id="numpy")]


class InjectedFault(MemoryError):
    """The failure the sweep injects (a MemoryError, as an allocation would raise)."""


class InjectedInterrupt(KeyboardInterrupt):
    """A Ctrl-C raised at an operator call."""


@pytest.fixture
def compact_early(monkeypatch):
    """Compact an adjacency as soon as its garbage exceeds its live slots (not 64K slots)."""
    monkeypatch.setattr(adjacency, "MIN_COMPACT_SLOTS", 0)


def internals(g):
    """What the public state does not show: the last report, the caches' lists and the hotness."""
    store = g._store
    bound = store.vertex_bound
    out = {"last_report": g.last_report, "num_vertices": store.num_vertices, "index live": store.index.live}
    for side, adj, hotness in store.cached:
        out[f"hotness {side}"] = (hotness.pending, store.ops.to_host(hotness.counts[:bound]).tolist())
        cached = store.ops.to_host(store.ops.xp.flatnonzero(adj.cache.in_cache[:bound]))
        out[f"cached {side}"] = sorted(cached.tolist())
    return out


def sweep(h, call, error=InjectedFault, where="call", stride=1, every_call=False):
    """Fail ``call(h.g)`` at operator call 0, ``stride``, 2 ``stride``, ... until it runs
    through; after each failure the graph must be as before.  Returns the result of
    the run that went through and the number of operator calls it made.

    On the GPU the stride is :data:`GPU_STRIDE` times longer unless
    ``every_call``: each failure is checked through many device-to-host
    copies, and the CPU sweep covers every call of the same engine code (the
    GPU sweep checks that its operators' in-place writes roll back too)."""
    ops = h.g._ops
    if ops.name == "gpu" and not every_call:
        stride *= GPU_STRIDE
    before, hidden = h.state(), internals(h.g)
    at = 0
    while True:
        with FaultInjector(ops, at=at, error=error) as fault:
            try:
                result = call(h.g)
            except error:
                assert fault.fired, f"{where}: {error.__name__} raised but not injected"
        if not fault.fired:
            return result, len(fault.names)
        w = f"{where}: failed at operator call {at} ({fault.names[at]})"
        h.assert_state(before, w)
        assert internals(h.g) == hidden, w
        h.g._store.check_cache()
        at += stride


def sweep_allocations(h, call, where="call", stride=1):
    """:func:`sweep` with the failure at every ``stride``-th allocation the package's
    code makes through its backend's array module (``failing_memory.AllocationFaults``:
    between an operator's writes too, where :func:`sweep` cannot reach) instead
    of at every operator call."""
    before, hidden = h.state(), internals(h.g)
    at = 0
    while True:
        with AllocationFaults(at=at, error=InjectedFault, xp=h.g._ops.xp) as fault:
            try:
                result = call(h.g)
            except InjectedFault:
                assert fault.fired
        if not fault.fired:
            return result, at
        w = f"{where}: failed at allocation {at} ({fault.where})"
        h.assert_state(before, w)
        assert internals(h.g) == hidden, w
        h.g._store.check_cache()
        at += stride


def apply_swept(h, rows, where, **kw):
    """:func:`sweep` over applying ``rows``; then the model follows and everything is checked."""
    batch = _frame(rows)
    before = h.snapshot()
    report, calls = sweep(h, lambda g: g.apply(batch, weight="weight"), where=where, **kw)
    h.model.apply_rows(rows)
    h.check_all(where, before)
    assert calls > 10, f"{where}: only {calls} operator calls"
    return report


def _frame(rows):
    import pandas as pd
    return pd.DataFrame({"src": np.array([r[0] for r in rows], dtype=np.int64),
                         "dst": np.array([r[1] for r in rows], dtype=np.int64),
                         "op": [("insert" if r[2] == 1 else "delete") for r in rows],
                         "weight": [np.nan if r[3] is None else float(r[3]) for r in rows]})


def make_harness(backend, placement, directed, seed, n_edges=60, kinds=ALL_KINDS,
                 modes=("incremental", "recompute")):
    rng = random.Random(seed)
    ids = [rng.randrange(-2**40, 2**40) for _ in range(24)]
    weights = [0.0, 0.5, 1.0, 2.0, 3.0, 7.25]
    edges = [(rng.choice(ids), rng.choice(ids), rng.choice(weights)) for _ in range(n_edges)]
    edges.append((ids[0], ids[1], 1.0))
    sources = {k: ids[0] for k in ("SSSP", "BFS", "WidestPath")}
    h = Harness(cgs, directed=directed, backend=backend, edges=edges, sources=sources,
                kinds=kinds, modes=modes, placement=placement, tol=1e-8)
    return h, rng, ids, weights


def tree_rows(h, kind="SSSP"):
    """Delete rows for edges of ``kind``'s predecessor tree (to invalidate subtrees)."""
    q = next(q for k, m, q in h.queries if k == kind and m == "incremental")
    df = host(q.result())
    tree = df[df["predecessor"] != -1]
    return [(int(p), int(v), -1, None) for p, v in zip(tree["predecessor"], tree["vertex"])][:3]


@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
def test_apply_rolls_back_at_every_operator_call(backend, placement, directed, compact_early):
    _sweep_a_mixed_batch(backend, placement, directed)


def test_a_batch_planned_ahead_rolls_back_at_every_operator_call(backend, placement, compact_early, monkeypatch):
    """The same with the relocations planned before the placements' count is read
    (PLAN_AHEAD_ARCS 0: every batch)."""
    from cugraph_stream.engine import store

    monkeypatch.setattr(store, "PLAN_AHEAD_ARCS", 0)
    _sweep_a_mixed_batch(backend, placement, True)


def _sweep_a_mixed_batch(backend, placement, directed):
    """A mixed batch (new vertices, tree edges deleted, a list outgrowing its room)
    failed at each operator call in turn, then batches after it, all checked."""
    h, rng, ids, weights = make_harness(backend, placement, directed, seed=1)
    fresh = [rng.randrange(-2**62, 2**62) for _ in range(5)]
    rows = random_batch(rng, h.model, ids + fresh, 20, weights)
    rows += tree_rows(h)
    rows += [(ids[2], v, 1, 1.5) for v in ids[3:15]]            # one list outgrows its room
    rows += [(fresh[0], fresh[1], 1, 0.0), (ids[0], fresh[0], 1, 0.25)]
    apply_swept(h, rows, "mixed batch")
    # later batches stay exact
    for step in range(3):
        h.apply(random_batch(rng, h.model, ids + fresh, 15, weights))


@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
def test_single_rows_roll_back_at_every_operator_call(backend, placement, directed, compact_early):
    """One-row batches (engine/single_row.py: one operator writes the row, and the
    journal's undo step reads its record at a rollback): inserts of an absent
    edge and of a loop, a weight update, a delete of a tree edge, an unchanged
    insert, an ignored delete and the loop's delete, each failed at every
    operator call, on the GPU too."""
    h, rng, ids, weights = make_harness(backend, placement, directed, seed=3)
    loop = next((a, a) for a in ids if not h.model.has_edge(a, a))
    absent = next((a, b) for a in ids for b in ids if a != b and not h.model.has_edge(a, b))
    (tree_edge,) = tree_rows(h)[:1]
    present = next(e for e in sorted(h.model.edges) if e != tree_edge[:2] and e[0] != e[1])
    for k, row in enumerate([(*absent, 1, 0.5), (*loop, 1, 2.0), (*present, 1, 9.5), tree_edge, (*present, 1, 9.5),
                             (*tree_edge[:2], -1, None), (*loop, -1, None)]):
        apply_swept(h, [row], f"single row {k}: {row}", every_call=True)


@pytest.mark.parametrize("compiled", CPU_PATHS)
@pytest.mark.parametrize("placement_kind", ["device", "cached"])
def test_apply_rolls_back_at_every_numpy_allocation(compiled, placement_kind, compact_early):
    """A ``MemoryError`` at any NumPy allocation of a batch (on the CPU: inside
    operators, between their writes) leaves the graph as it was, and the batch
    then applies exactly.  (It found the out-adjacency's placement left in place
    when the in-adjacency's failed.)"""
    h, rng, ids, weights = make_harness(CPUBackend(compiled=compiled), placement_kind, True, seed=1)
    fresh = [rng.randrange(-2**62, 2**62) for _ in range(5)]
    rows = random_batch(rng, h.model, ids + fresh, 20, weights)
    rows += tree_rows(h)
    rows += [(ids[2], v, 1, 1.5) for v in ids[3:15]]            # one list outgrows its room
    rows += [(fresh[0], fresh[1], 1, 0.0), (ids[0], fresh[0], 1, 0.25)]
    batch, before = _frame(rows), h.snapshot()
    _, allocations = sweep_allocations(h, lambda g: g.apply(batch, weight="weight"), where="mixed batch")
    assert allocations > 100, allocations
    h.model.apply_rows(rows)
    h.check_all("mixed batch", before)
    for step in range(2):
        h.apply(random_batch(rng, h.model, ids + fresh, 15, weights))


@pytest.mark.parametrize("compiled", CPU_PATHS)
@pytest.mark.parametrize("graph", ["undirected", "pagerank"])
def test_other_graphs_roll_back_at_every_numpy_allocation(compiled, graph, compact_early, monkeypatch):
    """The sweep above on an undirected graph (one adjacency, each edge two arcs:
    every kind of query) and on a cached graph tracking PageRank alone, weighted
    and personalised, whose batch takes dense rounds."""
    import pandas as pd

    from cugraph_stream.engine.pagerank import PageRankEngine

    ops = CPUBackend(compiled=compiled)
    if graph == "undirected":
        h, rng, ids, weights = make_harness(ops, "device", False, seed=4)
    else:
        h, rng, ids, weights = make_harness(ops, "cached", True, seed=5, kinds=("PageRank",),
                                            modes=("incremental",))
        chosen = [v for v in ids if v in h.model.vertices][:2]
        h.track("PageRank", "incremental", personalization=pd.DataFrame({"vertex": chosen, "values": [1.0, 3.0]}))
    fresh = [rng.randrange(-2**62, 2**62) for _ in range(3)]
    rows = random_batch(rng, h.model, ids + fresh, 30, weights)
    rows += tree_rows(h) if graph == "undirected" else []
    rows += [(ids[2], v, 1, 1.5) for v in ids[3:15]] + [(fresh[0], ids[5], 1, 0.0), (ids[1], ids[1], 1, 2.0)]
    spreads = []
    spread = PageRankEngine._spread
    monkeypatch.setattr(PageRankEngine, "_spread",
                        lambda engine, *args, **named: spreads.append(1) or spread(engine, *args, **named))
    batch, before = _frame(rows), h.snapshot()
    _, allocations = sweep_allocations(h, lambda g: g.apply(batch, weight="weight"), where=f"{graph} batch")
    assert allocations > 100, allocations
    assert spreads                           # (dense rounds ran, in the batch that went through at least)
    h.model.apply_rows(rows)
    h.check_all(f"{graph} batch", before)
    h.apply(random_batch(rng, h.model, ids + fresh, 15, weights))


@pytest.mark.parametrize("compiled", CPU_PATHS)
@pytest.mark.parametrize("placement_kind", ["device", "cached"])
def test_vertex_calls_and_track_roll_back_at_every_numpy_allocation(compiled, placement_kind, compact_early):
    """remove_vertices, add_vertices (reusing the freed ids) and track, each failed
    at every NumPy allocation it makes, then run through and checked."""
    h, rng, ids, weights = make_harness(CPUBackend(compiled=compiled), placement_kind, True, seed=2)
    removed = [v for v in ids[1:12] if v in h.model.vertices]
    added = [rng.randrange(-2**62, 2**62) for _ in range(4)] + removed[:3]
    for name, call, follow in (
            ("remove_vertices", lambda g: g.remove_vertices(np.array(removed, dtype=np.int64)),
             lambda: h.model.remove_vertices(removed)),
            ("add_vertices", lambda g: g.add_vertices(np.array(added, dtype=np.int64)),
             lambda: h.model.add_vertices(added))):
        before = h.snapshot()
        _, allocations = sweep_allocations(h, call, where=name)
        assert allocations > 10, (name, allocations)
        follow()
        h.check_all(name, before)
    q, allocations = sweep_allocations(h, lambda g: g.track(cgs.SSSP(source=ids[0])), where="track")
    assert allocations > 5, allocations
    h.queries.append(("SSSP", "incremental", q))
    h.qparams.append(dict(source=ids[0], alpha=0.85, tol=1e-8))
    h.check_all("track")
    h.apply(random_batch(rng, h.model, ids + added, 15, weights))


@pytest.mark.gpu
@pytest.mark.parametrize("placement_kind", ["device", "host", "cached"])
def test_apply_rolls_back_at_every_cupy_allocation(placement_kind, compact_early):
    """As the NumPy sweep above, on the GPU: a failure at every third CuPy allocation
    (every one an operator makes between its launches included) leaves the graph as
    it was, and the batch then applies exactly."""
    from cugraph_stream.backends import available_backends

    if available_backends().get("gpu"):
        pytest.skip(f"backend 'gpu' unavailable: {available_backends()['gpu']}")
    h, rng, ids, weights = make_harness("gpu", placement_kind, True, seed=1)
    rows = random_batch(rng, h.model, ids, 20, weights) + tree_rows(h)
    rows += [(ids[2], v, 1, 1.5) for v in ids[3:15]]            # one list outgrows its room
    batch, before = _frame(rows), h.snapshot()
    _, allocations = sweep_allocations(h, lambda g: g.apply(batch, weight="weight"), where="mixed batch",
                                       stride=3)
    assert allocations > 30, allocations
    h.model.apply_rows(rows)
    h.check_all("mixed batch", before)
    h.apply(random_batch(rng, h.model, ids, 15, weights))


@pytest.mark.gpu
def test_a_device_fault_of_a_rolled_back_batch_is_not_raised_by_the_next():
    """A kernel of a batch reports a broken invariant on the device (it cannot raise),
    and the batch then fails for another reason before its wait: the rollback
    warns of the fault, and the next batch applies (its wait used to raise the
    old fault)."""
    from cugraph_stream.backends import available_backends
    from cugraph_stream.engine.adjacency import Adjacency

    if available_backends().get("gpu"):
        pytest.skip(f"backend 'gpu' unavailable: {available_backends()['gpu']}")
    h, rng, ids, weights = make_harness("gpu", "device", True, seed=3)
    ops = h.g._ops

    def fault_then_fail(*args, **kwargs):
        # a real fault: rows promised room (must_fit) in a list that lacks it; then
        # the placement fails before it writes (as an operator that raises must)
        adj = Adjacency(ops, np.float64, with_twin=False)
        adj.ensure_vertices(2)
        adj.build(ops.asarray(np.array([0])), ops.asarray(np.array([1])), ops.asarray(np.array([1.0])))
        rows = 4 * int(adj.capacity[0])
        ops.place_entries(adj, ops.asarray(np.zeros(rows, np.int64)), ops.asarray(np.ones(rows, np.int64)),
                          ops.asarray(np.ones(rows)), ops.asarray(np.full(rows, -1)), must_fit=True)
        raise InjectedFault("after the device set a fault bit")

    rows = random_batch(rng, h.model, ids, 20, weights) + [(ids[2], ids[3], 1, 2.5)]
    before, hidden = h.state(), internals(h.g)
    ops.place_arcs = fault_then_fail
    try:
        with pytest.warns(RuntimeWarning, match="given room"), pytest.raises(InjectedFault):
            h.g.apply(_frame(rows), weight="weight")
    finally:
        del ops.place_arcs
    h.assert_state(before, "the failed batch")
    assert internals(h.g) == hidden
    h.apply(rows)


@pytest.mark.parametrize("kind", ["skipped", "partial", "cleared"])
def test_refreshes_without_selection_roll_back(backend, kind, compact_early):
    """The cache refresh policy skipped the selection (see ``engine/cache_policy.py``): a
    failure anywhere after the batch's evictions (and reloads) restores the cache."""
    h, rng, ids, weights = make_harness(backend, "cached", True, seed=12)
    h.refresh_policy = ScriptedRefreshPolicy(("full",))
    h.apply(random_batch(rng, h.model, ids, 15, weights))        # lists get hot
    h.apply(random_batch(rng, h.model, ids, 15, weights))        # a full refresh fills the cache
    assert h.g.last_report.cache_refresh == "full"
    h.refresh_policy = h.g._store.refresh_policy = ScriptedRefreshPolicy((kind,))
    rows = random_batch(rng, h.model, ids, 20, weights) + tree_rows(h)
    report = apply_swept(h, rows, f"{kind} refresh")
    assert report.cache_refresh == kind and (report.cache_loaded_bytes > 0) == (kind == "partial")
    for step in range(2):
        h.apply(random_batch(rng, h.model, ids, 15, weights))


@pytest.mark.parametrize("kind", ["skipped", "partial"])
def test_a_refresh_that_fails_right_after_evicting_restores_the_cache(backend, kind, monkeypatch):
    """The first cache's eviction has evicted its lists and the cache's own counts
    then fail to update (on the GPU, summing the freed slots allocates): the
    rollback puts the lists back (the store is given the eviction before the
    counts change), so the cache holds what it held and agrees with its chunks."""
    from cugraph_stream.engine import cache as cache_module

    h, rng, ids, weights = make_harness(backend, "cached", True, seed=12)
    h.refresh_policy = ScriptedRefreshPolicy(("full",))
    h.apply(random_batch(rng, h.model, ids, 15, weights))        # lists get hot
    h.apply(random_batch(rng, h.model, ids, 15, weights))        # a full refresh fills the cache
    h.refresh_policy = h.g._store.refresh_policy = ScriptedRefreshPolicy((kind,))
    rows = random_batch(rng, h.model, ids, 20, weights) + tree_rows(h)
    armed = [True]
    set_field = cache_module.RefreshReport.__setattr__

    def counting_the_eviction_fails(report, name, value):
        if name == "evicted" and value and armed and armed.pop():
            raise InjectedFault("the cache's counts, after its lists were evicted")
        set_field(report, name, value)

    monkeypatch.setattr(cache_module.RefreshReport, "__setattr__", counting_the_eviction_fails)
    before, hidden = h.state(), internals(h.g)
    with pytest.raises(InjectedFault):
        h.g.apply(_frame(rows), weight="weight")
    assert not armed                                    # (the failure was injected)
    h.assert_state(before, f"{kind} refresh failed after evicting")
    assert internals(h.g) == hidden
    h.g._store.check_cache()
    report = h.apply(rows)
    assert report.cache_refresh == kind


def test_remove_and_add_vertices_roll_back(backend, placement, compact_early):
    h, rng, ids, weights = make_harness(backend, placement, True, seed=2)
    removed = [v for v in ids[1:12] if v in h.model.vertices]
    before = h.snapshot()
    report, calls = sweep(h, lambda g: g.remove_vertices(np.array(removed, dtype=np.int64)),
                             where="remove_vertices")
    h.model.remove_vertices(removed)
    h.check_all("remove_vertices", before)
    assert calls > 10 and report.removed_vertices == len(removed)
    added = [rng.randrange(-2**62, 2**62) for _ in range(4)] + removed[:3]
    before = h.snapshot()
    report, _ = sweep(h, lambda g: g.add_vertices(np.array(added, dtype=np.int64)), where="add_vertices")
    h.model.add_vertices(added)
    h.check_all("add_vertices", before)
    # the freed ids were reused by the new vertices: batches over them stay exact
    for step in range(3):
        h.apply(random_batch(rng, h.model, ids + added, 15, weights))


def test_edge_index_rebuild_and_compaction_roll_back(backend, compact_early):
    # 700 new arcs in one batch rebuild the edge index (1024 slots fill past 5/8) and relocate
    # lists; removing most vertices leaves their lists as garbage, which the removal compacts,
    # and the edge index then shrinks back
    h, rng, ids, weights = make_harness(backend, "device", True, seed=3, n_edges=40,
                                        kinds=("SSSP", "WCC", "PageRank"), modes=("incremental",))
    many = [rng.randrange(0, 2**20) for _ in range(120)]
    rows = [(rng.choice(ids + many), rng.choice(many), 1, rng.choice(weights)) for _ in range(700)]
    rows.append((ids[0], many[0], 1, 1.0))
    capacity = h.g._store.index.capacity
    apply_swept(h, rows, "index rebuild", stride=7)
    grown = h.g._store.index.capacity
    assert grown > capacity
    gone = [v for v in many[:100] if v in h.model.vertices]
    before = h.snapshot()
    sweep(h, lambda g: g.remove_vertices(np.array(gone, dtype=np.int64)), where="remove most", stride=3)
    h.model.remove_vertices(gone)
    h.check_all("remove most", before)
    store = h.g._store
    assert store.out.garbage < store.out.align and store.index.capacity < grown     # only the end padding left
    apply_swept(h, [(ids[0], ids[1], 1, 2.0), (ids[2], ids[0], 1, 0.5)], "after compaction")


@pytest.mark.parametrize("kind", ["SSSP", "WCC", "PageRank"])
def test_track_leaves_nothing_attached_when_it_fails(backend, placement, kind):
    h, rng, ids, weights = make_harness(backend, placement, True, seed=4, kinds=("BFS",),
                                        modes=("incremental",))
    make = {"SSSP": lambda: cgs.SSSP(source=ids[0]), "WCC": lambda: cgs.WCC(),
            "PageRank": lambda: cgs.PageRank(tol=1e-8)}[kind]
    queries = []

    def track(g):
        queries.append(make())
        return g.track(queries[-1])

    q, calls = sweep(h, track, where=f"track {kind}", every_call=True)
    assert calls >= 2            # (the GPU computes WCC in a few fused calls)
    assert all(p.graph is None and p.engine is None for p in queries[:-1])
    assert h.g.queries[-1] is q and q.graph is h.g
    h.queries.append((kind, "incremental", q))
    h.qparams.append(dict(source=ids[0] if kind == "SSSP" else None, alpha=0.85, tol=1e-8))
    h.check_all(f"track {kind}")
    h.apply(random_batch(rng, h.model, ids, 15, weights))


@pytest.mark.parametrize("error", [InjectedInterrupt, RuntimeError], ids=["interrupt", "runtime-error"])
def test_other_failures_roll_back_too(error):
    h, rng, ids, weights = make_harness("cpu", "cached", True, seed=5)
    rows = random_batch(rng, h.model, ids, 20, weights) + tree_rows(h)
    batch = _frame(rows)
    before = h.snapshot()
    _, calls = sweep(h, lambda g: g.apply(batch, weight="weight"), error=error, where=error.__name__, stride=3)
    h.model.apply_rows(rows)
    h.check_all(error.__name__, before)
    assert calls > 15


class InterruptAtCheckpoint:
    """Raise ``KeyboardInterrupt`` at the ``at``-th journal checkpoint: where a deferred
    Ctrl-C is delivered (between journal entries, not only at operator calls)."""

    def __init__(self, monkeypatch, at):
        self.at, self.seen, self.fired = at, 0, False
        monkeypatch.setattr(journal_module.Journal, "checkpoint", lambda journal: self._checkpoint())

    def _checkpoint(self):
        index, self.seen = self.seen, self.seen + 1
        if index == self.at:
            self.fired = True
            raise InjectedInterrupt


@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
def test_ctrl_c_at_every_journal_checkpoint_rolls_back(monkeypatch, directed, compact_early):
    h, rng, ids, weights = make_harness("cpu", "cached", directed, seed=7, n_edges=120)
    fresh = [rng.randrange(-2**62, 2**62) for _ in range(5)]
    rows = random_batch(rng, h.model, ids + fresh, 60, weights) + tree_rows(h)
    rows += [(ids[2], v, 1, 1.5) for v in ids[3:20]]
    batch = _frame(rows)
    before, hidden = h.state(), internals(h.g)
    at = 0
    while True:
        with monkeypatch.context() as patch:
            interrupt = InterruptAtCheckpoint(patch, at)
            try:
                h.g.apply(batch, weight="weight")
            except InjectedInterrupt:
                pass
        if not interrupt.fired:
            break
        w = f"Ctrl-C at journal checkpoint {at}"
        h.assert_state(before, w)
        assert internals(h.g) == hidden, w
        h.g._store.check_cache()
        at += 1
    assert at > 50
    h.model.apply_rows(rows)
    h.check_all("after the sweep")


def test_pagerank_that_cannot_converge_rolls_the_batch_back():
    h, rng, ids, weights = make_harness("cpu", "device", True, seed=6, kinds=("SSSP", "PageRank"),
                                        modes=("incremental",))
    pagerank = next(q for k, _, q in h.queries if k == "PageRank")
    before, hidden = h.state(), internals(h.g)
    pagerank.engine.max_iter = 0            # no dense round allowed
    rows = [(u, v, -1, None) for u, v in list(h.model.edges)[:20]]
    with pytest.raises(RuntimeError, match="did not reach tol"):
        h.g.apply(_frame(rows), weight="weight")
    h.assert_state(before, "PageRank failed")
    assert internals(h.g) == hidden
    pagerank.engine.max_iter = 1000
    h.apply(rows)


def test_pagerank_without_fail_on_nonconvergence_reports_it():
    g = cgs.StreamGraph.from_edgelist({"src": np.arange(50), "dst": (np.arange(50) + 1) % 50})
    q = g.track(cgs.PageRank(tol=1e-10, max_iter=2, fail_on_nonconvergence=False))
    report = g.apply({"src": np.array([0, 7]), "dst": np.array([7, 30]), "op": np.array([1, 1])})
    assert report.queries[0].converged is False
    assert abs(float(q.result()["pagerank"].sum()) - 1.0) < 1e-9
    with pytest.raises(RuntimeError, match="max_iter=2"):
        g.track(cgs.PageRank(tol=1e-10, max_iter=2))
    assert len(g.queries) == 1


def test_pagerank_refuses_an_unreachable_tol():
    with pytest.raises(ValueError, match="tol must be at least 1.5e-12 for alpha=0.85"):
        cgs.PageRank(tol=1e-16)
    with pytest.raises(ValueError, match="max_iter"):
        cgs.PageRank(max_iter=0)
    cgs.PageRank(tol=2e-12)


def test_a_failed_rollback_marks_the_graph_broken(monkeypatch):
    h, rng, ids, weights = make_harness("cpu", "device", True, seed=8, kinds=("SSSP",), modes=("incremental",))
    engine = h.g.queries[0].engine

    def fail(*args):
        raise InjectedFault("while converging")

    def cannot(*args):
        raise MemoryError("no memory to roll back")
    monkeypatch.setattr(engine, "converge", fail)
    monkeypatch.setattr(engine, "rollback", cannot)
    with pytest.raises(cgs.GraphBrokenError, match="could not be rolled back") as broken:
        h.g.apply(_frame(random_batch(rng, h.model, ids, 20, weights)), weight="weight")
    assert "MemoryError: no memory to roll back, while undoing InjectedFault: while converging" in str(broken.value)
    assert isinstance(broken.value.__cause__.__cause__, InjectedFault)
    for call in (lambda: h.g.apply(_frame([(ids[0], ids[1], 1, 1.0)]), weight="weight"),
                 h.g.edges, lambda: h.g.track(cgs.WCC()), lambda: h.g.add_vertices([5])):
        with pytest.raises(cgs.GraphBrokenError, match="this graph is broken"):
            call()


def test_removing_the_newest_vertices_lowers_the_bound_and_rolls_back(backend, placement, compact_early):
    # the vertices added last hold the top internal ids: removing them lowers the vertex bound,
    # evicts their cached lists and fits the per-vertex arrays, all inside the transaction
    h, rng, ids, weights = make_harness(backend, placement, True, seed=9)
    newest = [rng.randrange(2**50, 2**60) for _ in range(5000)]
    rows = [(rng.choice(newest), rng.choice(newest + ids), 1, rng.choice(weights)) for _ in range(9000)]
    rows += [(ids[0], newest[0], 1, 1.0)]
    h.apply(rows)
    h.apply(random_batch(rng, h.model, newest[:40] + ids, 30, weights))     # the cache reads new lists
    store = h.g._store
    bound = store.vertex_bound
    gone = [v for v in newest if v in h.model.vertices]
    before = h.snapshot()
    sweep(h, lambda g: g.remove_vertices(np.array(gone, dtype=np.int64)), where="remove newest", stride=5)
    h.model.remove_vertices(gone)
    h.check_all("remove newest", before)
    assert store.vertex_bound < bound / 10 and store.vertices.external.size < bound / 2
    for step in range(2):
        h.apply(random_batch(rng, h.model, ids + newest[:10], 20, weights))


def test_personalised_and_unweighted_pagerank_roll_back(backend, placement, compact_early):
    """Weighted PageRank (the default on these weighted graphs) is in every sweep above;
    here personalised and unweighted ones, through batches and vertex removals, and a
    removal of every personalization vertex, refused and rolled back."""
    import pandas as pd

    h, rng, ids, weights = make_harness(backend, placement, True, seed=7, kinds=("SSSP",),
                                        modes=("incremental",))
    chosen = [v for v in ids if v in h.model.vertices and v != ids[0]][:3]
    personalization = pd.DataFrame({"vertex": chosen, "values": [1.0, 2.0, 0.5]})
    for mode in ("incremental", "recompute"):
        h.track("PageRank", mode, personalization=personalization)
        h.track("PageRank", mode, weighted=False)
    rows = random_batch(rng, h.model, ids, 20, weights)
    rows += [(chosen[0], ids[4], 1, 0.0), (chosen[1], chosen[1], 1, 3.0), (ids[0], chosen[2], 1, 7.25)]
    apply_swept(h, rows, "personalised batch", stride=2)
    before = h.snapshot()
    sweep(h, lambda g: g.remove_vertices(np.array(chosen[:1], dtype=np.int64)), where="remove one", stride=2)
    for p in h.qparams:
        p.setdefault("gone", set()).add(chosen[0])
    h.model.remove_vertices(chosen[:1])
    h.check_all("remove one", before)
    state = h.state()
    with pytest.raises(ValueError, match="personalization: the batch removes every vertex"):
        h.g.remove_vertices(np.array(chosen[1:], dtype=np.int64))
    h.assert_state(state, "remove the rest")
    h.apply(random_batch(rng, h.model, [v for v in ids if v != chosen[0]], 15, weights))
