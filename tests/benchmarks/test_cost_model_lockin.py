"""benchmarks.cost_model_lockin: the scenarios run and the installed model does not get stuck."""
from benchmarks import cost_model_lockin as bench


def test_the_installed_model_leaves_no_stream_stuck_recomputing():
    module = bench.load_model(None)
    stuck, mean = bench.lockin(module, streams=40, batches=300, seed=0)
    assert stuck == 0 and mean < 5


def test_comparable_paths_cost_little_over_the_cheaper_one(capsys):
    ratios = bench.comparable(bench.load_model(None), streams=20, batches=300, seed=0)
    assert ratios.size == 20 and ratios.mean() < 1.1
    assert bench.main(["--streams", "4", "--batches", "120"]) == 0
    assert "lockin:" in capsys.readouterr().out


def test_a_first_incremental_update_that_compiled_does_not_keep_the_stream_recomputing(capsys):
    """The unbounded incremental path (PageRank's) whose first timing paid for
    compiling: the installed model comes back to the cheaper path."""
    ratios = bench.compiled(bench.load_model(None), streams=20, batches=300, seed=0)
    assert ratios.size == 20 and ratios.mean() < 1.1
    assert bench.main(["--streams", "4", "--batches", "120"]) == 0
    assert "compiled:" in capsys.readouterr().out


def test_updates_that_scan_nothing_do_not_send_the_stream_recomputing(capsys):
    """A third of the incremental updates scan nothing and cost a fraction of the
    others (BFS's 100-row batches): the installed model stays incremental."""
    ratios = bench.idle(bench.load_model(None), streams=40, batches=300, seed=0)
    assert ratios.size == 40 and ratios.max() < 1.1
    assert bench.main(["--streams", "4", "--batches", "120"]) == 0
    assert "idle:" in capsys.readouterr().out
