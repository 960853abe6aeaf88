"""One StreamGraph shared by threads: changes are serialised, reads see committed states."""
import hashlib
import threading
import time

import numpy as np
import pandas as pd

import cugraph_stream as cgs


def random_batch(rng, low, high, rows):
    return pd.DataFrame({"src": rng.integers(low, high, rows), "dst": rng.integers(low, high, rows),
                         "w": rng.integers(1, 9, rows).astype(np.float64),
                         "op": rng.choice(["insert", "insert", "delete"], rows)})


def digest(frame):
    return hashlib.sha256(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes()).hexdigest()


def test_concurrent_appliers_give_the_serial_result():
    # each thread works on its own vertex range, so any serial order gives the same graph
    rng = np.random.default_rng(0)
    start = random_batch(rng, 0, 4000, 20_000).assign(op="insert")
    batches = {t: [random_batch(np.random.default_rng(10 + t), 1000 * t, 1000 * (t + 1), 3000)
                   for _ in range(6)] for t in range(4)}
    for run in range(3):
        g = cgs.StreamGraph.from_edgelist(start, weight="w")
        paths, components = g.track(cgs.SSSP(source=int(start["src"][0]))), g.track(cgs.WCC())
        errors = []

        def work(t):
            try:
                for batch in batches[t]:
                    g.apply(batch, weight="w")
            except Exception as error:          # noqa: BLE001 - reported below
                errors.append(error)
        threads = [threading.Thread(target=work, args=(t,)) for t in batches]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        g.check_consistency()
        serial = cgs.StreamGraph.from_edgelist(start, weight="w")
        for t in sorted(batches):
            for batch in batches[t]:
                serial.apply(batch, weight="w")
        pd.testing.assert_frame_equal(g.edges(), serial.edges())
        expected = serial.track(cgs.SSSP(source=int(start["src"][0]), mode="recompute")).result()
        assert np.array_equal(paths.result()["distance"].to_numpy(), expected["distance"].to_numpy())
        labels = serial.track(cgs.WCC(mode="recompute")).result()["labels"].to_numpy()
        assert np.array_equal(components.result()["labels"].to_numpy(), labels)


def test_readers_see_only_committed_states():
    rng = np.random.default_rng(1)
    g = cgs.StreamGraph.from_edgelist(random_batch(rng, 0, 3000, 15_000).assign(op="insert"), weight="w")
    paths = g.track(cgs.SSSP(source=0)) if 0 in set(g.vertices()) else g.track(cgs.SSSP(source=int(g.vertices()[0])))
    ranks = g.track(cgs.PageRank(tol=1e-6))
    committed = {digest(paths.result()) + digest(ranks.result())}
    seen, stop, errors = [], threading.Event(), []

    def read():
        try:
            while not stop.is_set():
                with g.lock:                     # two results of one state
                    seen.append(digest(paths.result()) + digest(ranks.result()))
                paths.changes()
                g.edges()
        except Exception as error:               # noqa: BLE001 - reported below
            errors.append(error)
    readers = [threading.Thread(target=read) for _ in range(3)]
    for reader in readers:
        reader.start()
    for step in range(15):
        batch = random_batch(rng, 0, 3000, 2000)
        with g.lock:                             # the state and its digest together
            committed.add(digest(paths.result()) + digest(ranks.result()))
        read_before = len(seen)
        g.apply(batch, weight="w")               # the readers ask for results meanwhile
        deadline = time.monotonic() + 10
        while len(seen) == read_before and time.monotonic() < deadline and not errors:
            time.sleep(0.001)                    # (the lock is not fair: let a reader in)
    with g.lock:
        committed.add(digest(paths.result()) + digest(ranks.result()))
    stop.set()
    for reader in readers:
        reader.join()
    assert errors == [] and len(seen) >= 15
    assert set(seen) <= committed
