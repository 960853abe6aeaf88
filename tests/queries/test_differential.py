"""Differential tests: every tracked query (incremental and recompute mode)
against from-scratch references after every batch, on random graphs and random
streams of batches (see ``tests/reference.py`` for the references and checks).

Runtime knobs: ``HYPOTHESIS_PROFILE=thorough`` multiplies the hypothesis
examples; ``CUGRAPH_STREAM_TEST_BACKENDS`` picks the backends.
"""
import random

import numpy as np
import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

import cugraph_stream as cgs
from keyed import KEY_STYLES, KeyedHarness
from reference import (ALL_KINDS, Harness, example_budget, host, random_batch,
                       random_graph_rows)

SPECIAL_IDS = [-2**63, 2**63 - 1, -2**63 + 1, 2**63 - 2, -1, 0, 1, 2, 2**31 - 1, -2**31,
               2**32 + 7, 2**53 + 1, -(2**53) - 1]
WEIGHTS = [0.0, -0.0, 1.0, 1.0, 1.0, 2.0, 3.0, 0.5, 0.1, 1e-7, 7.25, 100.0]

id_values = st.one_of(st.sampled_from(SPECIAL_IDS), st.integers(-2**63, 2**63 - 1),
                      st.integers(-20, 20))
weights = st.one_of(st.sampled_from(WEIGHTS),
                    st.floats(0, 100, allow_nan=False, allow_infinity=False))


def draw_rows(data, h, universe, weights=weights):
    """A batch of rows drawn against the model's current state."""
    model = h.model
    rows = []
    n = data.draw(st.integers(1, 14), label="rows")
    for _ in range(n):
        present = sorted(model.edges)
        kind = data.draw(st.sampled_from(
            ["insert", "insert", "delete_present", "delete_present", "delete_any",
             "update", "update_tree", "insert_delete", "delete_insert", "duplicate",
             "self_loop", "unknown_delete"]), label="row kind")
        if kind in ("delete_present", "update", "delete_insert") and not present:
            kind = "insert"
        if kind == "insert":
            u = data.draw(st.sampled_from(universe)); v = data.draw(st.sampled_from(universe))
            rows.append((u, v, 1, data.draw(weights)))
        elif kind == "delete_present":
            u, v = data.draw(st.sampled_from(present))
            if not model.directed and data.draw(st.booleans()):
                u, v = v, u
            rows.append((u, v, -1, data.draw(st.one_of(st.none(), weights))))
        elif kind == "delete_any":
            u = data.draw(st.sampled_from(universe)); v = data.draw(st.sampled_from(universe))
            rows.append((u, v, -1, None))
        elif kind == "update":
            u, v = data.draw(st.sampled_from(present))
            rows.append((u, v, 1, data.draw(weights)))
        elif kind == "update_tree":
            # change the weight of (or delete) an edge on the SSSP/widest tree
            q = data.draw(st.sampled_from([q for k, m, q in h.queries
                                           if k in ("SSSP", "WidestPath", "BFS")] or [None]))
            if q is None:
                continue
            df = host(q.result())
            tree = df[df["predecessor"] != -1]
            tree = [(int(p), int(v)) for p, v in zip(tree["predecessor"], tree["vertex"])
                    if model.has_edge(int(p), int(v))]
            if not tree:
                continue
            p, v = data.draw(st.sampled_from(tree))
            if data.draw(st.booleans()):
                rows.append((p, v, 1, data.draw(weights)))
            else:
                rows.append((p, v, -1, None))
        elif kind == "insert_delete":
            u = data.draw(st.sampled_from(universe)); v = data.draw(st.sampled_from(universe))
            rows.append((u, v, 1, data.draw(weights)))
            rows.append((u, v, -1, None))
        elif kind == "delete_insert":
            u, v = data.draw(st.sampled_from(present))
            rows.append((u, v, -1, None))
            w = model.edges[model.key(u, v)] if data.draw(st.booleans()) else data.draw(weights)
            rows.append((v, u, 1, w) if not model.directed else (u, v, 1, w))
        elif kind == "duplicate" and rows:
            rows.append(data.draw(st.sampled_from(rows)))
        elif kind == "self_loop":
            u = data.draw(st.sampled_from(universe))
            rows.append((u, u, data.draw(st.sampled_from([1, -1])), data.draw(weights)))
        elif kind == "unknown_delete":
            fresh = [x for x in universe if x not in model.vertices]
            if fresh:
                u = data.draw(st.sampled_from(fresh))
                v = data.draw(st.sampled_from(universe))
                rows.append((u, v, -1, None) if data.draw(st.booleans()) else (v, u, -1, None))
    if not rows:
        u = data.draw(st.sampled_from(universe))
        rows.append((u, u, 1, 1.0))
    return rows


