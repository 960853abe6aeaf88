"""Subnormal weights and values on the GPU backend, against the CPU backend bit for bit.

CuPy compiles every kernel it builds (RawModule, ElementwiseKernel, ufuncs)
with ``-ftz=true`` appended after the caller's options, so float32 work there
reads and writes subnormals as 0 (a distance of 1e-45 came out 0).  The
kernels of ``kernels/`` are compiled without it
(:mod:`cugraph_stream.backends.cuda_kernels`); these tests pin down each
operator that computes with, compares or converts a weight or a query value:
relax (every schedule), relax_arcs, pull, converge, record_changes,
net_changes and the float conversions, then whole SSSP and widest-path
queries in every placement.  float64 is never flushed by the hardware; it
runs the same tests with its own smallest subnormal.
"""
import numpy as np
import pandas as pd
import pytest

import cugraph_stream as cgs
from cugraph_stream.algorithms import sssp_rule, widest_path_rule
from cugraph_stream.backends import available_backends, get_backend
from cugraph_stream.engine.adjacency import Adjacency
from cugraph_stream.engine.arc_index import ArcIndex

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(available_backends()["gpu"] is not None,
                                 reason=str(available_backends()["gpu"]))]

DTYPES = ["float32", "float64"]
RULES = {"sssp": sssp_rule, "widest": widest_path_rule}
CACHED = {"cache_budget": 8192, "chunk_bytes": 2048}     # tests/reference.py CACHE_OPTIONS


def tiny(dtype):
    """The smallest positive subnormal of ``dtype``."""
    dt = np.dtype(dtype).type
    return np.nextafter(dt(0), dt(1))


def subnormals(dtype, k):
    """``k * tiny`` (exact: subnormals are the multiples of tiny)."""
    return (np.asarray(k, dtype=np.int64) * tiny(dtype)).astype(dtype)


def bits(array):
    array = np.ascontiguousarray(array)
    return array.view(np.uint32 if array.dtype.itemsize == 4 else np.uint64)


def assert_same_bits(got, want, what):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    differ = np.flatnonzero(bits(got) != bits(want))
    assert differ.size == 0, (f"{what}: {differ.size} entries differ, first at {int(differ[0])}: "
                              f"GPU {got[differ[0]]!r}, CPU {want[differ[0]]!r}")


def has_subnormal(values):
    values = np.asarray(values)
    return bool(np.any((values != 0) & (np.abs(values) < np.finfo(values.dtype).tiny)))


def host(ops, array):
    return np.asarray(ops.to_host(array))


@pytest.fixture(scope="module")
def backends():
    return {"cpu": get_backend("cpu"), "gpu": get_backend("gpu")}


@pytest.fixture(params=["one-launch", "thread-warp-block", "all-hubs", "grid"])
def schedule(request, monkeypatch):
    """The GPU's schedules: a small frontier in one launch and one-block phases
    (defaults); binned by degree into the thread, warp and block kernels with
    per-step phases; every list a hub of the one-block phases; every push
    phase on the whole grid."""
    from cugraph_stream.backends import gpu
    if request.param == "thread-warp-block":
        monkeypatch.setattr(gpu, "_ONE_LAUNCH_FRONTIER", 0)
        monkeypatch.setattr(gpu, "_SMALL_DEGREE", 2)
        monkeypatch.setattr(gpu, "_LARGE_DEGREE", 4)
        monkeypatch.setattr(gpu, "_FUSED_LEVEL_LIMIT", 0)
        monkeypatch.setattr(gpu, "_FUSED_QUEUE_LIMIT", 0)
    if request.param == "all-hubs":
        monkeypatch.setattr(gpu, "_LARGE_DEGREE", 1)
    if request.param == "grid":
        monkeypatch.setattr(gpu, "_FUSED_LEVEL_LIMIT", 0)
    return request.param


def make_adjacency(ops, n, edges, dtype):
    adj = Adjacency(ops, dtype, with_twin=False)
    adj.ensure_vertices(n)
    u, v, w = (np.array(x) for x in zip(*edges))
    adj.append(ops.asarray(u.astype(np.int64)), ops.asarray(v.astype(np.int64)), ops.asarray(w.astype(dtype)))
    return adj


