"""Cross-checks: on every snapshot, every system's results against every other
system's and against a reference in :mod:`cugraph_stream.verify`'s format.

Values are compared in the common form of :mod:`.systems.base`: SSSP
distances within ``rtol`` (float32 engines against float64 references, same
reachability), BFS distances exactly, WCC as partitions (labels may differ),
PageRank vectors within the sum of the two systems' L1 error bounds.  Engine
systems are also held to their whole result contract (vertex column,
predecessors that are edges giving each vertex its value, a tree, WCC labels
equal to the smallest id) by :func:`cugraph_stream.verify.check_result`.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from cugraph_stream.verify import check_result, compute_reference

#: relative tolerance of SSSP distances between two systems
RTOL = 1e-5


def canonical_labels(labels):
    """Each vertex's component named by the first row of the component."""
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    return first[inverse.reshape(-1)]


def _first(bad, a, b):
    row = int(np.flatnonzero(bad)[0])
    return f"{int(bad.sum())} vertices differ, first at row {row}: {a[row]!r} vs {b[row]!r}"


def compare(kind, a, b, rtol=RTOL):
    """Compare two results in the common form; a message, or None when they agree."""
    key = {"sssp": "distance", "bfs": "distance", "wcc": "labels", "pagerank": "pagerank"}[kind]
    x, y = np.asarray(a[key]), np.asarray(b[key])
    if x.shape != y.shape:
        return f"{key}: {x.shape[0]} rows vs {y.shape[0]}"
    if kind == "sssp":
        reach = np.isfinite(x)
        bad = reach != np.isfinite(y)
        if bad.any():
            return "reachability: " + _first(bad, x, y)
        bad = np.zeros(x.shape, bool)
        bad[reach] = ~np.isclose(x[reach], y[reach], rtol=rtol, atol=0.0)
        return "distance: " + _first(bad, x, y) if bad.any() else None
    if kind == "bfs":
        bad = x != y
        return "distance: " + _first(bad, x, y) if bad.any() else None
    if kind == "wcc":
        cx, cy = canonical_labels(x), canonical_labels(y)
        bad = cx != cy
        return ("components differ: " + _first(bad, cx, cy) + " (first row of the component)"
                if bad.any() else None)
    l1 = float(np.abs(x - y).sum())
    limit = float(a["error"]) + float(b["error"]) + 1e-12
    return None if l1 <= limit else f"pagerank: L1 distance {l1:.3e} > the sum of error bounds {limit:.3e}"


def as_reference(kind, values):
    """A common-form result in :mod:`cugraph_stream.verify`'s reference format."""
    if kind == "wcc":  # verify wants non-negative component numbers
        return {"component": canonical_labels(values["labels"])}
    if kind == "pagerank":
        return {"pagerank": values["pagerank"], "error": values["error"]}
    return {"distance": values["distance"]}


def from_reference(kind, reference):
    """The common form of a :mod:`cugraph_stream.verify` reference."""
    if kind == "wcc":
        return {"labels": reference["component"]}
    if kind == "pagerank":
        return {"pagerank": reference["pagerank"], "error": float(reference["error"])}
    return {"distance": reference["distance"]}


def verify_reference(kind, snapshot, source, alpha, tol):
    """An independent from-scratch reference (SciPy, through cugraph_stream.verify)."""
    return compute_reference(kind, snapshot, source=source if kind in ("sssp", "bfs") else None,
                             alpha=alpha, tol=tol * 1e-3)


def cross_check(kind, values, reference, reference_name, frames, snapshot, source, alpha, tol):
    """All problems found on one snapshot for one query kind.

    Parameters
    ----------
    kind : str
    values : dict
        System name -> result in the common form.
    reference : dict
        Reference in :mod:`cugraph_stream.verify`'s format.
    reference_name : str
        The system that gave ``reference`` (compared with the others only
        once), or a label for an independent reference.
    frames : dict
        System name -> result frame, for the systems held to the whole
        result contract on this snapshot.
    snapshot : cugraph_stream.verify.EdgeSnapshot
    source : int
    alpha, tol : float
        PageRank parameters of the tracked queries.

    Returns
    -------
    list of (tuple of str, str)
        The system(s) at fault (one for a contract problem, two for a
        disagreement) and what is wrong.
    """
    problems = []
    src = source if kind in ("sssp", "bfs") else None
    for name, frame in frames.items():
        problems += [((name,), p) for p in check_result(kind, frame, snapshot, source=src,
                                                        alpha=alpha, tol=tol, reference=reference)]
    parties = dict(values)
    if reference_name not in parties:
        parties[reference_name] = from_reference(kind, reference)
    for (name_a, a), (name_b, b) in combinations(parties.items(), 2):
        message = compare(kind, a, b)
        if message:
            problems.append(((name_a, name_b), message))
    return problems


def describe(problem):
    """One line for a problem record of a run."""
    where = "G0" if problem["batch"] < 0 else f"batch {problem['batch']}"
    return f"{where} {problem['kind']}: {' vs '.join(problem['systems'])}: {problem['message']}"


def perturb(kind, values):
    """A copy of ``values`` with one vertex's result made wrong (tests the checks)."""
    out = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in values.items()}
    if kind in ("sssp", "bfs"):
        d = out["distance"]
        reached = np.flatnonzero((d > 0) & (np.isfinite(d) if kind == "sssp" else d >= 0))
        row = int(reached[0]) if reached.size else 0
        d[row] = (d[row] if reached.size else 0) + (1.5 if kind == "sssp" else 1)
    elif kind == "wcc":
        labels = out["labels"]
        others = np.flatnonzero(labels != labels[0])
        # merge vertex 0 into another component, or split it off when there is one
        labels[0] = labels[others[0]] if others.size else labels.max() + 1
    else:
        out["pagerank"][0] += 0.01
    return out
