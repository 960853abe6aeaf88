"""``python -m benchmarks.stream`` end to end on a tiny workload, and its cross-checks."""
import json
import os

import numpy as np
import pytest

from benchmarks.stream import cli
from benchmarks.stream.crosscheck import compare, cross_check, perturb
from benchmarks.stream.presets import PRESETS, preset_runs
from benchmarks.stream.systems import NetworKitSystem
from benchmarks.stream.systems.engine import placement_unsupported

HAVE_NETWORKIT = NetworKitSystem.unavailable_reason() is None
CPU_SYSTEMS = "cpu,cpu-recompute,scipy" + (",networkit" if HAVE_NETWORKIT else "")
TINY = ["--scale", "8", "--edge-factor", "8", "--batches", "2", "--batch-size", "40",
        "--systems", CPU_SYSTEMS, "--no-progress"]
PNG = b"\x89PNG\r\n\x1a\n"


def _run(tmp_path, *extra):
    return cli.main([*TINY, "--out", str(tmp_path), *extra])


def test_tiny_run_writes_json_markdown_and_plots(tmp_path, capsys):
    assert _run(tmp_path, "--label", "tiny") == 0
    stem = tmp_path / "stream-tiny"
    with open(f"{stem}.json") as f:
        data = json.load(f)
    assert data["ok"] is True
    run = data["run"]
    assert run["problems"] == [] and run["checks"] == 3 * 4          # G0 + 2 batches, 4 queries
    assert list(run["systems"]) == CPU_SYSTEMS.split(",")
    assert data["versions"]["numpy"] == np.__version__ and data["machine"]["cpu_count"] >= 1
    for row in run["batches"]:
        cpu = row["systems"]["cpu"]
        assert cpu["total_s"] > 0 and "store" in cpu["phases"] and row["peak_rss_bytes"] > 0
        assert cpu["queries"]["sssp"]["edges_read"] is not None
        assert cpu["host_bytes"] == 0               # placement "device" reads nothing from host memory
        assert row["systems"]["scipy"]["queries"]["wcc"]["phases"]["csr"] >= 0
    summary = {(e["query"], e["system"]): e for e in data["summary"]["queries"]}
    assert summary[("sssp", "cpu")]["speedup"]["scipy"] > 0
    table = (tmp_path / "stream-tiny.md").read_text()
    assert "| sssp | cpu |" in table and "all agree" in table
    assert table in capsys.readouterr().out
    for suffix in ("-time.png", "-bytes.png"):
        assert (tmp_path / f"stream-tiny{suffix}").read_bytes()[:8] == PNG


@pytest.mark.skipif(not HAVE_NETWORKIT, reason="networkit is not installed")
def test_warmup_batches_are_applied_but_not_recorded(tmp_path, capsys):
    assert _run(tmp_path, "--label", "warm", "--systems", "cpu,scipy", "--warmup-batches", "2") == 0
    with open(tmp_path / "stream-warm.json") as f:
        run = json.load(f)["run"]
    assert [row["batch"] for row in run["batches"]] == [0, 1]
    # the checks compare every system with SciPy on snapshots that include the warm-up
    # batches: a system that skipped them would disagree
    assert run["problems"] == [] and run["checks"] == 3 * 4 and run["config"]["warmup_batches"] == 2
    assert "warm-up batch 1 applied (untimed)" in capsys.readouterr().out


def test_networkit_distances_and_components_agree(tmp_path):
    assert cli.main([*TINY[:-3], "--systems", "networkit,scipy", "--delete-fraction", "0.8",
                     "--no-progress", "--out", str(tmp_path), "--label", "nk"]) == 0


def test_a_corrupted_result_fails_the_run_after_writing_it(tmp_path, capsys):
    assert _run(tmp_path, "--label", "bad", "--inject-fault", "cpu:bfs") == 1
    with open(tmp_path / "stream-bad.json") as f:
        data = json.load(f)
    assert data["ok"] is False
    problems = data["run"]["problems"]
    assert problems and all(p["batch"] == 0 and p["kind"] == "bfs" and "cpu" in p["systems"]
                            for p in problems)
    assert "MISMATCH" in (tmp_path / "stream-bad.md").read_text()
    assert "MISMATCH" in capsys.readouterr().out


@pytest.mark.parametrize("kind", ["sssp", "bfs", "wcc", "pagerank"])
def test_compare_accepts_equal_results_and_catches_a_perturbed_one(kind):
    rng = np.random.default_rng(1)
    n = 50
    if kind == "sssp":
        d = rng.uniform(1, 10, n)
        d[0], d[7] = 0.0, np.inf
        values = {"distance": d}
        close = {"distance": d * (1 + 1e-7)}
    elif kind == "bfs":
        d = rng.integers(0, 5, n)
        d[7] = -1
        values = {"distance": d}
        close = {"distance": d.copy()}
    elif kind == "wcc":
        labels = rng.integers(0, 5, n)
        values = {"labels": labels}
        close = {"labels": labels * 10 + 3}          # the same partition, other names
    else:
        x = rng.uniform(size=n)
        x /= x.sum()
        values = {"pagerank": x, "error": 1e-6}
        close = {"pagerank": x + 1e-8 * np.sign(rng.normal(size=n)), "error": 1e-6}
    assert compare(kind, values, close) is None
    assert compare(kind, values, perturb(kind, values)) is not None


