"""benchmarks.cache_pays: runs on the CPU at a small scale, prints both phases' tables and writes its JSON."""
import json

from benchmarks import cache_pays


def test_runs_on_the_cpu(tmp_path, capsys):
    path = tmp_path / "cache_pays.json"
    assert cache_pays.main(["--backend", "cpu", "--scale", "10", "--batch-size", "200", "--batches", "3",
                            "--warmup", "1", "--json", str(path)]) == 0
    out = capsys.readouterr().out
    for phase, _ in cache_pays.PHASES:
        assert f"\n{phase}: ms per batch" in out
    assert "results agree across placements" in out and "worst cached / host" in out
    saved = json.loads(path.read_text())
    for phase, _ in cache_pays.PHASES:
        summary = saved["phases"][phase]["summary"]
        assert set(summary) == set(cache_pays.PLACEMENTS)
        assert summary["host"]["ratio_to_host"] == 1.0
        assert sum(summary["cached-full"]["decisions"].values()) == summary["cached-full"]["decisions"]["full"] == 3
        assert sum(summary["cached"]["decisions"].values()) == 3
