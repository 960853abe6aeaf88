"""``python -m benchmarks.ab_revisions`` on the CPU engine: a revision unpacked and
imported beside this tree, both applying every batch, the figures and the checks."""
import json
import subprocess
from pathlib import Path

import pytest

from benchmarks import ab_revisions

REPOSITORY = Path(ab_revisions.__file__).resolve().parents[1]
TINY = ["--backend", "cpu", "--scale", "9", "--edge-factor", "8"]


def _git_history():
    try:
        subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPOSITORY, capture_output=True, check=True)
        return True
    except (FileNotFoundError, subprocess.CalledProcessError):
        return False


pytestmark = pytest.mark.skipif(not _git_history(), reason="needs the git repository of this tree")


def test_the_base_revision_is_imported_under_its_own_name(tmp_path):
    ab_revisions.extract_base("HEAD", tmp_path)
    base = ab_revisions.import_base(tmp_path)
    assert base.__name__ == "cgs_base" and Path(base.__file__).parent == tmp_path / "cgs_base"
    assert (tmp_path / "kernels" / "relax.cu").exists()
    ops = base.backends.get_backend("cpu")
    assert type(ops).__module__ == "cgs_base.backends.cpu"         # its own backend, not this tree's
    import cugraph_stream

    assert base.StreamGraph is not cugraph_stream.StreamGraph


def test_a_revision_naming_its_backends_absolutely_is_rewritten(tmp_path):
    # 3ccfd98 (2026-11-28) named cugraph_stream.backends.cpu and .gpu in backends/__init__.py
    ab_revisions.extract_base("3ccfd98", tmp_path)
    text = (tmp_path / "cgs_base" / "backends" / "__init__.py").read_text()
    assert '"cgs_base.backends.cpu"' in text and '"cugraph_stream.' not in text
    assert type(ab_revisions.import_base(tmp_path).backends.get_backend("cpu")).__module__ == \
        "cgs_base.backends.cpu"


def test_a_base_tree_unpacked_beforehand_is_copied(tmp_path, capsys):
    tree = tmp_path / "3ccfd98"
    tree.mkdir()
    archive = subprocess.run(["git", "archive", "3ccfd98", "cugraph_stream", "kernels"], cwd=REPOSITORY,
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    out = tmp_path / "ab.json"
    assert ab_revisions.main(TINY + ["--base-tree", str(tree), "--rows", "1", "--batches", "6", "--warmup", "1",
                                     "--out", str(out)]) == 0
    base, this = json.loads(out.read_text())["queries"]["sssp"]["sides"]
    assert base["side"] == "base (3ccfd98)" and base["batches"] == this["batches"] == 6
    assert ab_revisions.main(TINY + ["--base-tree", str(tmp_path / "nothing"), "--batches", "4"]) == 2
    assert "holds no cugraph_stream/" in capsys.readouterr().out


def test_an_unknown_revision_cannot_run(capsys):
    assert ab_revisions.main(TINY + ["--base", "no-such-revision-here", "--batches", "4"]) == 2
    assert "cannot run: git archive no-such-revision-here" in capsys.readouterr().out


@pytest.mark.parametrize("rows, batches", [(1, 40), (50, 6)])
def test_both_sides_apply_every_batch_with_equal_results(tmp_path, capsys, rows, batches):
    out = tmp_path / "ab.json"
    assert ab_revisions.main(TINY + ["--base", "HEAD", "--queries", "sssp,wcc", "--rows", str(rows),
                                     "--batches", str(batches), "--warmup", "2", "--out", str(out)]) == 0
    figures = json.loads(out.read_text())
    for kind in ("sssp", "wcc"):
        base, this = figures["queries"][kind]["sides"]
        assert figures["queries"][kind]["checked"]
        assert base["side"] == "base (HEAD)" and this["side"] == "this tree"
        assert base["batches"] == this["batches"] == batches
        assert base["syncs"] > 0 and this["syncs"] > 0
    assert "this tree / base: p50" in capsys.readouterr().out


def test_pagerank_sides_agree_within_their_error_bounds(tmp_path):
    out = tmp_path / "ab.json"
    assert ab_revisions.main(TINY + ["--base", "HEAD", "--queries", "pagerank", "--rows", "20", "--batches", "4",
                                     "--warmup", "1", "--out", str(out)]) == 0
    figures = json.loads(out.read_text())["queries"]["pagerank"]
    assert figures["checked"] and [side["batches"] for side in figures["sides"]] == [4, 4]


def test_results_unlike_the_base_fail_the_run(monkeypatch, capsys):
    values_of = ab_revisions.values_of

    def shifted(query):            # the base's values one more: a base that computes otherwise
        values = values_of(query)
        return values + 1 if type(query).__module__.startswith("cgs_base") else values
    monkeypatch.setattr(ab_revisions, "values_of", shifted)
    assert ab_revisions.main(TINY + ["--base", "HEAD", "--rows", "1", "--batches", "4", "--warmup", "0"]) == 1
    assert "RESULTS DIFFER" in capsys.readouterr().out


def test_other_work_runs_before_every_apply_of_either_side(monkeypatch, tmp_path):
    from benchmarks.common import OtherWork
    runs = []
    run = OtherWork.run
    monkeypatch.setattr(OtherWork, "run", lambda self: runs.append(self.seconds) or run(self))
    out = tmp_path / "ab.json"
    assert ab_revisions.main(TINY + ["--base", "HEAD", "--rows", "1", "--batches", "6", "--warmup", "2",
                                     "--between-ms", "0.5", "--out", str(out)]) == 0
    assert runs == [0.0005] * 2 * (6 + 2)         # each side's apply, warm-up batches too
    assert json.loads(out.read_text())["config"]["between_ms"] == 0.5


def test_other_work_runs_for_its_time_and_reads_its_heap():
    from time import perf_counter

    from benchmarks.common import OtherWork
    work = OtherWork(ms=5, mb=1)
    assert len(work.heap) == 3_600
    start = perf_counter()
    assert work.run() > 0 and perf_counter() - start >= 0.005
    idle = OtherWork()
    assert idle.heap == [] and idle.run() == 0
