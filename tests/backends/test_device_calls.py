"""What a batch asks of its device: operator calls and host synchronisation points.

The counts are made by the operator layer both backends share, so the
pinned numbers below hold on the CPU (CI) and the GPU alike; on the GPU a
CUPTI count of what reached the driver checks that no synchronisation is
hidden from them.
"""
import numpy as np
import pandas as pd
import pytest

import cugraph_stream as cgs
from cugraph_stream.backends import get_backend
from cugraph_stream.backends.base import SYNC_OPERATORS, UNCOUNTED_METHODS
from cugraph_stream.engine.cost_model import CostModel
from cugraph_stream.graph import SPECULATIVE_ROWS
from reference import host


def test_operators_count_once_and_nested_calls_count_as_their_caller():
    ops = get_backend("cpu")
    before = ops.calls.snapshot()
    ops.unique(np.array([4, 1, 4]), 5)                    # a sync operator
    ops.hash_find(np.full(8, -1, dtype=np.int64), np.array([3]))   # a launch without a sync
    assert ops.calls.since(before) == (2, 1)
    before = ops.calls.snapshot()
    ops.host_ints(np.int64(3), np.int64(4))                # calls to_host inside: still one of each
    assert ops.calls.since(before) == (1, 1)
    before = ops.calls.snapshot()
    ops.synchronize()                                      # waits, launches nothing
    ops.aligned_empty(16, np.int64)                        # allocation: not counted
    ops.mark()
    assert ops.calls.since(before) == (0, 1)


def test_a_failing_operator_leaves_the_counters_usable():
    ops = get_backend("cpu")
    with pytest.raises((TypeError, ValueError)):          # lengths that are not integers
        ops.expand_segments(np.array([0]), np.array(["x"]))
    before = ops.calls.snapshot()
    ops.unique(np.array([1, 2]), 3)
    assert ops.calls.since(before) == (1, 1)


def test_every_sync_operator_is_a_backend_method():
    from cugraph_stream.backends.base import Backend

    assert SYNC_OPERATORS <= set(dir(Backend))
    assert UNCOUNTED_METHODS - {"unavailable_reason"} <= set(dir(Backend))   # (a GPU classmethod)


def _path_graph(backend, n=64, query=None, weight=1.5, **options):
    """A path 0 -> 1 -> ... -> n-1 of ``weight``s tracking ``query`` (SSSP from 0 by
    default); ``options`` go to ``from_edgelist`` (a placement, say)."""
    src = np.arange(n - 1)
    g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"src": src, "dst": src + 1, "w": np.full(n - 1, weight)}),
                                      weight="w", backend=backend, **options)
    g.track(query if query is not None else cgs.SSSP(0, mode="incremental"))
    return g


