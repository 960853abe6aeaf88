"""benchmarks/launch_mechanisms.py: refuses cleanly without a GPU; on one, both mechanisms
leave what the host-driven way leaves (the replay's values, the loop's step count)."""
import json

import pytest

from benchmarks import launch_mechanisms


def test_without_cupy_or_a_gpu_it_says_so_and_exits_2(monkeypatch, capsys):
    import builtins
    real_import = builtins.__import__

    def no_cupy(name, *args, **kwargs):
        if name == "cupy":
            raise ImportError("no CuPy here")
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", no_cupy)
    assert launch_mechanisms.main(["--repeat", "1"]) == 2
    assert "needs CuPy and a GPU" in capsys.readouterr().out


def test_counts_must_be_positive_and_gaps_not_negative():
    for argv in (["--calls", "0"], ["--steps", "-1"], ["--repeat", "0"], ["--gaps", "-1"], ["--gaps", "a"],
                 ["--gap-repeat", "0"]):
        with pytest.raises(SystemExit):
            launch_mechanisms.parse_args(argv)
    assert launch_mechanisms.parse_args(["--gaps", "1,20.5"]).gaps == [1.0, 20.5]


def test_runs_after_a_gap_alternate_and_sleep_before_each(monkeypatch):
    events = []
    monkeypatch.setattr(launch_mechanisms.time, "sleep", lambda s: events.append(("sleep", s)))
    runs = {"a": lambda: events.append("a"), "b": lambda: events.append("b")}
    out = launch_mechanisms.median_after_gaps(runs, [0.0, 20.0], 2)
    assert events == ["a", "b", "a", "b"] + [("sleep", 0.02), "a", ("sleep", 0.02), "b"] * 2
    assert sorted(out) == [0.0, 20.0] and sorted(out[20.0]) == ["a", "b"]
    assert all(us >= 0 for runs in out.values() for us in runs.values())


@pytest.mark.gpu
def test_both_mechanisms_run_and_agree_with_the_host_driven_way(tmp_path):
    pytest.importorskip("cupy")
    path = tmp_path / "launch.json"
    assert launch_mechanisms.main(["--calls", "7", "--steps", "5", "--repeat", "10", "--gaps", "1",
                                   "--gap-repeat", "3", "--out", str(path)]) == 0
    figures = json.loads(path.read_text())
    assert figures["calls"]["calls"] == 7 and figures["calls"]["replayed_us"] > 0
    assert [row["gap_ms"] for row in figures["calls"]["after_gaps"]] == [0.0, 1.0]
    assert all(row["python_us"] > 0 and row["replayed_us"] > 0 for row in figures["calls"]["after_gaps"])
    pytest.importorskip("cuda.bindings")
    assert figures["loop"]["steps"] == 5 and figures["loop"]["while_node_us"] > 0
