"""One-row batches in one operator call (engine/single_row.py), against the references.

Every row of these streams is a batch of its own, applied through
:class:`~reference.Harness`: after each one the store's invariants (twins,
arc index, degrees), the edges, the report's counts and every query in both
modes are checked against the model graph and the from-scratch references.
The streams reach every status of the one-row operator (inserts of absent
edges, deletes, weight updates, unchanged inserts, ignored deletes) and its
fallback (new vertices, full lists), on directed and undirected graphs; a
spy counts them, so a stream that stopped reaching the path fails.
"""
import collections
import random

import numpy as np
import pandas as pd
import pytest
from pandas.testing import assert_frame_equal

import cugraph_stream as cgs
from cugraph_stream import graph as graph_module
from cugraph_stream.backends.base import (EMPTY_SLOT, SINGLE_DELETED, SINGLE_FALLBACK, SINGLE_IGNORED,
                                          SINGLE_INSERTED, SINGLE_UNCHANGED, SINGLE_UPDATED, SR_STATUS)
from cugraph_stream.engine import single_row
from reference import ALL_KINDS, VALUE_COLUMN, Harness, host


@pytest.fixture
def taken(monkeypatch):
    """What the one-row path did for each store: ``taken(store)`` counts its rows by
    status (``"fallback"``: the general path ran).  (The warm-up's graphs run it too.)"""
    seen = []
    apply = single_row.apply_single_row

    def spy(store, *args):
        result = apply(store, *args)
        seen.append((store, "fallback" if result is None else next(k for k, c in result[0].items() if c)))
        return result
    monkeypatch.setattr(graph_module, "apply_single_row", spy)
    return lambda store: collections.Counter(kind for s, kind in seen if s is store)


@pytest.fixture
def decided(monkeypatch):
    """The answers of :meth:`MonotonicEngine._improving_arcs` (which arc of a one-row
    insert improves a value?) so far, counted as ``"none"``, ``"one"`` or
    ``"unknown"`` (None: the frontier is read)."""
    from cugraph_stream.engine.monotonic import MonotonicEngine

    seen = collections.Counter()
    decide = MonotonicEngine._improving_arcs

    def spy(engine, delta):
        answer = decide(engine, delta)
        seen["unknown" if answer is None else ("none", "one")[len(answer)]] += 1
        return answer
    monkeypatch.setattr(MonotonicEngine, "_improving_arcs", spy)
    return seen


def _row(rng, model, ids, weights):
    """A single row: a delete of a present edge (often), an insert of a new edge
    between known vertices, of a present edge with its weight or another, of a
    self loop or of a new vertex, a delete of an absent edge or of an unknown
    vertex."""
    present = sorted(model.edges)
    r = rng.random()
    if r < 0.35 and present:
        return (*rng.choice(present), -1, None)
    if r < 0.45 and present:
        return (*rng.choice(present), 1, rng.choice(weights))
    if r < 0.5:
        u = rng.choice(ids)
        return (u, u, 1, rng.choice(weights))
    if r < 0.55:
        return (rng.choice(ids), rng.randrange(-2**62, 2**62), 1, rng.choice(weights))
    if r < 0.6:
        return (rng.randrange(-2**62, 2**62), rng.choice(ids), -1, None)
    if r < 0.65:
        return (rng.choice(ids), rng.choice(ids), -1, None)
    return (rng.choice(ids), rng.choice(ids), 1, rng.choice(weights))


WEIGHTS = [0.0, 0.5, 1.0, 3.0, 7.25]


def _harness(rng, backend, placement, directed, vertices, edges, id_bound):
    """A Harness over ``edges`` random edges among ``vertices`` random ids below
    ``id_bound`` in magnitude, every query kind tracked from the first id; and the ids."""
    ids = [rng.randrange(-id_bound, id_bound) for _ in range(vertices)]
    edges = [(rng.choice(ids), rng.choice(ids), rng.choice(WEIGHTS)) for _ in range(edges)]
    h = Harness(cgs, directed=directed, backend=backend, edges=edges,
                sources={k: ids[0] for k in ("SSSP", "BFS", "WidestPath")}, kinds=ALL_KINDS, placement=placement,
                tol=1e-8)
    return h, ids


@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
@pytest.mark.parametrize("seed", [0, 1])
def test_single_rows_keep_the_store_and_every_query_exact(backend, placement, directed, seed, taken, decided):
    rng = random.Random(seed)
    h, ids = _harness(rng, backend, placement, directed, 20, 70, 2**40)
    for _ in range(120):
        row = _row(rng, h.model, ids, WEIGHTS)
        h.apply([row[1::-1] + row[2:] if not directed and rng.random() < 0.5 else row])   # (either end first)
        if rng.random() < 0.1:          # a new vertex joins the ids the rows name
            ids.append(rng.randrange(-2**62, 2**62))
    statuses = taken(h.g._store)
    if placement == "cached":           # (cached lists: the general path, without asking)
        assert not statuses
        return
    assert {"inserted", "deleted", "weight_updated", "unchanged", "ignored", "fallback"} <= set(statuses), statuses
    assert decided["none"] and decided["one"], decided    # (inserts that skipped the correction, and others)


