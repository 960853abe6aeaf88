"""benchmarks.mode_choice runs the three modes on one stream, cross-checks them and
prints the auto/best ratios (timings are never asserted)."""
import json

from benchmarks import mode_choice


def test_prints_a_row_per_point_and_writes_the_records(capsys, tmp_path):
    out_file = tmp_path / "modes.json"
    status = mode_choice.main(["--scale", "8", "--sizes", "1,50", "--batches", "3", "--warmup", "1",
                               "--queries", "sssp,pagerank", "--json", str(out_file)])
    assert status == 0                                 # every batch's three results agreed
    out = capsys.readouterr().out
    assert "auto/best" in out and out.count("\nsssp ") + out.count("\npagerank ") == 4
    records = json.loads(out_file.read_text())["records"]
    assert [(r["kind"], r["batch_size"]) for r in records] == [("sssp", 1), ("sssp", 50), ("pagerank", 1),
                                                               ("pagerank", 50)]
    assert all(sum(r["auto_paths"].values()) == r["measured_batches"] == 3 for r in records)
    for r in records:       # every measured batch of auto has its path's reason counted
        assert sum(r["auto_reasons"].values()) == 3
        assert all(r["auto_reasons"].get(f"{p}: {k}", 0) <= r["auto_paths"][p]
                   for p in r["auto_paths"] for k in ("estimates", "probe", "gave up"))
    # PageRank's auto recomputes by a warm restart: timed too, and counted among the paths auto is held to
    assert [sorted(r["ms"]) for r in records] == [["auto", "incremental", "recompute"]] * 2 + [
        ["auto", "auto-recompute", "incremental", "recompute"]] * 2
    for r in records[2:]:
        best = min(r["ms"][m] for m in ("incremental", "recompute", "auto-recompute"))
        assert abs(r["auto_over_best"] - r["ms"]["auto"] / best) < 1e-9


def test_large_batches_measure_what_the_graph_can_draw(capsys):
    assert mode_choice.main(["--scale", "6", "--sizes", "400", "--batches", "5", "--queries", "wcc"]) == 0
    assert "wcc" in capsys.readouterr().out
