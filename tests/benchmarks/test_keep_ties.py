"""benchmarks.keep_ties runs every level setting on both queries and finds them agreeing
(timings are never asserted)."""
from benchmarks import keep_ties


def test_prints_a_row_per_query_and_level(capsys):
    assert keep_ties.main(["--scale", "8", "--batches", "3", "--batch-size", "200", "--levels", "0,3"]) == 0
    out = capsys.readouterr().out
    assert out.count("\nbfs ") == 2 and out.count("\nsssp, whole weights") == 2 and "MISMATCH" not in out