def random_edges(rng, n, dtype, most=6, split=False):
    """Lists of 1 to ``most`` entries; weights 0 to 3 tiny, a few normal ones.  With
    ``split``, arcs go from the first half of the vertices to the second only: a
    single step (relax, pull) then reads no value it writes, so the GPU's result
    cannot depend on the order of its threads."""
    edges = []
    for u in range(n // 2 if split else n):
        heads = rng.choice(np.arange(n // 2, n) if split else np.arange(n), int(rng.integers(1, most + 1)),
                           replace=False)
        for v in heads:
            w = subnormals(dtype, rng.integers(0, 4)) if rng.random() < 0.85 else np.dtype(dtype).type(0.5)
            edges.append((u, int(v), w))
    return edges


def random_values(rng, n, rule, dtype):
    """Values of 0 to 6 tiny (a few normal), every fifth unreachable."""
    dt = np.dtype(dtype).type
    value = subnormals(dtype, rng.integers(0, 7, n))
    value[rng.random(n) < 0.1] = dt(1.0)
    value[::5] = rule.unreachable
    return value


def extend(rule, a, w):
    """The rule's candidate, in the value dtype, on the host."""
    return a + w if rule.extend == "add" else np.minimum(a, w)


def check_parents(rule, edges, before, after, parent, changed, what):
    """Each changed vertex's parent is an in-neighbour that gives its value exactly."""
    weight = {(u, v): w for u, v, w in edges}
    for v in changed:
        p = int(parent[v])
        assert (p, v) in weight, f"{what}: parent {p} of {v} is not an in-neighbour"
        cand = extend(rule, before[p], weight[(p, v)])
        assert bits(np.array([cand]))[0] == bits(after[v:v + 1])[0], f"{what}: parent {p} does not give {v}'s value"


# ---------------------------------------------------------------- operators
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(RULES))
def test_relax_keeps_subnormal_candidates(backends, schedule, name, dtype):
    rule = RULES[name](dtype)
    rng = np.random.default_rng(1)
    n = 160
    edges = random_edges(rng, n, dtype, split=True)
    value = random_values(rng, n, rule, dtype)
    frontier = np.unique(rng.integers(0, n // 2, 40))
    frontier = frontier[value[frontier] != rule.unreachable]
    got = {}
    for key, ops in backends.items():
        adj = make_adjacency(ops, n, edges, dtype)
        dev_value, parent = ops.asarray(value.copy()), ops.asarray(np.full(n, -1, dtype=np.int64))
        improved, read = ops.relax(adj, ops.asarray(frontier), dev_value, parent, rule)
        got[key] = (sorted(host(ops, improved).tolist()), host(ops, dev_value), host(ops, parent), read)
    assert got["gpu"][0] == got["cpu"][0] and got["gpu"][3] == got["cpu"][3]
    assert_same_bits(got["gpu"][1], got["cpu"][1], "relax values")
    assert has_subnormal(got["cpu"][1][got["cpu"][0]]), "no subnormal value was written: the test proves nothing"
    check_parents(rule, edges, value, got["gpu"][1], got["gpu"][2], got["gpu"][0], "relax")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(RULES))
def test_relax_arcs_keeps_subnormal_candidates(backends, name, dtype):
    rule = RULES[name](dtype)
    rng = np.random.default_rng(2)
    n = 200
    u, v = rng.integers(0, n // 2, 600), rng.integers(n // 2, n, 600)     # no arc reads a value it writes
    w = subnormals(dtype, rng.integers(0, 4, 600))
    value = random_values(rng, n, rule, dtype)       # unreachable sources send nothing
    got = {}
    for key, ops in backends.items():
        dev_value, parent = ops.asarray(value.copy()), ops.asarray(np.full(n, -1, dtype=np.int64))
        improved = ops.relax_arcs(ops.asarray(u), ops.asarray(v), ops.asarray(w), dev_value, parent, rule)
        got[key] = (sorted(host(ops, improved).tolist()), host(ops, dev_value), host(ops, parent))
    assert got["gpu"][0] == got["cpu"][0]
    assert_same_bits(got["gpu"][1], got["cpu"][1], "relax_arcs values")
    assert has_subnormal(got["cpu"][1][got["cpu"][0]])
    edges = list(zip(u.tolist(), v.tolist(), w))
    best = {}
    for a, b, c in edges:      # the best of parallel arcs: check_parents looks one weight up per pair
        if value[a] != rule.unreachable:
            best[(a, b)] = c if (a, b) not in best else (min if rule.order == "min" else max)(
                best[(a, b)], c, key=lambda x: extend(rule, value[a], x))
    check_parents(rule, [(a, b, c) for (a, b), c in best.items()], value, got["gpu"][1], got["gpu"][2],
                  got["gpu"][0], "relax_arcs")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(RULES))
def test_pull_keeps_subnormal_candidates(backends, schedule, name, dtype):
    rule = RULES[name](dtype)
    rng = np.random.default_rng(3)
    n = 160
    edges = random_edges(rng, n, dtype, split=True)             # u -> v
    value = random_values(rng, n, rule, dtype)
    targets = np.unique(rng.integers(n // 2, n, 40))
    value[targets] = rule.unreachable
    got = {}
    for key, ops in backends.items():
        inn = make_adjacency(ops, n, [(v, u, w) for u, v, w in edges], dtype)
        dev_value, parent = ops.asarray(value.copy()), ops.asarray(np.full(n, -1, dtype=np.int64))
        read = ops.pull([inn], ops.asarray(targets), dev_value, parent, rule).get()
        got[key] = (host(ops, dev_value), host(ops, parent), read)
    assert got["gpu"][2] == got["cpu"][2]
    assert_same_bits(got["gpu"][0], got["cpu"][0], "pull values")
    reseeded = [int(t) for t in targets if got["cpu"][0][t] != rule.unreachable]
    assert has_subnormal(got["cpu"][0][reseeded])
    check_parents(rule, edges, value, got["gpu"][0], got["gpu"][1], reseeded, "pull")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(RULES))
def test_converge_reaches_the_cpu_fixpoint_with_subnormal_weights(backends, schedule, name, dtype):
    rule = RULES[name](dtype)
    rng = np.random.default_rng(4)
    n = 120
    edges = random_edges(rng, n, dtype, most=4)
    value = np.full(n, rule.unreachable, dtype=dtype)
    value[0] = rule.source_value
    got = {}
    for key, ops in backends.items():
        out = make_adjacency(ops, n, edges, dtype)
        dev_value, parent = ops.asarray(value.copy()), ops.asarray(np.full(n, -1, dtype=np.int64))
        ops.converge([out], ops.asarray(np.array([0])), dev_value, parent, rule)
        got[key] = (host(ops, dev_value), host(ops, parent))
    assert_same_bits(got["gpu"][0], got["cpu"][0], "converged values")
    assert has_subnormal(got["cpu"][0])
    reached = [v for v in range(1, n) if got["gpu"][0][v] != rule.unreachable]
    check_parents(rule, edges, got["gpu"][0], got["gpu"][0], got["gpu"][1], reached, "converge")


@pytest.mark.parametrize("dtype", DTYPES)
def test_record_changes_sees_subnormal_changes(backends, dtype):
    # IEEE inequality, as the CPU backend's ``!=``: 0 -> tiny and tiny -> 2 tiny are
    # changes, tiny -> tiny is none, and so is -0.0 -> 0.0 (equal numbers)
    t = tiny(dtype)
    previous = np.array([0, t, t, 2 * t, -0.0, 0, t, 5.0], dtype=dtype)
    value = np.array([t, 2 * t, t, t, 0.0, 0, 0, 5.0], dtype=dtype)
    n = value.size
    parent = np.arange(n, dtype=np.int64)
    alive = np.ones(n, dtype=bool)
    got = {}
    for key, ops in backends.items():
        previous_value = ops.asarray(previous.copy())
        recorded = ops.record_changes(ops.asarray(np.array([], dtype=np.int64)), ops.asarray(np.arange(n)),
                                      ops.asarray(value), ops.asarray(parent), previous_value,
                                      ops.asarray(parent.copy()), ops.asarray(alive), True)
        changed = recorded.read(*ops.read_counts(recorded.count))
        got[key] = (sorted(host(ops, changed).tolist()), host(ops, previous_value))
    assert got["cpu"][0] == [0, 1, 3, 6]
    assert got["gpu"][0] == got["cpu"][0]
    assert_same_bits(got["gpu"][1], got["cpu"][1], "recorded values")


@pytest.mark.parametrize("dtype", DTYPES)
def test_net_changes_tells_subnormal_weights_apart(backends, dtype):
    t = tiny(dtype)
    stored = np.array([0, t, 2 * t, 1.0], dtype=dtype)            # edges 10, 11, 12, 13 (arcs 0 -> k)
    keys = np.array([10, 11, 12, 13], dtype=np.int64)
    rows = [(10, 1, t), (11, 1, t), (12, 1, t), (13, 1, 1.0), (14, 1, t), (15, 1, 0.0), (15, 1, t)]
    row_keys = np.array([k for k, _, _ in rows], dtype=np.int64)
    row_ops = np.array([o for _, o, _ in rows], dtype=np.int8)
    row_w = np.array([w for _, _, w in rows], dtype=dtype)
    got = {}
    for key, ops in backends.items():
        adj = Adjacency(ops, dtype, with_twin=False)
        adj.ensure_vertices(16)
        slots = adj.build(ops.asarray(np.zeros(4, dtype=np.int64)), ops.asarray(keys), ops.asarray(stored))
        index = ArcIndex(ops, adj)
        index.build(ops.asarray(keys), slots)
        out = ops.net_changes(ops.asarray(np.zeros(row_keys.size, dtype=np.int64)), ops.asarray(row_keys),
                              ops.asarray(row_ops), ops.asarray(row_w), index.table, adj)
        got[key] = (dict(zip(host(ops, out.inserted_v).tolist(), host(ops, out.inserted_weights))),
                    dict(zip(host(ops, out.updated_v).tolist(), host(ops, out.updated_weights))), out.counts)
    cpu, gpu = got["cpu"], got["gpu"]
    assert sorted(cpu[1]) == [10, 12] and cpu[2]["unchanged"] == 2 and sorted(cpu[0]) == [14, 15]
    assert gpu[2] == cpu[2]
    for k in (0, 1):
        assert sorted(gpu[k]) == sorted(cpu[k])
        assert_same_bits([gpu[k][e] for e in sorted(gpu[k])], [cpu[k][e] for e in sorted(cpu[k])], "net weights")


@pytest.mark.parametrize("source,target", [("float32", "float64"), ("float64", "float32")])
def test_exact_astype_keeps_subnormals(source, target):
    import cupy

    from cugraph_stream.floats import exact_astype

    f32 = np.finfo(np.float32)
    # no NaN: PTX converts every NaN to its canonical one (weights are finite anyway)
    values = np.array([0.0, -0.0, 1e-45, -1e-45, 3e-45, 7e-46, 7.1e-46, 1e-40, -1e-40, float(f32.tiny),
                       float(f32.tiny) * 0.99999, 1.5, np.inf, -np.inf, 1e300, 5e-324], dtype=np.float64)
    with np.errstate(over="ignore"):
        values = values.astype(source)
    got = exact_astype(cupy.asarray(values), target)
    assert isinstance(got, cupy.ndarray)
    with np.errstate(over="ignore"):
        want = values.astype(target)
    assert_same_bits(got.get(), want, f"{source} -> {target}")
    same = cupy.asarray(values)
    assert exact_astype(same, source) is same


@pytest.mark.parametrize("dtype", DTYPES)
def test_ordered_bits_compare_like_ieee_on_the_gpu(dtype):
    # the integer keys that comparisons of weights can use where CuPy's float32 ``<`` flushes
    import cupy

    from cugraph_stream.floats import ordered_bits

    dt = np.dtype(dtype).type
    special = np.array([0.0, -0.0, np.inf, -np.inf, 1.0, -1.0, np.finfo(dtype).tiny, -np.finfo(dtype).tiny],
                       dtype=dtype)
    values = np.concatenate((special, subnormals(dtype, np.arange(-5, 6))))
    keys = cupy.asnumpy(ordered_bits(cupy.asarray(values)))
    assert_same_bits(keys.view(values.dtype), ordered_bits(values).view(values.dtype), "keys")
    a, b = values[:, None], values[None, :]
    for compare in (np.less, np.equal, np.greater):
        assert (compare(keys[:, None], keys[None, :]) == compare(a, b)).all(), compare.__name__
    assert dt(0) in values


# ------------------------------------------------------------------ queries
def frame(result):
    return result.to_pandas() if hasattr(result, "to_pandas") else result


def graphs(dtype, placement, edges):
    rows = pd.DataFrame({"src": [u for u, _, _ in edges], "dst": [v for _, v, _ in edges],
                         "w": np.array([w for _, _, w in edges], dtype=dtype)})
    made = {"cpu": cgs.StreamGraph(backend="cpu", weight_dtype=dtype),
            "gpu": cgs.StreamGraph(backend="gpu", weight_dtype=dtype, placement=placement,
                                   **(CACHED if placement == "cached" else {}))}
    for g in made.values():
        g.apply(rows, weight="w", op=None)
    return made


def same_results(queries, column, what):
    cpu, gpu = (frame(queries[b].result()) for b in ("cpu", "gpu"))
    assert gpu["vertex"].tolist() == cpu["vertex"].tolist(), what
    assert_same_bits(gpu[column].to_numpy(), cpu[column].to_numpy(), f"{what}: {column}")
    cpu, gpu = (frame(queries[b].changes()) for b in ("cpu", "gpu"))
    assert gpu["vertex"].tolist() == cpu["vertex"].tolist(), f"{what}: changed vertices"
    assert_same_bits(gpu[column].to_numpy(), cpu[column].to_numpy(), f"{what}: changes")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("placement", ["device", "host", "cached"])
def test_sssp_and_widest_path_keep_subnormal_values_in_every_placement(placement, dtype):
    # the graph of tests/queries/test_queries.py::test_subnormal_weights_keep_subnormal_distances
    t = tiny(dtype)
    g = graphs(dtype, placement, [(0, 1, t), (1, 2, t), (0, 3, 1.0)])
    sssp = {b: g[b].track(cgs.SSSP(source=0)) for b in g}
    widest = {b: g[b].track(cgs.WidestPath(source=0)) for b in g}
    dt = np.dtype(dtype).type
    assert frame(sssp["cpu"].result())["distance"].tolist() == [0, t, dt(t + t), 1.0]
    same_results(sssp, "distance", "SSSP after track")
    same_results(widest, "width", "WidestPath after track")
    batch = pd.DataFrame({"src": [3, 0], "dst": [1, 1], "w": np.array([0.0, np.nan], dtype=dtype),
                          "op": ["insert", "delete"]})
    for b in g:
        g[b].apply(batch, weight="w")
    same_results(sssp, "distance", "SSSP after a batch")
    same_results(widest, "width", "WidestPath after a batch")


# Rule.is_worse_weight compares old and new weights through cugraph_stream.floats.ordered_bits:
# CuPy's own float32 ``<``/``>`` flush subnormals (setp.*.ftz), so 0 -> tiny would read as no change
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(RULES))
def test_is_worse_weight_on_subnormal_changes(backends, name, dtype):
    rule = RULES[name](dtype)
    t = tiny(dtype)
    old = np.array([0, t, t, 2 * t, 0, -0.0, 1.0], dtype=dtype)
    new = np.array([t, 0, 2 * t, t, 0, 0.0, 1.0 + 0], dtype=dtype)
    want = rule.is_worse_weight(old, new)
    got = backends["gpu"].to_host(rule.is_worse_weight(backends["gpu"].asarray(old), backends["gpu"].asarray(new)))
    assert want.tolist() == (new < old if rule.improves_on_increase else new > old).tolist()
    assert np.asarray(got).tolist() == want.tolist()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", ["sssp", "widest"])
def test_subnormal_weight_updates_reach_the_results(name, dtype):
    # a tree edge 0 -> 1 re-weighted between 0 and tiny: worse for SSSP (0 -> tiny),
    # worse for widest paths (tiny -> 0), so vertex 1 (and 2 after it) must be recomputed
    t = tiny(dtype)
    first, second = (0.0, t) if name == "sssp" else (t, 0.0)
    g = graphs(dtype, "device", [(0, 1, first), (1, 2, 1.0)])
    query, column = (cgs.SSSP, "distance") if name == "sssp" else (cgs.WidestPath, "width")
    queries = {b: g[b].track(query(source=0)) for b in g}
    batch = pd.DataFrame({"src": [0], "dst": [1], "w": np.array([second], dtype=dtype), "op": ["insert"]})
    reports = {b: g[b].apply(batch, weight="w") for b in g}
    assert reports["gpu"].weight_updated == reports["cpu"].weight_updated == 1
    assert frame(queries["cpu"].result())[column].tolist()[1] == second
    same_results(queries, column, f"{name} after 0 -> 1 re-weighted {first!r} -> {second!r}")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("placement", ["device", "host"])
def test_weighted_pagerank_counts_subnormal_out_weights(placement, dtype):
    # vertex 3 is dangling until a batch gives it a self loop of weight tiny: its out-weight
    # total is then tiny, not 0, so it keeps its rank (P[3, 3] = 1) instead of spreading it
    # (CuPy's float32 -> float64 astype read the new weight as 0: found by
    # tests/queries/test_differential.py on a self loop of weight 5.03e-40)
    t = tiny(dtype)
    g = graphs(dtype, placement, [(0, 1, 1.0), (1, 2, 1.0), (2, 0, 1.0), (0, 3, 1.0)])
    ranks = {b: g[b].track(cgs.PageRank(tol=1e-9, mode="incremental")) for b in g}
    batch = pd.DataFrame({"src": [3], "dst": [3], "w": np.array([t], dtype=dtype), "op": ["insert"]})
    for b in g:
        g[b].apply(batch, weight="w")
    cpu, gpu = (frame(ranks[b].result()).sort_values("vertex")["pagerank"].to_numpy() for b in ("cpu", "gpu"))
    assert cpu[3] > 0.5                          # a sink: it holds most of the rank
    assert np.abs(gpu - cpu).sum() < 1e-6
