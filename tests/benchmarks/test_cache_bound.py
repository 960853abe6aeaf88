"""benchmarks.cache_bound: the knapsack bound against brute force, and a small run on the CPU."""
import itertools
import json

import numpy as np
import pytest

from benchmarks import cache_bound
from cugraph_stream.backends import get_backend
from cugraph_stream.engine.cache_selection import ListValues


def _brute_force(parts, budget):
    """The best share of whole lists that fit (the bound may take the last one in part: >=)."""
    lists = [(float(d) * float(c), float(c)) for part in parts for d, c in zip(part.density, part.cost)]
    total = sum(w for w, _ in lists)
    best = 0.0
    for chosen in itertools.product((0, 1), repeat=len(lists)):
        cost = sum(c for (_, c), x in zip(lists, chosen) if x)
        if cost <= budget:
            best = max(best, sum(w for (w, _), x in zip(lists, chosen) if x))
    return best / total


@pytest.mark.parametrize("seed", range(20))
def test_the_bound_is_at_least_any_selection_of_whole_lists(seed):
    rng = np.random.default_rng(seed)
    parts = [ListValues(np.arange(k), rng.integers(1, 50, k), rng.random(k).astype(np.float32))
             for k in rng.integers(1, 5, 2)]
    budget = int(rng.integers(0, 120))
    bound = cache_bound.best_saved_share(get_backend("cpu"), parts, budget)
    assert _brute_force(parts, budget) <= bound + 1e-6
    assert 0.0 <= bound <= 1.0


def test_runs_on_the_cpu(tmp_path, capsys):
    path = tmp_path / "bound.json"
    assert cache_bound.main(["--backend", "cpu", "--scale", "10", "--batch-size", "200", "--batches", "4",
                             "--id-bytes", "2,1", "--budget-factors", "1,4", "--json", str(path)]) == 0
    out = capsys.readouterr().out
    assert "best host share" in out and "of host's bytes" in out
    saved = json.loads(path.read_text())
    rows = {(r["id_bytes"], r["budget_factor"]): r["best_host_share"] for r in saved["bounds"]}
    assert set(rows) == {(3, 1.0), (3, 4.0), (2, 1.0), (2, 4.0), (1, 1.0), (1, 4.0)}
    assert all(0.0 <= share <= 1.0 for share in rows.values())
    for ids in (3, 2, 1):                       # more budget saves more
        assert rows[ids, 4.0] <= rows[ids, 1.0] + 1e-12
    for factor in (1.0, 4.0):                   # smaller ids save more
        assert rows[1, factor] <= rows[2, factor] + 1e-9 and rows[2, factor] <= rows[3, factor] + 1e-9
