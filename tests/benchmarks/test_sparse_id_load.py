"""benchmarks.sparse_id_load at a small scale on the CPU."""
import numpy as np

from benchmarks import sparse_id_load


def test_sorted_unique_matches_np_unique():
    values = np.random.default_rng(0).integers(-2**63, 2**63 - 1, 1000, dtype=np.int64, endpoint=True)
    values = np.concatenate((values, values[:100], [-2**63, 2**63 - 1, -2**63]))
    assert np.array_equal(sparse_id_load.sorted_unique(values), np.unique(values))


def test_a_small_run_loads_every_id(capsys):
    assert sparse_id_load.main(["--scale", "8", "--repeats", "1"]) == 0
    out = capsys.readouterr().out
    assert "round 0" in out and "from_edgelist (cpu)" in out
