"""benchmarks/batch_gaps.py: every condition runs before its share of the batches, in turn,
and the summary reads the batches' times and reports."""
import json

import pytest

from benchmarks import batch_gaps


def test_summarise_takes_medians_per_condition_and_the_ratio_to_back_to_back():
    rows = [{"condition": c, "seconds": s,
             "phases": {"validate": s / 4, "store": s / 4, "Q:compute": s / 4, "Q:correct": s / 8, "cache": s / 8},
             "gc_s": gc_s}
            for c, s, gc_s in (("back-to-back", 0.002, 0.0), ("back-to-back", 0.004, 0.0),
                               ("idle-50ms", 0.006, 0.002), ("idle-50ms", 0.010, 0.0))]
    out = batch_gaps.summarise(rows)
    assert list(out) == ["back-to-back", "idle-50ms"]
    assert out["back-to-back"]["median_ms"] == pytest.approx(3.0)
    assert out["idle-50ms"]["mean_ms"] == pytest.approx(8.0)
    assert out["idle-50ms"]["vs_back_to_back"] == pytest.approx(8.0 / 3.0)
    assert out["idle-50ms"]["validate_ms"] == pytest.approx(2.0)
    assert out["idle-50ms"]["reduce_ms"] == 0.0
    assert out["idle-50ms"]["queries_ms"] == pytest.approx(3.0)
    assert out["idle-50ms"]["other_ms"] == pytest.approx(1.0)
    assert (out["back-to-back"]["gc_batches"], out["idle-50ms"]["gc_batches"]) == (0, 1)
    assert "| idle-50ms | 2 | 8.000 | 8.000 | 2.67 |" in batch_gaps.table(out)


def test_a_cpu_run_times_each_condition_in_turn(tmp_path, monkeypatch, capsys):
    slept = []
    monkeypatch.setattr(batch_gaps.time, "sleep", slept.append)
    spun = []
    monkeypatch.setattr(batch_gaps, "spin", spun.append)
    path = tmp_path / "gaps.json"
    argv = ["--backend", "cpu", "--scale", "10", "--rows", "4", "--per-condition", "3", "--gaps", "1,20",
            "--host-mib", "1", "--out", str(path)]
    assert batch_gaps.main(argv) == 0
    figures = json.loads(path.read_text())
    names = ["back-to-back", "idle-1ms", "idle-20ms", "busy-host-20ms", "host-pass"]
    assert [r["condition"] for r in figures["batches"]] == names * 3
    assert slept == [0.001, 0.02] * 3 and spun == [0.02] * 3
    assert list(figures["summary"]) == names
    assert all(e["batches"] == 3 and e["median_ms"] > 0 for e in figures["summary"].values())
    assert all(r["phases"]["store"] >= 0 for r in figures["batches"])
    out = capsys.readouterr().out
    assert "| host-pass | 3 |" in out and "device-pass" not in out


def test_bad_arguments_are_refused(capsys):
    assert batch_gaps.main(["--backend", "cpu", "--queries", "wcc"]) == 2
    assert "--queries" in capsys.readouterr().err
    for argv in (["--gaps", "0,5"], ["--gaps", "x"], ["--per-condition", "0"]):
        with pytest.raises(SystemExit):
            batch_gaps.parse_args(argv)


@pytest.mark.gpu
def test_a_gpu_run_adds_the_device_pass(tmp_path):
    pytest.importorskip("cupy")
    path = tmp_path / "gaps.json"
    argv = ["--scale", "10", "--rows", "4", "--per-condition", "2", "--gaps", "1", "--host-mib", "1",
            "--device-mib", "1", "--out", str(path)]
    assert batch_gaps.main(argv) == 0
    summary = json.loads(path.read_text())["summary"]
    assert list(summary) == ["back-to-back", "idle-1ms", "busy-host-1ms", "host-pass", "device-pass"]
    assert all(e["batches"] == 2 for e in summary.values())