# Steady-state batches with SSSP tracked, and the synchronisation points each
# requests today.  A change to the pipeline that adds one fails here; one that
# removes some updates the numbers (issue 17 asks for at most two).
#   2: the row's status (engine/single_row.py: the lookup, the reduction and the
#      store's change in one operator call, one read_words, which also brings the
#      values of the inserted arc's ends), the commit's synchronize
#   +1 for an insert that improves a value (known from those values on the
#      host, which relaxes its arc without a read: relax_arcs_only): converge
#      (record_changes leaves the count of the changed vertices on the device
#      until changes() asks for them)
#   a deleted tree edge: invalidate (which reads how many seeds children_of found
#      itself), converge (which reads the count of correction_frontier's frontier
#      on the device, and the entries the pull read, counted there); a deleted
#      edge off the tree, nothing more (the row's status says it cut no tracked
#      tree)
# (The path's weights, 1.5, are not whole numbers: ties are not searched.)  Two
# rows take the general path (PINNED_TWO_ROWS).
PINNED = [
    ("insert, improves nothing", {"src": [0], "dst": [5], "w": [10.0], "op": [1]}, 2),
    ("insert, improves a path", {"src": [0], "dst": [6], "w": [1.0], "op": [1]}, 3),
    ("delete a tree edge", {"src": [0], "dst": [6], "w": [1.0], "op": [-1]}, 4),
    ("delete an absent edge", {"src": [0], "dst": [6], "w": [1.0], "op": [-1]}, 2),
    ("delete an edge off the tree", {"src": [0], "dst": [5], "w": [1.0], "op": [-1]}, 2),
]
# The same changes, each with a row that changes nothing beside it (a delete of
# the absent edge 9 -> 0), through the general path:
#   2: net_changes (which reads the lookup's count of new vertices too: a batch of up
#      to SPECULATIVE_ROWS rows), the commit's synchronize
#   +2 for an insert: the room of both placements (out, in; one read_counts) and
#      converge (whose frontier, the targets the new arc improves, it reads on the
#      device: a wait even where it is empty)
#   a deleted tree edge: the moves of both removals (out, in; one read_counts),
#      invalidate, converge
# (An edge off the tree is not pinned there: the CPU finds its children empty on
# the host, where the GPU's invalidation reads their count.)
PINNED_TWO_ROWS = [(what, {k: v + [{"src": 9, "dst": 0, "w": 1.0, "op": -1}[k]] for k, v in rows.items()}, syncs)
                   for (what, rows, _), syncs in zip(PINNED, (4, 4, 5, 2))]


@pytest.mark.parametrize("pinned", [PINNED, PINNED_TWO_ROWS], ids=["one row", "two rows"])
def test_steady_state_batches_request_the_pinned_synchronisations(backend, pinned):
    g = _path_graph(backend)
    for what, rows, syncs in pinned:
        report = g.apply(pd.DataFrame(rows), weight="w")
        assert report.syncs == syncs, what
        assert report.launches >= report.syncs - 1, what     # every sync but the commit's is an operator call
    name = "SSSP(source=0, mode='incremental')"
    assert set(g.last_report.times) == {"validate", "reduce", "store", f"{name}:correct", f"{name}:compute"}
    assert all(t >= 0 for t in g.last_report.times.values())


def test_a_wcc_tree_arc_deletion_requests_the_pinned_synchronisations(backend):
    """WCC reads arcs both ways: deleting a tree arc whose reverse is absent
    leaves its cut end on the device (weak_children_of) for the invalidation,
    then pulls over both adjacencies, their entries read counted on the
    device: the row's status (engine/single_row.py), invalidate, converge
    (the frontier's count and the pull's entries read with it), commit."""
    g = _path_graph(backend, query=cgs.WCC(mode="incremental"))
    report = g.apply(pd.DataFrame({"src": [3], "dst": [4], "w": [1.0], "op": [-1]}), weight="w")
    assert (report.syncs, report.invalidated) == (4, 60)
    assert g.last_report.queries[0].path == "incremental"


def test_a_small_batch_naming_a_new_vertex_is_reduced_again(backend, monkeypatch):
    """A batch of a few rows is reduced on the ids found before it is known that
    no insert row names a new vertex; where one does, the same wait says so
    and gives the ends to create, the vertex is created and the rows are
    reduced again: as many waits as the same batch looked up first."""
    from cugraph_stream import graph

    rows = pd.DataFrame({"src": [7, 0], "dst": [1000, 9], "w": [2.0, 30.0], "op": [1, 1]})
    guessed = _path_graph(backend)
    report = guessed.apply(rows, weight="w")
    monkeypatch.setattr(graph, "SPECULATIVE_ROWS", 0)
    looked_up = _path_graph(backend)
    assert report.syncs == looked_up.apply(rows, weight="w").syncs
    assert (report.new_vertices, report.inserted, report.ignored) == (1, 2, 0)
    distances = host(guessed.queries[0].result()).set_index("vertex")["distance"]
    assert distances[1000] == 7 * 1.5 + 2.0 and distances[9] == 9 * 1.5
    guessed.check_consistency()


