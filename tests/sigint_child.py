"""Child process of ``tests/test_interrupts.py``: Ctrl-C (a real SIGINT) at a given
delay while a large batch is applied, then checks of what the graph holds.

Prints one JSON line: ``outcome`` (``"interrupted"``: KeyboardInterrupt came out
of ``apply``; ``"applied"``: ``apply`` returned), ``state`` (``"before"``,
``"after"`` or ``"neither"``: what the graph equals), ``apply_s`` (the
uninterrupted apply's time, measured on a copy) and ``next_ok`` (whether the
next batches still equal a recomputation).
"""
import copy
import json
import os
import signal
import sys
import threading
import time

import numpy as np
import pandas as pd

import cugraph_stream as cgs


def snapshot(g):
    return {"edges": g.edges(), **{q.name: q.result() for q in g.queries}}


def same(a, b):
    if a.keys() != b.keys():
        return False
    for key in a:
        x, y = a[key], b[key]
        if key.startswith("PageRank"):
            if not np.array_equal(x["vertex"].to_numpy(), y["vertex"].to_numpy()) or \
                    np.abs(x["pagerank"].to_numpy() - y["pagerank"].to_numpy()).sum() > 2e-6:
                return False
        elif not x.equals(y):
            return False
    return True


def recomputed(g):
    fresh = cgs.StreamGraph.from_edgelist(g.edges(), weight="w")
    fresh.add_vertices(g.vertices().to_numpy())
    out = {}
    for q in g.queries:
        kind = type(q)
        source = q.source
        r = fresh.track(kind(mode="recompute") if source is None else kind(source=source, mode="recompute"))
        out[q.name] = r.result()
    return out


def main(seed, fraction):
    rng = np.random.default_rng(seed)
    n, m = 20_000, 60_000
    edges = pd.DataFrame({"source": rng.integers(0, n, m), "destination": rng.integers(0, n, m),
                          "w": rng.integers(1, 10, m).astype(np.float64)})
    g = cgs.StreamGraph.from_edgelist(edges, weight="w")
    g.track(cgs.SSSP(source=0))
    g.track(cgs.WCC())
    g.track(cgs.PageRank(tol=1e-6))
    rows = 30_000
    batch = pd.DataFrame({"source": rng.integers(0, n + 5_000, rows), "destination": rng.integers(0, n + 5_000, rows),
                          "w": rng.integers(1, 10, rows).astype(np.float64),
                          "op": rng.choice(["insert", "delete"], rows)})
    # one-time costs first (the CPU backend's compiled kernels load on first use),
    # so that the timed apply below is what the interrupted one takes
    copy.deepcopy(g).apply(batch, weight="w")
    reference = copy.deepcopy(g)
    before = snapshot(g)
    t0 = time.perf_counter()
    reference.apply(batch, weight="w")
    apply_s = time.perf_counter() - t0
    after = snapshot(reference)
    timer = threading.Timer(fraction * apply_s, os.kill, (os.getpid(), signal.SIGINT))
    outcome = "interrupted"
    try:
        timer.start()
        g.apply(batch, weight="w")
        outcome = "applied"
        time.sleep(apply_s + 0.2)        # a late signal lands here, not in the checks
    except KeyboardInterrupt:
        pass
    timer.cancel()
    now = snapshot(g)
    state = "before" if same(now, before) else "after" if same(now, after) else "neither"
    g.check_consistency()
    next_ok = True
    for step in range(2):
        more = pd.DataFrame({"source": rng.integers(0, n, 500), "destination": rng.integers(0, n, 500),
                             "w": rng.integers(1, 10, 500).astype(np.float64),
                             "op": rng.choice(["insert", "delete"], 500)})
        g.apply(more, weight="w")
        expected = recomputed(g)
        for q in g.queries:
            got, want = q.result(), expected[q.name]
            if q.name.startswith("PageRank"):
                next_ok &= bool(np.abs(got["pagerank"].to_numpy() - want["pagerank"].to_numpy()).sum() <= 2e-6)
            else:
                column = [c for c in got.columns if c not in ("vertex", "predecessor")][0]
                next_ok &= bool(np.array_equal(got[column].to_numpy(), want[column].to_numpy()))
    print(json.dumps({"outcome": outcome, "state": state, "apply_s": apply_s, "next_ok": next_ok}))


if __name__ == "__main__":
    main(int(sys.argv[1]), float(sys.argv[2]))
