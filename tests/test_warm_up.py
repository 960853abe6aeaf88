"""Tracking a query loads the compiled kernels its batches will call (cugraph_stream.warm_up)."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

import cugraph_stream as cgs
from cugraph_stream import warm_up as warm_up_module
from cugraph_stream.backends import available_backends, get_backend
from cugraph_stream.backends.faults import FaultInjector

pytest.importorskip("numba")


def test_the_first_batches_load_no_kernel_once_a_query_is_tracked():
    """In a fresh process (numba loads a kernel on its first call there): after ``track``,
    batches that insert, relocate lists, create vertices and cut paths call no kernel
    for the first time."""
    script = textwrap.dedent("""
        import numba, numpy as np, pandas as pd
        import cugraph_stream as cgs
        from cugraph_stream.backends import cpu_kernels

        def loaded():
            return {name: len(f.signatures) for name, f in vars(cpu_kernels).items()
                    if isinstance(f, numba.core.registry.CPUDispatcher)}

        rng = np.random.default_rng(1)
        n, m = 3000, 20000
        queries = [(True, lambda s: cgs.SSSP(source=s)), (False, lambda s: cgs.BFS(source=s)),
                   (True, lambda s: cgs.WCC()), (True, lambda s: cgs.PageRank()),
                   (True, lambda s: cgs.PageRank(weighted=False))]
        for directed, make in queries:
            edges = pd.DataFrame({"source": rng.integers(0, n, m), "destination": rng.integers(0, n, m),
                                  "weight": rng.random(m) + 1})
            g = cgs.StreamGraph.from_edgelist(edges, weight="weight", directed=directed)
            query = g.track(make(int(edges.source[0])))
            before = loaded()
            # (batches of a few rows: PageRank's sparse pushes; of one row, inserting or deleting)
            for k in (2000, 2000, 2000, 2, 2, 2, 1, -1):
                present = edges.sample(max(k // 2, 1), random_state=int(rng.integers(1 << 30)))
                batch = pd.DataFrame({
                    "source": np.concatenate((rng.integers(0, n + 50, k // 2), present.source)),
                    "destination": np.concatenate((rng.integers(0, n + 50, k // 2), present.destination)),
                    "weight": np.concatenate((rng.random(k // 2) + 1, present.weight)),
                    "op": np.repeat(np.array([1, -1], dtype=np.int8), k // 2)}) if k > 1 else pd.DataFrame({
                    "source": present.source.to_numpy() if k < 0 else rng.integers(0, n, 1),
                    "destination": present.destination.to_numpy() if k < 0 else rng.integers(0, n, 1),
                    "weight": present.weight.to_numpy(), "op": np.full(1, k, dtype=np.int8)})
                g.apply(batch, weight="weight")
            after = loaded()
            print(query.name, {k: (before[k], after[k]) for k in after if after[k] != before[k]})
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    for line in out.strip().splitlines():
        assert line.endswith("{}"), line


def test_warm_up_runs_once_per_kind_on_a_spare_backend(monkeypatch):
    monkeypatch.setattr(warm_up_module, "_warmed", set())
    ops = get_backend("cpu", compiled=True)
    with FaultInjector(ops, at=0) as fault:          # the caller's operators are not the ones it runs
        assert warm_up_module.warm_up(ops, True, np.float64, cgs.WidestPath(source=3))
    assert not fault.fired and fault.calls == 0
    assert not warm_up_module.warm_up(ops, True, np.float64, cgs.WidestPath(source=5))
    assert warm_up_module.warm_up(ops, False, np.float64, cgs.WidestPath(source=3))
    assert not warm_up_module.warm_up(get_backend("cpu", compiled=False), True, np.float32, cgs.SSSP(source=0))

    class MySSSP(cgs.SSSP):                      # a kind of the user's: not warmed (and not refused)
        pass
    assert not warm_up_module.warm_up(ops, True, np.float64, MySSSP(source=0))


def test_pagerank_warms_its_variant_and_its_sparse_pushes(monkeypatch):
    """Weighted and unweighted PageRank run other kernels: each is warmed once; and
    the tiny graph's last batch is small enough for the sparse pushes (the GPU's
    first PageRank batch compiled their kernels when they were missed)."""
    from cugraph_stream.engine import pagerank

    monkeypatch.setattr(warm_up_module, "_warmed", set())
    pushes = []
    push = pagerank.PageRankEngine._push
    monkeypatch.setattr(pagerank.PageRankEngine, "_push", lambda self, *a: pushes.append(a) or push(self, *a))
    ops = get_backend("cpu", compiled=True)
    weighted, unweighted = cgs.PageRank(), cgs.PageRank(weighted=False)
    weighted._settle_weights(True)
    unweighted._settle_weights(True)
    assert warm_up_module.warm_up(ops, True, np.float64, weighted)
    assert pushes
    assert not warm_up_module.warm_up(ops, True, np.float64, weighted)
    assert warm_up_module.warm_up(ops, True, np.float64, unweighted)


def test_tracking_still_fails_cleanly_after_a_warm_up(monkeypatch):
    monkeypatch.setattr(warm_up_module, "_warmed", set())
    g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"source": [0, 1], "destination": [1, 2], "w": [1.0, -1.0]}),
                                      weight="w")
    with pytest.raises(ValueError, match="non-negative"):
        g.track(cgs.SSSP(source=0))
    assert not g.queries


@pytest.mark.gpu
@pytest.mark.skipif(available_backends()["gpu"] is not None, reason=str(available_backends()["gpu"]))
def test_the_first_gpu_batches_compile_nothing_once_a_query_is_tracked(tmp_path):
    """In a fresh process with an empty kernel cache (a fresh machine), on the GPU:
    after ``track``, batches that insert, relocate lists, create vertices, cut paths
    and (a few rows) make PageRank push sparsely, as pandas frames or as columns in
    GPU memory, load no kernels/*.cu module for the first time and compile no kernel,
    ours or CuPy's (each compile writes a file to the cache folder; a missed one made
    the first PageRank batch of ``benchmarks.gpu_vs_pylibcugraph`` at R-MAT scale 22
    cost 168.5 ms on a lent H100, the next ones 11-17 ms, and the first SSSP batch of
    cuDF columns 115 ms on a lent H200, the next ones 4-5 ms)."""
    script = textwrap.dedent("""
        import os, cupy, numpy as np, pandas as pd
        import cugraph_stream as cgs
        from cugraph_stream.backends import cuda_kernels

        def compiled():
            return {os.path.join(d, f) for d, _, files in os.walk(os.environ["CUPY_CACHE_DIR"]) for f in files}

        rng = np.random.default_rng(2)
        n, m = 3000, 20000
        queries = [(True, lambda s: cgs.PageRank()), (True, lambda s: cgs.PageRank(weighted=False)),
                   (False, lambda s: cgs.SSSP(source=s)), (True, lambda s: cgs.WCC()),
                   (True, lambda s: cgs.BFS(source=s))]
        for directed, make in queries:
            edges = pd.DataFrame({"source": rng.integers(0, n, m), "destination": rng.integers(0, n, m),
                                  "weight": rng.random(m) + 1})
            g = cgs.StreamGraph.from_edgelist(edges, weight="weight", directed=directed, backend="gpu")
            query = g.track(make(int(edges.source[0])))
            modules, files = cuda_kernels._module.cache_info().currsize, compiled()
            # (a few rows: PageRank's sparse pushes; one row, inserting or deleting, in a pandas frame: the one-row path)
            for i, k in enumerate((2000, 2000, 2000, 2, 2, 2, 1, -1)):
                present = edges.sample(max(k // 2, 1), random_state=int(rng.integers(1 << 30)))
                columns = {"source": np.concatenate((rng.integers(0, n + 50, k // 2), present.source)),
                           "destination": np.concatenate((rng.integers(0, n + 50, k // 2), present.destination)),
                           "weight": np.concatenate((rng.random(k // 2) + 1, present.weight)),
                           "op": np.repeat(np.array([1, -1], dtype=np.int8), k // 2)} if k > 1 else {
                    "source": present.source.to_numpy() if k < 0 else rng.integers(0, n, 1),
                    "destination": present.destination.to_numpy() if k < 0 else rng.integers(0, n, 1),
                    "weight": present.weight.to_numpy(), "op": np.full(1, k, dtype=np.int8)}
                on_host = i % 2 or k < 2
                frame = pd.DataFrame(columns) if on_host else {c: cupy.asarray(v) for c, v in columns.items()}
                g.apply(frame, weight="weight")
            print(repr(query), cuda_kernels._module.cache_info().currsize - modules, sorted(compiled() - files))
    """)
    env = dict(os.environ, CUPY_CACHE_DIR=str(tmp_path / "kernel_cache"))
    env.pop("CUPY_CACHE_IN_MEMORY", None)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                         env=env).stdout
    lines = out.strip().splitlines()
    assert len(lines) == 5
    for line in lines:
        assert line.endswith(" 0 []"), line