def test_a_batch_that_deletes_and_inserts_reads_its_removals_and_placements_at_once(backend):
    """The removals (entries moved into holes) and the placements (lists outgrown)
    are launched before one read of both counts: a batch that deletes a tree
    edge and inserts one that improves nothing waits as often as the pinned
    deletion alone (5)."""
    g = _path_graph(backend)
    g.apply(pd.DataFrame({"src": [0], "dst": [6], "w": [1.0], "op": [1]}), weight="w")
    report = g.apply(pd.DataFrame({"src": [0, 0], "dst": [6, 40], "w": [1.0, 100.0], "op": [-1, 1]}), weight="w")
    assert (report.deleted, report.inserted, report.invalidated) == (1, 1, 64 - 6)
    assert report.syncs == 5
    g.check_consistency()


def test_both_caches_evict_a_batchs_changed_lists_in_one_synchronisation(backend):
    """Placement "cached", a refresh without a selection: the out- and the in-cache,
    both holding lists, evict the lists a batch changed in one operator call, so the
    batch waits once more than on a graph whose caches hold nothing."""
    from reference import ScriptedRefreshPolicy

    def graph(load):
        g = _path_graph(backend, placement="cached", cache_budget=1 << 16, chunk_bytes=1 << 12)
        g.track(cgs.WCC(mode="incremental"))
        for kind, rows in (("skipped", {"src": [10, 10], "dst": [11, 12], "w": [1.5, 1.5], "op": [-1, 1]}),
                           ("full" if load else "skipped", {"src": [1], "dst": [9], "w": [50.0], "op": [1]})):
            g._store.refresh_policy = ScriptedRefreshPolicy((kind,))
            g.apply(pd.DataFrame(rows), weight="w")
        g._store.refresh_policy = ScriptedRefreshPolicy(("skipped",))
        return g

    loaded, empty = graph(True), graph(False)
    assert [adj.cache.chunks_held > 0 for _, adj, _ in loaded._store.cached] == [True, True]
    assert [adj.cache.chunks_held for _, adj, _ in empty._store.cached] == [0, 0]
    batch = pd.DataFrame({"src": [0], "dst": [5], "w": [10.0], "op": [1]})
    report = loaded.apply(batch, weight="w")
    assert report.cache_refresh == "skipped" and report.syncs == empty.apply(batch, weight="w").syncs + 1
    loaded._store.check_cache()


@pytest.mark.parametrize("plan_ahead", [False, True], ids=["planned-after-the-read", "planned-ahead"])
def test_lists_outgrown_in_both_adjacencies_are_planned_in_one_synchronisation(backend, plan_ahead, monkeypatch):
    """Inserts that outgrow an out-list and an in-list (and improve nothing): a
    batch of more than SPECULATIVE_ROWS rows looks its vertices up in a wait
    of its own, so the general path's insert's 4 (PINNED_TWO_ROWS) and that
    one, plus one read of both relocation plans' totals; none where the plans
    are made before the placements' count is read (PLAN_AHEAD_ARCS: 100 rows
    are below it) and read with it."""
    from cugraph_stream.engine import store

    if plan_ahead:
        monkeypatch.setattr(store, "PLAN_AHEAD_ARCS", 100)
    g = _path_graph(backend)
    many = np.arange(10, 60)
    rows = {"src": np.concatenate((np.ones(many.size, dtype=np.int64), many)),
            "dst": np.concatenate((many, np.full(many.size, 2))), "w": np.full(2 * many.size, 100.0),
            "op": np.ones(2 * many.size, dtype=np.int8)}
    report = g.apply(pd.DataFrame(rows), weight="w")
    assert rows["src"].size > SPECULATIVE_ROWS and report.syncs == 4 + 1 + (not plan_ahead)
    edges = g.edges()
    assert ((edges["src"] == 1).sum(), (edges["dst"] == 2).sum()) == (1 + many.size, 1 + many.size)
    g.check_consistency()


