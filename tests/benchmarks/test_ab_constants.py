"""``python -m benchmarks.ab_constants`` on the CPU engine: arms parsed and put
back, batches alternating between them, the figures and the recomputation check."""
import json

import pytest

from benchmarks import ab_constants
from cugraph_stream import graph

TINY = ["--backend", "cpu", "--scale", "9", "--edge-factor", "8", "--queries", "sssp,wcc"]
ARMS = ["--arm", "guess=cugraph_stream.graph:SPECULATIVE_ROWS=16",
        "--arm", "lookup first=cugraph_stream.graph:SPECULATIVE_ROWS=0"]


@pytest.mark.parametrize("text, message", [
    ("no setting", "NAME=module"),
    ("x=cugraph_stream.graph", "module:ATTRIBUTE=VALUE"),
    ("x=cugraph_stream.graph:NO_SUCH_NAME=1", "no attribute"),
    ("x=cugraph_stream.graph:SPECULATIVE_ROWS=sixteen", "not a Python literal"),
])
def test_a_malformed_arm_is_refused(text, message):
    with pytest.raises(ValueError, match=message):
        ab_constants.Arm.parse(text)


def test_one_arm_is_not_a_comparison(capsys):
    with pytest.raises(SystemExit):
        ab_constants.parse_args(TINY + ARMS[:2])
    assert "two arms or more" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        ab_constants.parse_args(TINY + ARMS + ["--batches", "3", "--block", "2"])
    assert "without a timed batch" in capsys.readouterr().err


def test_more_rows_than_the_graph_has_edges_cannot_run(capsys):
    assert ab_constants.main(TINY + ARMS + ["--rows", "5000", "--batches", "4"]) == 2
    assert "cannot run" in capsys.readouterr().out


@pytest.mark.parametrize("rows, batches", [(2, 60), (50, 6)])
def test_batches_alternate_between_the_arms_and_the_constants_come_back(tmp_path, capsys, rows, batches):
    out = tmp_path / "ab.json"
    assert ab_constants.main(TINY + ARMS + ["--rows", str(rows), "--batches", str(batches), "--warmup", "2",
                                            "--out", str(out)]) == 0
    assert graph.SPECULATIVE_ROWS == 16
    figures = json.loads(out.read_text())
    assert figures["config"]["arms"] == {"guess": ["cugraph_stream.graph:SPECULATIVE_ROWS=16"],
                                         "lookup first": ["cugraph_stream.graph:SPECULATIVE_ROWS=0"]}
    for kind in ("sssp", "wcc"):
        guess, lookup = figures["queries"][kind]["arms"]
        assert figures["queries"][kind]["checked"]
        assert guess["batches"] == lookup["batches"] == batches // 2
        assert guess["mean_vs_first"] == 1.0 and lookup["mean_vs_first"] > 0
        if rows == 2:       # rows naming known vertices wait once less when guessed (one row: engine/single_row.py)
            assert guess["syncs"] < lookup["syncs"]
    assert "results equal to a recomputation" in capsys.readouterr().out


def test_a_result_unlike_the_recomputation_fails_the_run(monkeypatch, capsys):
    answers = iter(range(100))
    monkeypatch.setattr(ab_constants, "values_of", lambda query: [next(answers)])
    assert ab_constants.main(TINY + ARMS + ["--batches", "4", "--warmup", "0"]) == 1
    assert "RESULTS DIFFER" in capsys.readouterr().out
