"""benchmarks.larger_than_gpu: the scale-27 preset's protocol, run on the CPU at scale 8."""
import json

import numpy as np
import pandas as pd
import pytest

from benchmarks import larger_than_gpu
from benchmarks.certify import ChangeLog, edge_keys
from cugraph_stream.datasets import rmat_pieces


def test_every_snapshot_is_certified_on_the_cpu(tmp_path, capsys):
    path = tmp_path / "larger_than_gpu.json"
    assert larger_than_gpu.main(["--backend", "cpu", "--scale", "8", "--pieces", "4", "--batches", "3",
                                 "--batch-size", "100", "--json", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.count("check PASS") == 4 and "FAIL" not in out
    assert "placement='device' would need about" in out and "bytes per edge" in out
    assert "mean over 3 batches" in out and "4/4 snapshots certified exact" in out
    saved = json.loads(path.read_text())
    assert len(saved["batches"]) == 3 and all(c["passed"] for c in saved["checks"])
    assert saved["checks"][-1]["edges_certified"] == saved["checks"][-1]["edges_engine"]
    assert saved["check_setup"]["edges"] == saved["load"]["edges"]
    for record in saved["batches"]:
        assert record["rows"] == 100 and record["deleted"] == 50
        assert record["sssp_s"] >= 0 and record["pagerank_s"] >= 0


def test_cached_placement_without_checks(capsys):
    assert larger_than_gpu.main(["--backend", "cpu", "--scale", "8", "--pieces", "2", "--batches", "2",
                                 "--batch-size", "50", "--placement", "cached", "--no-check"]) == 0
    out = capsys.readouterr().out
    assert "check PASS" not in out and "certificate setup" not in out and "not checked" in out


def test_a_wrong_snapshot_fails_the_run(monkeypatch, capsys):
    # the log misses one row of every batch: the certificates see another graph than the engine
    record = ChangeLog.record

    def forgetful(self, batch, **columns):
        record(self, {name: column[1:] for name, column in batch.items()}, **columns)

    monkeypatch.setattr(ChangeLog, "record", forgetful)
    assert larger_than_gpu.main(["--backend", "cpu", "--scale", "8", "--pieces", "2", "--batches", "1",
                                 "--batch-size", "100"]) == 1
    assert "check FAIL" in capsys.readouterr().out


def test_batches_delete_present_edges_and_insert_new_keys():
    pieces = rmat_pieces(9, edge_factor=8, pieces=3, seed=2)
    union = pd.concat(list(pieces), ignore_index=True)
    base_keys = set(edge_keys(np, union.src.to_numpy(), union.dst.to_numpy()).tolist())
    log, rng = ChangeLog(), np.random.default_rng(0)
    deleted = set()
    for _ in range(3):
        batch = larger_than_gpu.make_batch(pieces, log, rng, 200, np)
        keys = edge_keys(np, batch["src"], batch["dst"])
        assert len(set(keys.tolist())) == keys.size == 200            # every key once
        deletes = set(keys[batch["op"] == -1].tolist())
        assert len(deletes) == 100 and deletes <= base_keys and not deletes & deleted
        assert (batch["src"] != batch["dst"]).all()
        np.testing.assert_array_equal(batch["weight"], larger_than_gpu.edge_weight(np, batch["src"], batch["dst"]))
        deleted |= deletes
        log.record(batch)


@pytest.mark.gpu
def test_every_snapshot_is_certified_on_the_gpu(capsys):
    pytest.importorskip("cupy")
    from cugraph_stream.backends import available_backends

    if available_backends().get("gpu"):
        pytest.skip(f"GPU backend unavailable: {available_backends()['gpu']}")
    for placement in ("host", "cached"):
        assert larger_than_gpu.main(["--backend", "gpu", "--scale", "12", "--pieces", "8", "--batches", "3",
                                     "--batch-size", "1000", "--placement", placement]) == 0
        out = capsys.readouterr().out
        assert out.count("check PASS") == 4 and "FAIL" not in out and "load: " in out
