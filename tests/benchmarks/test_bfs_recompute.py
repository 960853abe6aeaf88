"""benchmarks.bfs_recompute runs tiny on the CPU: both engines and SciPy agree (timings are never asserted)."""
from benchmarks import bfs_recompute


def test_runs_and_prints_the_ratios(capsys):
    for extra in ([], ["--undirected"]):
        assert bfs_recompute.main(["--scale", "8", "--batches", "2", "--batch-size", "50"] + extra) == 0
        out = capsys.readouterr().out
        assert "MISMATCH" not in out
        assert "scipy/levels" in out and "push/levels" in out