def test_cross_check_names_the_system_at_fault():
    d = np.array([0.0, 1.0, 2.0, np.inf])
    good = {"distance": d}
    found = cross_check("sssp", {"a": good, "b": good, "c": perturb("sssp", good)},
                        {"distance": d}, "a", {}, None, 0, 0.85, 1e-6)
    assert sorted(tuple(names) for names, _ in found) == [("a", "c"), ("b", "c")]


def test_oom_preset_needs_a_gpu_for_its_placements(capsys):
    reason = placement_unsupported("host")
    if reason is None:
        pytest.skip("a GPU is here: the oom preset can run")
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--preset", "oom", "--no-progress"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "gpu-host" in err and "need a GPU" in err
    assert "not available" in reason


def test_presets_and_overrides():
    args = cli.parse_args(["--preset", "h100", "--part", "gpu", "--scale", "12", "--batches", "3",
                           "--queries", "sssp,wcc", "--systems", "gpu,pylibcugraph"])
    (run,) = args.runs
    assert (run["label"], run["scale"], run["batches"], run["batch_size"]) == ("h100-gpu", 12, 3, 10_000)
    assert run["queries"] == ["sssp", "wcc"] and run["systems"] == ["gpu", "pylibcugraph"]
    assert [r["label"] for r in preset_runs("h100")] == ["h100-gpu", "h100-cpu"]
    assert preset_runs("cpu-small", sweep=True)[0]["scale"] == PRESETS["cpu-small"]["sweep_config"]["scale"]
    oom = preset_runs("oom")[0]
    assert oom["scale"] == 24 and oom["cache_budget_fraction"] == 1 / 8
    with pytest.raises(SystemExit):
        cli.parse_args(["--preset", "cpu-small", "--part", "gpu"])
    with pytest.raises(SystemExit):
        cli.parse_args(["--systems", "cpu,nope"])


def test_too_many_updates_for_the_graph_is_a_usage_error(tmp_path, capsys):
    assert _run(tmp_path, "--batch-size", "100000") == 2
    assert "exceeds" in capsys.readouterr().err


def test_delete_ratio_sweep_writes_one_plot_and_table(tmp_path):
    assert _run(tmp_path, "--sweep", "delete-ratio", "--sweep-values", "0,1", "--sweep-batches", "1",
                "--label", "tiny") == 0
    stem = tmp_path / "sweep-delete-ratio-tiny"
    assert (tmp_path / "sweep-delete-ratio-tiny.png").read_bytes()[:8] == PNG
    table = (tmp_path / "sweep-delete-ratio-tiny.md").read_text()
    assert "| 0% | sssp |" in table and "| 100% | all queries |" in table
    with open(f"{stem}.json") as f:
        data = json.load(f)
    assert data["ok"] and [p["value"] for p in data["sweep"]["points"]] == [0, 1]
    assert not os.path.exists(tmp_path / "stream-tiny.json")


def test_older_benchmark_scripts_still_run(tmp_path):
    from benchmarks import cpu_vs_scipy, gpu_vs_pylibcugraph

    out = tmp_path / "cvs.json"
    assert cpu_vs_scipy.main(["--scale", "8", "--batches", "1", "--batch-size", "20",
                              "--ingest-rows", "50", "--no-progress", "--out", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["ok"] is True and data["config"]["mode"] == "auto"          # what users get by default
    sssp = next(r for r in data["summary"] if r["query"] == "sssp")
    assert len(data["runs"][0]["back_to_back_s"]) == 1 and sssp["speedup_back_to_back"] > 0
    assert "The same batches applied back to back" in data["markdown"]
    assert cpu_vs_scipy.main(["--scale", "8", "--batches", "1", "--batch-size", "20", "--ingest-rows", "50",
                              "--no-progress", "--mode", "incremental", "--queries", "pagerank",
                              "--out", str(out)]) == 0
    assert json.loads(out.read_text())["config"]["mode"] == "incremental"
    with pytest.raises(SystemExit) as exit_info:
        gpu_vs_pylibcugraph.main(["--help"])
    assert exit_info.value.code == 0


def test_placement_lines_compare_cached_with_host():
    from benchmarks.stream.report import placement_lines

    def total(name, mean, host_bytes, edges):
        return {"system": name, "mean_ms": mean, "median_ms": mean, "host_bytes": host_bytes,
                "edges_read": edges, "speedup": {"pylibcugraph": 2.0} if name == "gpu-cached" else {}}

    summary = {"totals": [total("gpu-host", 200.0, 1000, 50), total("gpu-cached", 80.0, 250, 50),
                          total("gpu-host-recompute", 700.0, 4000, 200)]}
    text = "\n".join(placement_lines(summary))
    assert "host bytes, `gpu-cached` / `gpu-host`: 25%" in text
    assert "0.40 (means)" in text and "2.0x" in text
    assert "25.0% (75% fewer)" in text
    assert placement_lines({"totals": [total("gpu-host", 1.0, 1, 1)]}) == []