def run_sequence(data, directed, wdt, backend, kinds=ALL_KINDS, negative=False, placement="device",
                 harness=None, **harness_options):
    """One random sequence of operations; ``harness`` (default: :class:`Harness` on
    ``cugraph_stream``) makes the harness from Harness's keyword arguments."""
    ids = data.draw(st.lists(id_values, min_size=5, max_size=40, unique=True), label="ids")
    k = max(2, (2 * len(ids)) // 3)
    init = ids[:k]
    wts = weights if not negative else st.one_of(weights, st.sampled_from([-1.0, -2.5, -0.0]))
    edges = data.draw(st.lists(st.tuples(st.sampled_from(init), st.sampled_from(init), wts),
                               max_size=3 * k), label="initial edges")
    sources = {kind: data.draw(st.sampled_from(init), label=f"{kind} source")
               for kind in ("SSSP", "BFS", "WidestPath")}
    fmt0 = data.draw(st.sampled_from(["pandas", "arrow", "dict"]), label="edgelist format")
    tol = data.draw(st.sampled_from([1e-6, 1e-6, 1e-9]), label="pagerank tol")
    alpha = data.draw(st.sampled_from([0.85, 0.85, 0.5]), label="pagerank alpha")
    harness = harness or (lambda **kw: Harness(cgs, **kw))
    h = harness(directed=directed, weight_dtype=wdt, backend=backend, edges=edges,
                sources=sources, edges_fmt=fmt0, kinds=kinds, tol=tol, alpha=alpha, placement=placement,
                **harness_options)
    n_ops = data.draw(st.integers(1, 8), label="ops")
    for _ in range(n_ops):
        op = data.draw(st.sampled_from(["batch"] * 6 + ["add", "remove", "track", "untrack"]),
                       label="op")
        if op == "batch":
            rows = draw_rows(data, h, ids, wts)
            fmt = data.draw(st.sampled_from(["pandas", "arrow", "dict"]), label="fmt")
            op_style = data.draw(st.sampled_from(["str", "int"]), label="op style")
            with_weight = data.draw(st.sampled_from([True] * 9 + [False]), label="weight col")
            note(f"apply {rows} fmt={fmt} op_style={op_style} with_weight={with_weight}")
            h.apply(rows, fmt=fmt, op_style=op_style, with_weight=with_weight,
                    rng=random.Random(len(rows)))
        elif op == "add":
            new = data.draw(st.lists(st.one_of(st.sampled_from(ids), id_values), min_size=1,
                                     max_size=4, unique=True), label="add ids")
            note(f"add_vertices {new}")
            h.add_vertices(new)
        elif op == "remove":
            cand = sorted(h.model.vertices - h.tracked_sources())
            if not cand:
                continue
            gone = data.draw(st.lists(st.sampled_from(cand), min_size=1, max_size=3, unique=True),
                             label="remove ids")
            note(f"remove_vertices {gone}")
            h.remove_vertices(gone)
        elif op == "track":
            kind = data.draw(st.sampled_from(kinds), label="track kind")
            if kind in ("SSSP", "WidestPath") and any(w < 0 for w in h.model.edges.values()):
                continue
            src = data.draw(st.sampled_from(sorted(h.model.vertices)), label="track source") \
                if kind in ("SSSP", "BFS", "WidestPath") else None
            note(f"track {kind} source={src} (both modes)")
            h.track(kind, "incremental", source=src)
            h.track(kind, "recompute", source=src)
        elif op == "untrack" and len(h.queries) > 1:
            i = data.draw(st.integers(0, len(h.queries) - 1), label="untrack index")
            note(f"untrack {h.queries[i][:2]}")
            h.untrack(i)


@pytest.mark.parametrize("wdt", ["float64", "float32"])
@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
@settings(max_examples=example_budget(40))
@given(data=st.data())
def test_random_streams(directed, wdt, backend, placement, data):
    run_sequence(data, directed, wdt, backend, placement=placement)


@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
@settings(max_examples=example_budget(20))
@given(data=st.data())
def test_random_streams_negative_weights(directed, backend, data):
    """Negative weights are fine while no SSSP / WidestPath / weighted PageRank is tracked."""
    run_sequence(data, directed, "float32", backend, kinds=("BFS", "WCC", "PageRank"),
                 negative=True, pagerank_options={"weighted": False})


@pytest.mark.parametrize("style", KEY_STYLES)
@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
@settings(max_examples=example_budget(20))
@given(data=st.data())
def test_random_streams_keyed(style, directed, backend, data):
    """The random streams on a graph whose vertices are named by string or
    two-column keys (``tests/keyed.py``): the same references must hold."""
    run_sequence(data, directed, "float64", backend,
                 harness=lambda **kw: KeyedHarness(style, **kw))


# ------------------------------------------------------------------ seeded
def seeded_stream(seed, directed, wdt, backend, n=2000, m=20000, batches=20, rows=500,
                  tol=1e-6, placement="device"):
    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    ids = [int(x) for x in np.unique(nprng.integers(-2**63, 2**63 - 1, size=n, dtype=np.int64,
                                                    endpoint=True))]
    ids[:3] = [-2**63, 2**63 - 1, -1] if n > 3 else ids[:3]
    ids = list(dict.fromkeys(ids))
    rng.shuffle(ids)
    wts = WEIGHTS + [round(rng.uniform(0, 50), 3) for _ in range(40)]
    init = ids[: int(0.9 * len(ids))]            # the rest appear in batches
    edges = random_graph_rows(rng, init, m, wts)
    sources = {"SSSP": init[0], "BFS": init[1], "WidestPath": init[0]}
    h = Harness(cgs, directed=directed, weight_dtype=wdt, backend=backend, edges=edges,
                sources=sources, tol=tol, placement=placement)
    fmts = ["pandas", "arrow", "dict"]
    for b in range(batches):
        batch = random_batch(rng, h.model, ids, rows, wts)
        if b % 5 == 4:
            # a batch aimed at tree edges: delete / reweight predecessor edges
            df = host(h.queries[0][2].result())
            df = df[df["predecessor"] != -1]
            tree = df.iloc[:0] if df.empty else df.sample(n=min(rows // 2, 200), random_state=b,
                                                       replace=True)
            aim = [(int(p), int(v)) for p, v in zip(tree["predecessor"], tree["vertex"])]
            batch = batch[: rows - len(aim)] + [
                (p, v, -1, None) if rng.random() < 0.6 else (p, v, 1, rng.choice(wts))
                for p, v in aim]
        h.apply(batch, fmt=fmts[b % 3], op_style="int" if b % 2 else "str", rng=rng)
        if b % 7 == 3:
            cand = sorted(h.model.vertices - h.tracked_sources())
            h.remove_vertices(rng.sample(cand, 5))
        if b % 7 == 5:
            h.add_vertices(rng.sample(ids, 5) + [rng.randrange(-2**63, 2**63)])


@pytest.mark.parametrize("directed,wdt,seed", [
    (True, "float32", 1),
    (False, "float64", 2),
])
def test_seeded_large_stream(directed, wdt, seed, backend, placement):
    seeded_stream(seed, directed, wdt, backend, placement=placement)


@pytest.mark.parametrize("directed,wdt,seed", [
    (True, "float64", 11),
    (False, "float32", 12),
    (True, "float32", 13),
    (False, "float64", 14),
])
def test_seeded_medium_dense_stream(directed, wdt, seed, backend):
    """Denser, smaller graphs: many ties and many alternative paths."""
    seeded_stream(seed, directed, wdt, backend, n=150, m=1500, batches=25, rows=120, tol=1e-8)


# ------------------------------------------------------------------- sweep
@pytest.mark.parametrize("directed,wdt", [(True, "float32"), (False, "float64")])
def test_sweep_insert_delete_same_edges(directed, wdt, backend, placement):
    """Insert and delete the same edges 200 times: results stay right."""
    rng = random.Random(7)
    ids = list(range(-30, 30))
    base = random_graph_rows(rng, ids, 90, [1.0, 2.0, 5.0, 10.0])
    sweep = [(rng.choice(ids), rng.choice(ids), 1, rng.choice([0.0, 0.5, 1.0])) for _ in range(25)]
    sweep += [(0, 1, 1, 0.25), (1, 2, 1, 0.25), (2, 3, 1, 0.0), (3, 0, 1, 0.0)]
    sources = {"SSSP": 0, "BFS": 0, "WidestPath": 1}
    # incremental mode only: the references are the oracle (recompute twins
    # are compared in every other test of this file)
    h = Harness(cgs, directed=directed, weight_dtype=wdt, backend=backend, edges=base,
                sources=sources, modes=("incremental",), placement=placement)
    base_keys = {h.model.key(u, v) for u, v, _ in base}
    sweep = [r for r in sweep if h.model.key(r[0], r[1]) not in base_keys]
    for i in range(200):
        h.apply(sweep, fmt="pandas", op_style="int" if i % 2 else "str", rng=rng)
        h.apply([(u, v, -1, None) for u, v, _, _ in sweep], fmt="arrow", op_style="int", rng=rng)
    assert h.g.number_of_edges() == h.model.number_of_edges()


@pytest.mark.parametrize("directed", [True, False], ids=["directed", "undirected"])
def test_sweep_within_batch_cancels(directed, backend):
    """Insert-then-delete inside one batch, 200 times, with deletes of tree
    edges and reinserts with new weights in between."""
    rng = random.Random(3)
    ids = list(range(40))
    base = random_graph_rows(rng, ids, 120, [0.0, 1.0, 2.0, 3.0])
    h = Harness(cgs, directed=directed, weight_dtype="float64", backend=backend, edges=base,
                sources={"SSSP": 0, "BFS": 0, "WidestPath": 0}, modes=("incremental",))
    for i in range(200):
        rows = []
        for _ in range(6):
            u, v = rng.choice(ids), rng.choice(ids)
            rows += [(u, v, 1, rng.choice([0.0, 1.0, 2.0])), (u, v, -1, None)]
        present = sorted(h.model.edges)
        u, v = rng.choice(present)
        rows += [(u, v, -1, None), (u, v, 1, rng.choice([0.0, 1.0, 4.0]))]
        h.apply(rows, fmt=["pandas", "arrow", "dict"][i % 3], op_style="str", rng=rng)
