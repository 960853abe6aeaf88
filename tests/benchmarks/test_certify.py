"""benchmarks.certify: the streamed certificates pass for the engine's results on small graphs
after batches, and fail when a distance, a predecessor, a rank or the edge set is wrong."""
import dataclasses

import numpy as np
import pandas as pd
import pytest

import cugraph_stream as cgs
from benchmarks.certify import (ChangeLog, certify_pagerank, certify_snapshot, certify_sssp, certify_vertices,
                                dense_column, edge_keys, summarize_base)
from cugraph_stream.datasets import edge_weight, rmat_pieces

SCALE = 8
ALPHA, TOL = 0.85, 1e-6


def _batch(rng, pieces, log, rows):
    """Half deletes of present base edges, half inserts (new edges, re-inserts of base
    edges, edges naming a vertex id the base lacks), weights from edge_weight."""
    union = pd.concat(list(pieces), ignore_index=True).drop_duplicates(["src", "dst"])
    changed, present = log.lookup(edge_keys(np, union.src.to_numpy(), union.dst.to_numpy()))
    alive = union[~changed | present]
    deletes = alive.sample(rows // 2, random_state=rng)
    n = pieces.num_vertex_ids
    src = rng.integers(0, n, rows // 2 - 2)
    dst = rng.integers(0, n, rows // 2 - 2)
    unused = np.setdiff1d(np.arange(n), np.concatenate((union.src, union.dst)))
    src = np.concatenate((src, [alive.src.iloc[0], unused[0] if unused.size else 1]))
    dst = np.concatenate((dst, [alive.dst.iloc[0], 0]))               # a re-insert, a new vertex
    keep = src != dst
    src, dst = src[keep], dst[keep]
    frame = pd.DataFrame({"src": np.concatenate((deletes.src.to_numpy(), src)),
                          "dst": np.concatenate((deletes.dst.to_numpy(), dst)),
                          "op": np.concatenate((np.full(len(deletes), -1, np.int8), np.ones(src.size, np.int8)))})
    frame["weight"] = edge_weight(np, frame.src.to_numpy(), frame.dst.to_numpy())
    return frame


def _snapshot(g, sssp, pagerank, n):
    """The engine's results as dense arrays over the vertex ids."""
    result = sssp.result()
    dist, _ = dense_column(result, "distance", n, np, np.inf)
    pred, vertices = dense_column(result, "predecessor", n, np, -1)
    ranks, _ = dense_column(pagerank.result(), "pagerank", n, np, 0.0)
    return dist, pred, ranks, vertices


@pytest.fixture(scope="module")
def stream():
    """R-MAT pieces, the engine after each of three batches, and the certificates' inputs."""
    pieces = rmat_pieces(SCALE, edge_factor=8, pieces=4, seed=3)
    g = cgs.StreamGraph.from_edgelist(pd.concat(list(pieces), ignore_index=True), source="src",
                                      destination="dst", weight="weight")
    sssp = g.track(cgs.SSSP(source=0))
    pagerank = g.track(cgs.PageRank(alpha=ALPHA, tol=TOL, weighted=False))
    log = ChangeLog()
    rng = np.random.default_rng(0)
    snapshots = [(_snapshot(g, sssp, pagerank, pieces.num_vertex_ids), g.number_of_edges(),
                  g.number_of_vertices())]
    logs = [_copy(log)]
    for _ in range(3):
        batch = _batch(rng, pieces, log, 60)
        g.apply(batch, source="src", destination="dst", weight="weight", op="op")
        log.record(batch)
        snapshots.append((_snapshot(g, sssp, pagerank, pieces.num_vertex_ids), g.number_of_edges(),
                          g.number_of_vertices()))
        logs.append(_copy(log))
    return pieces, snapshots, logs


def _copy(log):
    copy = ChangeLog()
    copy.__dict__.update({k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in log.__dict__.items()})
    return copy


def test_the_engines_results_pass_at_every_snapshot(stream):
    pieces, snapshots, logs = stream
    base = summarize_base(pieces, range_rows=300)          # several hash partitions
    assert base.ranges > 1
    for ((dist, pred, ranks, vertices), edges, num_vertices), log in zip(snapshots, logs):
        sssp, pagerank = certify_snapshot(pieces, log, base=base, sssp=(0, dist, pred),
                                          pagerank=(ranks, ALPHA, TOL))
        assert sssp.passed, sssp.summary()
        assert pagerank.passed, pagerank.summary()
        assert pagerank.edges == edges and pagerank.vertices == num_vertices
        assert pagerank.error_bound <= (1 + ALPHA) / (1 - ALPHA) * TOL * 1.01
        assert certify_vertices(base, log, vertices) == (num_vertices, 0, 0)
    assert (logs[-1].in_base >= 0).all()               # every changed edge's base membership learnt
    assert 0 < (logs[-1].in_base == 1).sum() < len(logs[-1])
    assert len(logs[-1].inserted_vertices) and snapshots[-1][2] > snapshots[0][2]   # a new vertex


def test_the_wrappers_agree_with_the_single_pass(stream):
    pieces, snapshots, logs = stream
    (dist, pred, ranks, _), edges, _ = snapshots[-1]
    assert certify_sssp(pieces, _copy(logs[-1]), 0, dist, pred).passed
    certificate = certify_pagerank(pieces, _copy(logs[-1]), ranks, ALPHA, tol=TOL)    # its own base summary
    assert certificate.passed and certificate.edges == edges


def _last(stream):
    pieces, snapshots, logs = stream
    (dist, pred, ranks, _), _, _ = snapshots[-1]
    return pieces, dist.copy(), pred.copy(), ranks.copy(), _copy(logs[-1])


def test_a_perturbed_distance_fails(stream):
    pieces, dist, pred, _, log = _last(stream)
    reached = np.flatnonzero(np.isfinite(dist) & (dist > 0))
    for v, change in ((reached[3], -1.0), (reached[5], +1.0)):
        wrong = dist.copy()
        wrong[v] += change
        certificate = certify_sssp(pieces, _copy(log), 0, wrong, pred)
        assert not certificate.passed
    lower = dist.copy()
    lower[reached[3]] -= 1.0          # shorter than possible: its predecessor edge is no longer tight
    certificate = certify_sssp(pieces, _copy(log), 0, lower, pred)
    assert certificate.violations["predecessor_not_tight"] >= 1
    assert certificate.first["predecessor_not_tight"] == reached[3]
    with pytest.raises(AssertionError, match=f"SSSP NOT exact: .*first vertex {reached[3]}"):
        certificate.raise_for_failure()
    unreached = dist.copy()
    unreached[reached[7]] = np.finfo(np.float32).max               # a reached vertex marked unreachable
    assert certify_sssp(pieces, _copy(log), 0, unreached, pred).violations["relaxation"] >= 1
    source = dist.copy()
    source[0] = 1.0
    assert certify_sssp(pieces, _copy(log), 0, source, pred).violations["source"] == 1


def test_a_perturbed_predecessor_fails(stream):
    pieces, dist, pred, _, log = _last(stream)
    v = int(np.flatnonzero(pred >= 0)[4])
    for wrong_pred in (-1, int(pred[v]) + 1 if pred[v] + 1 != v else int(pred[v]) + 2):
        wrong = pred.copy()
        wrong[v] = wrong_pred
        certificate = certify_sssp(pieces, _copy(log), 0, dist, wrong)
        assert not certificate.passed
        assert certificate.violations["predecessor_missing"] + certificate.violations["predecessor_not_tight"] >= 1


def test_a_perturbed_rank_fails(stream):
    pieces, _, _, ranks, log = _last(stream)
    base = summarize_base(pieces)
    assert certify_pagerank(pieces, _copy(log), ranks, ALPHA, tol=TOL, base=base).passed
    present = np.flatnonzero(ranks > 0)
    wrong = ranks.copy()
    wrong[present[0]] += 1e-5
    wrong[present[1]] -= 1e-5                          # the same sum, 2e-5 apart in L1
    certificate = certify_pagerank(pieces, _copy(log), wrong, ALPHA, tol=TOL, base=base)
    assert not certificate.passed and certificate.residual_l1 > certificate.threshold
    with pytest.raises(AssertionError, match="PageRank NOT within tol"):
        certificate.raise_for_failure()
    stray = ranks.copy()
    stray[np.flatnonzero(ranks == 0)[0]] = 1e-5        # rank on an id that is no vertex
    assert not certify_pagerank(pieces, _copy(log), stray, ALPHA, tol=TOL, base=base).passed


class _Edited:
    """A sequence of pieces with edits: ``drop`` keys from every piece, ``add`` (piece, frame)."""

    def __init__(self, pieces, drop=(), add=None):
        self.pieces, self.drop, self.add = pieces, np.asarray(drop, dtype=np.int64), add
        self.num_vertex_ids = pieces.num_vertex_ids

    def __len__(self):
        return len(self.pieces)

    def __getitem__(self, i):
        frame = self.pieces[i]
        keys = edge_keys(np, frame.src.to_numpy(), frame.dst.to_numpy())
        frame = frame[~np.isin(keys, self.drop)]
        if self.add is not None and self.add[0] == i:
            frame = pd.concat([self.add[1], frame], ignore_index=True)     # unsorted, repeats inside
        return frame


def test_an_edge_dropped_from_the_pieces_fails(stream):
    pieces, dist, pred, ranks, log = _last(stream)
    # the predecessor edge of a reached vertex, untouched by the batches
    for v in np.flatnonzero(pred >= 0):
        key = int(edge_keys(np, pred[v:v + 1], np.array([v]))[0])
        if not log.lookup([key])[0][0]:
            break
    dropped = _Edited(pieces, drop=[key])
    sssp, pagerank = certify_snapshot(dropped, _copy(log), sssp=(0, dist, pred), pagerank=(ranks, ALPHA, TOL))
    assert not sssp.passed and sssp.violations["predecessor_missing"] >= 1
    assert not pagerank.passed


def test_repeats_across_and_within_pieces_are_counted_once(stream):
    pieces, dist, pred, ranks, log = _last(stream)
    # piece 2 also holds piece 0's first 40 rows, twice and out of order: the same edge set
    copies = pieces[0].iloc[:40]
    repeated = _Edited(pieces, add=(2, pd.concat([copies, copies]).iloc[::-1]))
    base = summarize_base(repeated)
    sssp, pagerank = certify_snapshot(repeated, _copy(log), base=base, sssp=(0, dist, pred),
                                      pagerank=(ranks, ALPHA, TOL))
    assert sssp.passed and pagerank.passed
    # counting every copy (no repeated edges known) double counts and is caught
    naive = dataclasses.replace(base, repeated_keys=base.repeated_keys[:0], extra_copies=base.extra_copies[:0])
    _, pagerank = certify_snapshot(repeated, _copy(log), base=naive, pagerank=(ranks, ALPHA, TOL))
    assert not pagerank.passed
    # so are out-degrees that count copies
    inflated = dataclasses.replace(base, out_degree=base.out_degree + (base.out_degree > 0))
    _, pagerank = certify_snapshot(repeated, _copy(log), base=inflated, pagerank=(ranks, ALPHA, TOL))
    assert not pagerank.passed


def test_change_log_applies_rows_in_order():
    log = ChangeLog()
    log.record(pd.DataFrame({"src": [1, 1, 3], "dst": [2, 2, 4], "weight": [2.0, 2.0, 7.0],
                             "op": ["insert", "delete", "INSERT "]}))
    log.record({"src": np.array([1]), "dst": np.array([2]), "weight": np.array([5.0]), "op": np.array([1])})
    changed, present = log.lookup(edge_keys(np, np.array([1, 3, 5]), np.array([2, 4, 6])))
    assert changed.tolist() == [True, True, False] and present.tolist() == [True, True, False]
    assert log.weight.tolist() == [5.0, 7.0] and log.in_base.tolist() == [-1, -1]
    assert log.batches == 2 and log.rows == 4 and log.inserted_vertices.tolist() == [1, 2, 3, 4]
    with pytest.raises(ValueError, match="op"):
        log.record({"src": [1], "dst": [2], "weight": [1.0], "op": ["upsert"]})


@pytest.mark.gpu
def test_cupy_certificates_agree_with_numpys(stream):
    cupy = pytest.importorskip("cupy")
    pieces, snapshots, logs = stream
    (dist, pred, ranks, _), edges, _ = snapshots[-1]
    base = summarize_base(pieces, cupy, range_rows=300)
    on_device = certify_snapshot(pieces, _copy(logs[-1]), cupy, base=base,
                                 sssp=(0, cupy.asarray(dist), cupy.asarray(pred)),
                                 pagerank=(cupy.asarray(ranks), ALPHA, TOL))
    on_host = certify_snapshot(pieces, _copy(logs[-1]), base=summarize_base(pieces), sssp=(0, dist, pred),
                               pagerank=(ranks, ALPHA, TOL))
    assert on_device[0].passed and on_device[1].passed and on_device[1].edges == edges
    assert on_device[0].violations == on_host[0].violations and on_device[0].reached == on_host[0].reached
    assert on_device[1].residual_l1 == pytest.approx(on_host[1].residual_l1, rel=1e-6, abs=1e-12)
    wrong = cupy.asarray(dist)
    wrong[int(np.flatnonzero(np.isfinite(dist) & (dist > 0))[2])] -= 1
    assert not certify_sssp(pieces, _copy(logs[-1]), 0, wrong, cupy.asarray(pred), xp=cupy).passed
