"""benchmarks.store_bytes: runs on the CPU at a small scale; its parts add up to what the graph holds."""
import json

import pytest

from benchmarks import store_bytes


@pytest.mark.parametrize("placement", ["device", "cached"])
def test_parts_add_up_to_the_graphs_bytes(tmp_path, capsys, placement):
    path = tmp_path / "store_bytes.json"
    assert store_bytes.main(["--scale", "9", "--batches", "2", "--batch-size", "100",
                             "--placement", placement, "--json", str(path)]) == 0
    out = capsys.readouterr().out
    assert "edges/s" in out and "phases: " in out and "bytes per edge" in out
    saved = json.loads(path.read_text())
    assert saved["load_phases_s"]["store"] > 0
    for moment in ("after_load", "after_stream"):
        figures = saved[moment]
        parts = sum(value for name, value in figures.items() if name not in
                    ("edges", "bytes_per_edge", "device_bytes_per_edge", "host_bytes_per_edge")
                    and not name.endswith("slots per arc"))
        assert parts == pytest.approx(figures["bytes_per_edge"])
        assert figures["device_bytes_per_edge"] == 0 and figures["host_bytes_per_edge"] == figures["bytes_per_edge"]
        assert 1 <= figures["out slots per arc"] < 3
        assert 1 <= figures["out laid-out slots per arc"] <= figures["out slots per arc"]