def test_a_plan_made_ahead_for_lists_that_kept_their_room_adds_no_wait(backend, monkeypatch):
    """Planned ahead (PLAN_AHEAD_ARCS 0: every insert), a batch whose lists all had
    room waits as often as without planning (PINNED_TWO_ROWS: 4, 4) and moves
    nothing: the plan read with the placements' count is dropped."""
    from cugraph_stream.engine import store

    monkeypatch.setattr(store, "PLAN_AHEAD_ARCS", 0)
    g = _path_graph(backend)
    for what, rows, syncs in PINNED_TWO_ROWS[:2]:
        ends = g._store.out.end, g._store.inn.end
        report = g.apply(pd.DataFrame(rows), weight="w")
        assert (report.syncs, report.inserted) == (syncs, 1), what
        assert (g._store.out.end, g._store.inn.end) == ends, what       # (no list moved)
    g.check_consistency()


@pytest.mark.gpu
@pytest.mark.parametrize("rows", [2, 100])
def test_device_columns_are_checked_without_a_wait_of_their_own(rows):
    """CuPy columns are checked on the GPU by one kernel whose verdict comes to the
    host with the batch's first wait (the speculative reduction of a few rows,
    the vertex lookup of more): as many waits as the same rows in a pandas frame,
    checked on the host."""
    from cugraph_stream.backends import available_backends

    if available_backends()["gpu"]:
        pytest.skip("no GPU backend here")
    import cupy

    frame = pd.DataFrame({"src": np.arange(rows) % 50, "dst": np.arange(rows) % 50 + 3,
                          "w": np.full(rows, 100.0), "op": np.ones(rows, dtype=np.int8)})
    device = {name: cupy.asarray(frame[name].to_numpy()) for name in frame}

    def edges(g):
        return host(g.edges()).sort_values(["src", "dst"], ignore_index=True)

    on_host, on_device = _path_graph("gpu"), _path_graph("gpu")
    on_device.apply({name: column[:1] for name, column in device.items()}, weight="w")     # (kernels compiled)
    on_host.apply(frame.iloc[:1], weight="w")
    assert on_device.apply(device, weight="w").syncs == on_host.apply(frame, weight="w").syncs
    pd.testing.assert_frame_equal(edges(on_device), edges(on_host))
    bad = dict(device, w=cupy.asarray(np.where(np.arange(rows) == rows - 1, -1.0, 100.0)))
    with pytest.raises(ValueError, match=f"negative weight -1.0 at row {rows - 1}"):
        on_device.apply(bad, weight="w")
    pd.testing.assert_frame_equal(edges(on_device), edges(on_host))
    on_device.check_consistency()


def test_the_cost_model_requests_no_synchronisation(backend):
    """``mode="auto"`` choosing the incremental path (rates injected) requests
    exactly the pinned synchronisations: the choice reads host scalars only."""
    query = cgs.SSSP(0)
    query.cost_model = CostModel(rates={"incremental": (0.0, 1e-9), "recompute": (1.0, 1e-9)})
    g = _path_graph(backend, query=query)
    query.cost_model.observe_recompute(work=10**9, size=1)      # never worth giving up
    for what, rows, syncs in PINNED:
        report = g.apply(pd.DataFrame(rows), weight="w")
        assert (report.syncs, report.queries[0].path) == (syncs, "incremental"), what


def test_a_deletion_searching_ties_requests_two_synchronisations_for_its_levels(backend):
    """Whole-number weights: the invalidation searches ties for KEEP_TIE_LEVELS
    levels, then invalidates the rest of the path, all in one block on the
    GPU (the levels are narrow, and the block reads how many seeds
    children_of found itself): a read of its results, a read of the
    invalidated vertices, and the 3 other reads of a deletion."""
    from cugraph_stream.engine.monotonic import KEEP_TIE_LEVELS

    g = _path_graph(backend, weight=1.0)
    g.apply(pd.DataFrame({"src": [0], "dst": [6], "w": [1.0], "op": [1]}), weight="w")
    report = g.apply(pd.DataFrame({"src": [0], "dst": [6], "w": [1.0], "op": [-1]}), weight="w")
    assert KEEP_TIE_LEVELS == 3 and report.syncs == 3 + 2
    assert report.invalidated == 64 - 6