@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
def test_single_rows_between_batches_and_vertex_changes_stay_exact(backend, placement, directed, taken):
    """One-row batches interleaved with batches of a few rows (a duplicate among
    them now and then), vertices removed (their edges with them) and vertices
    added without edges: each checked as above, the one-row path reached
    between them."""
    rng = random.Random(7)
    h, ids = _harness(rng, backend, placement, directed, 16, 50, 2**62)
    for _ in range(90):
        r = rng.random()
        if r < 0.65:
            h.apply([_row(rng, h.model, ids, WEIGHTS)])
        elif r < 0.85:
            rows = [_row(rng, h.model, ids, WEIGHTS) for _ in range(rng.randint(2, 6))]
            h.apply(rows + rows[:1] if rng.random() < 0.3 else rows)
        elif r < 0.93:
            others = sorted(h.model.vertices - {ids[0]})     # (not the sources)
            if others:
                h.remove_vertices(rng.sample(others, min(2, len(others))))
        else:
            new = [rng.randrange(-2**62, 2**62) for _ in range(2)]
            ids.extend(new)
            h.add_vertices(new)
    statuses = taken(h.g._store)
    if placement == "cached":
        assert not statuses
        return
    assert {"inserted", "deleted", "fallback"} <= set(statuses), statuses


def test_a_list_without_room_and_an_index_due_for_a_rebuild_fall_back(backend, taken, monkeypatch):
    h = Harness(cgs, directed=True, backend=backend, edges=[(0, 1, 1.0), (1, 2, 1.0)], kinds=("SSSP",),
                sources={"SSSP": 0})
    for v in range(3, 40):
        h.apply([(1, v, 1, 3.0)])       # v created (the general path), its in-list given room
        h.apply([(0, v, 1, 1.0)])       # 0's out-list outgrows its room now and then
    statuses = taken(h.g._store)
    assert statuses["inserted"] > 20 and statuses["fallback"] > 37, statuses
    monkeypatch.setattr(h.g._store.index, "has_room", lambda extra: False)
    h.apply([(2, 0, 1, 5.0)])
    assert taken(h.g._store)["fallback"] == statuses["fallback"] + 1


@pytest.mark.parametrize("kind", ["SSSP", "BFS", "WidestPath", "WCC"])
@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
@pytest.mark.parametrize("reverse", [False, True], ids=["u-v", "v-u"])
def test_an_insert_waits_for_its_status_the_push_if_it_improves_and_the_commit(backend, kind, directed, reverse):
    """The row's lookup, reduction and the store's change are one operator call and
    one read of its record, which brings the values the arc's ends held: an
    insert that improves no value of the tracked query waits for that read and
    the commit only; one that improves a value relaxes its arc without reading
    anything back and waits for the push too (on an undirected graph, and for
    WCC, the row given as ``v -> u`` improves ``v``'s end through its mirror
    arc or weakly); every result equal to a recomputation."""
    if reverse and directed and kind != "WCC":
        pytest.skip("a directed v -> u improves nothing here (as the first row)")

    def tracking(mode):
        src, dst = [*range(9), 100, 102], [*range(1, 10), 101, 100]     # a path, and 102 -> 100 -> 101 apart
        g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"s": src, "d": dst, "w": np.full(11, 1.5)}), source="s",
                                          destination="d", weight="w", backend=backend, directed=directed)
        return g, g.track(getattr(cgs, kind)(**({} if kind == "WCC" else {"source": 0}), mode=mode))

    (g, query), (reference, recomputed) = tracking("incremental"), tracking("recompute")
    # rows that improve nothing for each kind (a longer way round, an arc between
    # vertices no path reaches, a narrower way, an arc inside a component) and rows
    # that improve (a shortcut, a wider way, a bridge between components)
    nothing = {"SSSP": (2, 7, 10.0), "BFS": (102, 101, 1.0), "WidestPath": (2, 7, 1.0), "WCC": (2, 7, 1.0)}[kind]
    improving = {"SSSP": (0, 6, 1.0), "BFS": (0, 6, 1.0), "WidestPath": (0, 6, 5.0), "WCC": (4, 100, 1.0)}[kind]
    if reverse:
        improving = (improving[1], improving[0], improving[2])
    for (u, v, w), syncs in ((nothing, 2), (improving, 3)):
        rows = pd.DataFrame({"s": [u], "d": [v], "w": [w], "op": [1]})
        report = g.apply(rows, source="s", destination="d", weight="w")
        reference.apply(rows, source="s", destination="d", weight="w")
        assert (report.inserted, report.syncs) == (1, syncs), (u, v)
        column = VALUE_COLUMN[kind]          # (the trees may differ where values tie)
        assert_frame_equal(*(host(q.result()).sort_values("vertex").reset_index(drop=True)[["vertex", column]]
                             for q in (query, recomputed)))
    assert report.activated, report        # (the improved end was pushed from)


