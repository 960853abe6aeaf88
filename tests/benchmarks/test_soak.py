"""``python -m benchmarks.soak`` on a tiny graph: checks run and pass, memory is sampled,
the graph comes back to its starting vertices, and a failed check fails the run."""
import json

import numpy as np
import pytest

from benchmarks import soak

TINY = ["--vertices", "300", "--batches", "60", "--batch-size", "50", "--cycle-batches", "20",
        "--check-every", "20", "--sample-every", "10", "--no-progress"]


def _load(tmp_path):
    with open(tmp_path / "soak-cpu-device.json") as f:
        return json.load(f)


def test_tiny_soak_checks_pass_and_memory_is_sampled(tmp_path, capsys):
    assert soak.main([*TINY, "--out", str(tmp_path)]) == 0
    data = _load(tmp_path)
    assert data["ok"] is True
    checks = data["checks"]
    assert [c["batch"] for c in checks] == [0, 20, 40, 60]
    assert all(c["passed"] for c in checks)
    assert {"graph", "consistency", "sssp/recompute", "wcc/recompute", "pagerank/recompute",
            "sssp/scipy", "wcc/scipy"} <= set(checks[0]["checks"])
    samples = data["samples"]
    assert [s["batch"] for s in samples] == list(range(0, 61, 10))
    assert all(s["memory_bytes"] > 0 and s["rss_bytes"] > 0 for s in samples)
    assert all(s["wall_ms"]["p99"] >= s["wall_ms"]["p50"] > 0 for s in samples[1:])
    # every phase ran: vertices were added, removed, edges updated, rows collapsed
    counts = data["counts"]
    assert counts["new_vertices"] == counts["removed_vertices"] > 0
    assert min(counts["weight_updated"], counts["cancelled"], counts["ignored"]) > 0
    shrink_ends = [e for e in data["phase_ends"] if e["phase"] == "shrink"]
    assert [e["batch"] for e in shrink_ends] == [20, 40, 60]
    assert all(e["vertices"] == samples[0]["vertices"] for e in shrink_ends)
    growth = [e for e in data["phase_ends"] if e["phase"] == "growth"]
    assert all(e["vertices"] > samples[0]["vertices"] for e in growth)
    summary = data["summary"]
    assert summary["checks_passed"] == 4 and summary["checks_failed"] == 0
    assert summary["shrink_growth"]["first_batch"] == 20 and summary["shrink_growth"]["last_batch"] == 60
    out = capsys.readouterr().out
    assert "checks: 4 run, 4 passed, 0 failed" in out
    assert "growth between the first and last shrinkage ends" in out
    assert "| 60 | shrink | OK |" in (tmp_path / "soak-cpu-device.md").read_text()


def test_a_failed_check_fails_the_run_after_writing_it(tmp_path, monkeypatch, capsys):
    def wrong_edges(stream):
        frame = original(stream)
        frame.loc[0, "weight"] += np.float32(1)     # the model says one weight differs
        return frame

    original = soak.SoakStream.edge_frame
    monkeypatch.setattr(soak.SoakStream, "edge_frame", wrong_edges)
    assert soak.main([*TINY, "--batches", "20", "--out", str(tmp_path)]) == 1
    data = _load(tmp_path)
    assert data["ok"] is False and data["summary"]["checks_failed"] == 2
    assert all("weight differs" in c["problems"]["graph"] for c in data["checks"])
    assert "FAILED" in capsys.readouterr().err


@pytest.mark.parametrize("placement", ["host", "cached"])
def test_other_placements_run_on_the_cpu(tmp_path, placement):
    assert soak.main([*TINY, "--batches", "20", "--placement", placement, "--out", str(tmp_path)]) == 0
    with open(tmp_path / f"soak-cpu-{placement}.json") as f:
        assert json.load(f)["config"]["placement"] == placement


def test_compact_is_called_at_shrinkage_ends_when_it_exists(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(soak.cgs.StreamGraph, "compact", lambda g: calls.append(g.number_of_vertices()),
                        raising=False)
    assert soak.main([*TINY, "--batches", "40", "--out", str(tmp_path)]) == 0
    ends = [e for e in _load(tmp_path)["phase_ends"] if e["phase"] == "shrink"]
    assert len(calls) == len(ends) == 2
    assert all(e["compact"]["before"]["memory_bytes"] == e["compact"]["after"]["memory_bytes"] > 0
               for e in ends)


def test_an_engine_error_stops_the_run_and_is_recorded(tmp_path, monkeypatch):
    def broken(g, step):
        raise RuntimeError("engine broke")

    monkeypatch.setattr(soak, "apply_step", broken)
    assert soak.main([*TINY, "--out", str(tmp_path)]) == 1
    data = _load(tmp_path)
    assert data["ok"] is False and data["error"]["batch"] == 0
    assert data["summary"]["error"] == "RuntimeError: engine broke"
    assert "stopped at batch 0" in (tmp_path / "soak-cpu-device.md").read_text()