def test_vertex_operations_report_their_calls(backend):
    g = _path_graph(backend)
    report = g.add_vertices([1000])
    assert report.syncs >= 1 and report.launches >= 1 and "store" in report.times
    report = g.remove_vertices([1000])
    assert report.syncs >= 1 and "store" in report.times


@pytest.mark.gpu
def test_the_gpu_hides_no_synchronisation_from_the_report(monkeypatch):
    """CUPTI counts what reached the driver: for small steady-state batches no
    more synchronisations than the operator layer reported."""
    from cugraph_stream.backends import available_backends
    from cugraph_stream.engine.journal import Journal

    # (the suite's check of distinct journal writes reads CuPy's unique size: a wait that
    # production batches do not make, and that no report counts)
    monkeypatch.setattr(Journal, "verify_distinct", False)

    if available_backends()["gpu"]:
        pytest.skip("no GPU backend here")
    from benchmarks.device_calls import CuptiCounter

    if not CuptiCounter.available():
        pytest.skip("libcupti not found")
    g = _path_graph("gpu")
    g.apply(pd.DataFrame({"src": [1], "dst": [9], "w": [50.0], "op": [1]}), weight="w")   # kernels compiled
    for what, rows, _ in PINNED:
        with CuptiCounter() as counter:
            report = g.apply(pd.DataFrame(rows), weight="w")
        assert counter.syncs <= report.syncs, (what, counter.by_name)
        assert counter.launches >= report.launches - report.syncs, what
    ties = _path_graph("gpu", weight=1.0)           # whole numbers: the deletion searches ties
    ties.apply(pd.DataFrame({"src": [0], "dst": [6], "w": [1.0], "op": [1]}), weight="w")
    with CuptiCounter() as counter:
        report = ties.apply(pd.DataFrame({"src": [0], "dst": [6], "w": [1.0], "op": [-1]}), weight="w")
    assert counter.syncs <= report.syncs, ("delete a tree edge, searching ties", counter.by_name)


# A PageRank batch recomputed by a warm restart (mode="auto" with rates that always
# recompute), one row inserted between known vertices, requests
#   2: the row's status (engine/single_row.py: lookup, reduction and placements in one call), the commit
#   +1: sum(p) read once per update (masked_sums)
#   +3: the residual recomputed exactly: the spread plan (gather_plan), the pull
#       (gather_sum), sum(p) and D(p) (masked_sums)
#   +1: the first error bound (l1_deviation)
#   +1 per run of dense rounds back to back (one call of _spread): the next error bound,
#       which reads the rounds' records (pagerank_spread) too
#   +1: sum(p) and D(p) read exactly once the bound holds (masked_sums)
# Issue 17 asks for two per batch.
def test_a_pagerank_warm_restart_requests_one_synchronisation_a_round(backend, monkeypatch):
    from cugraph_stream.engine import pagerank

    rounds = []
    spread = pagerank.PageRankEngine._spread
    monkeypatch.setattr(pagerank.PageRankEngine, "_spread", lambda self, *a, **k: rounds.append(1) or spread(self, *a, **k))
    rng = np.random.default_rng(0)
    n, m = 200, 1500
    g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"source": rng.integers(0, n, m),
                                                    "destination": rng.integers(0, n, m)}),
                                      source="source", destination="destination", backend=backend)
    query = cgs.PageRank()
    query.cost_model = CostModel(rates={"incremental": (1e9, 0.0), "recompute": (0.0, 0.0)})
    g.track(query)
    for _ in range(3):
        rounds.clear()
        report = g.apply(pd.DataFrame({"source": rng.integers(0, n, 1), "destination": rng.integers(0, n, 1),
                                       "op": np.ones(1, dtype=np.int8)}), source="source", destination="destination")
        assert report.queries[0].path == "recompute" and report.new_vertices == 0 and rounds
        assert report.syncs == 8 + len(rounds)
