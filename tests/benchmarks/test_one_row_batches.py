"""benchmarks.one_row_batches runs and prints both medians (timings are never asserted)."""
from benchmarks import one_row_batches


def test_prints_read_and_apply_medians(capsys):
    one_row_batches.main(["--batches", "30"])
    out = capsys.readouterr().out
    assert "read_rows of a new one-row frame: median" in out
    assert "apply of a one-row batch (SSSP tracked): median" in out