def _operator_store(ops, arcs):
    """A directed store of vertices 10, 20, 30 whose edges ``arcs`` (pairs of
    positions in those ids, inserted in order) the general path built; the
    store, its internal ids and the id lookup the one-row operator takes."""
    from cugraph_stream.engine.reduce import reduce_batch
    from cugraph_stream.engine.store import GraphStore

    store = GraphStore(ops, directed=True, weight_dtype=np.float64)
    ids = store.add_vertices(ops.asarray(np.array([10, 20, 30])))
    u, v = ids[[a for a, _ in arcs]], ids[[b for _, b in arcs]]
    store.apply(reduce_batch(store, u, v, ops.asarray(np.ones(len(arcs))),
                             ops.asarray(np.ones(len(arcs), np.int8))))
    lookup = store.vertices.sorted_ids() if store.vertices.dense is None else (store.vertices.dense, None)
    return store, ids, lookup


def test_the_operator_reads_the_values_of_the_ends(ops):
    """Where both ends are known, the record holds the values the tracked trees
    held at ``u`` and ``v`` before the row, each value's bytes in a word of its
    own, whatever the value dtype."""
    from cugraph_stream.backends.base import SINGLE_ROW_TREES, SR_ENDS, SR_U, SR_V, end_value

    store, ids, lookup = _operator_store(ops, [(0, 1), (1, 2)])
    dtypes = (np.float32, np.float64, np.int64, np.int32)[:SINGLE_ROW_TREES]
    rng = np.random.default_rng(0)
    values = [(rng.standard_normal(3) * 1e6).astype(dtype) for dtype in dtypes]
    values[0][0] = np.float32(1e-45)            # (a subnormal: its bytes are copied, never computed with)
    trees = [(ops.asarray(np.full(3, -1, np.int64)), ops.asarray(value)) for value in values]
    for src, dst, op in ((10, 30, 1), (20, 30, -1), (30, 10, 1)):
        row = ops.apply_single_row(lookup, src, dst, np.float64(2.0), op, store.index.table, store.out, store.inn,
                                   trees)
        record = ops.read_words(row.record)
        u, v = int(record[SR_U]), int(record[SR_V])
        for k, (_, value) in enumerate(trees):
            held = ops.to_host(value)
            assert end_value(record, SR_ENDS + 2 * k, value.dtype) == held[u], (src, dst, k)
            assert end_value(record, SR_ENDS + 2 * k + 1, value.dtype) == held[v], (src, dst, k)


def test_the_operator_records_what_it_did(ops):
    """The record's status for each kind of row, on the operators alone (a store
    built by the general path)."""
    store, _, lookup = _operator_store(ops, [(0, 1), (1, 2)])
    table, out, inn = store.index.table, store.out, store.inn

    def status(src, dst, weight, op):
        return int(ops.to_host(ops.apply_single_row(lookup, src, dst, np.float64(weight), op, table, out,
                                                    inn).record)[SR_STATUS])
    assert status(10, 20, 1.0, 1) == SINGLE_UNCHANGED
    assert status(10, 20, 2.0, 1) == SINGLE_UPDATED
    assert status(20, 10, 0.0, -1) == SINGLE_IGNORED
    assert status(99, 10, 0.0, -1) == SINGLE_IGNORED
    assert status(10, 20, 0.0, -1) == SINGLE_DELETED
    assert status(10, 20, 4.0, 1) == SINGLE_INSERTED
    store.num_edges = 2
    store.check_consistency()


@pytest.mark.parametrize("broken", ["moved out-entry", "moved in-entry's twin"])
def test_a_delete_writes_nothing_where_the_index_disagrees_with_the_lists(ops, broken):
    """A delete whose moved entry the arc index cannot find (an index that lost an
    arc: never made by the engine, made here by hand) writes nothing and leaves
    the row to the general path, instead of looping forever or writing the
    row around a position it could not find."""
    from cugraph_stream.engine.hash_index import arc_key

    store, ids, lookup = _operator_store(ops, [(0, 1), (0, 2), (1, 2)])   # 10 -> 20, 10 -> 30, 20 -> 30
    # deleting 10 -> 20 moves 10 -> 30 into its out-slot; deleting 10 -> 30 moves 20 -> 30 into its in-slot
    deleted, lost = ((10, 20), (0, 2)) if broken == "moved out-entry" else ((10, 30), (1, 2))
    xp = ops.xp
    position = store.index.locate(arc_key(xp, ids[[lost[0]]], ids[[lost[1]]]))
    store.index.table[position] = EMPTY_SLOT
    table, out, inn = store.index.table, store.out, store.inn
    arrays = (table, out.nbr, out.wgt, out.twin, out.degree, inn.nbr, inn.wgt, inn.degree)
    before = [ops.to_host(a).copy() for a in arrays]
    row = ops.apply_single_row(lookup, *deleted, np.float64(0), -1, table, out, inn)
    assert int(ops.to_host(row.record)[SR_STATUS]) == SINGLE_FALLBACK
    for was, now in zip(before, arrays):
        np.testing.assert_array_equal(ops.to_host(now), was)
