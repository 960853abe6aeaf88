"""The cost model of ``mode="auto"``: its estimates, fits and probes on their own, and
the path choice inside real batches (rates injected, so the choices are known),
every result checked against the independent references."""
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import cugraph_stream as cgs
from cugraph_stream.engine.cost_model import HISTORY, PROBE_AGE, CostModel
from reference import ModelGraph, check_changes, check_query, host

CHEAP_INCREMENTAL = {"incremental": (0.0, 1e-9), "recompute": (1.0, 1e-9)}
CHEAP_RECOMPUTE = {"incremental": (1.0, 1e-9), "recompute": (0.0, 1e-9)}


# ------------------------------------------------------------ the model alone
def test_recompute_cost_scales_with_the_graph():
    model = CostModel(rates={"incremental": (0.0, 1.0), "recompute": (0.0, 1.0)})
    model.observe_recompute(work=1000, size=500)
    assert model.recompute_budget(500) == 1000 and model.recompute_budget(1000) == 2000
    assert model.estimate(changed=3, size=1000) == (3.0, 2000.0)      # 1 entry per change before any batch


def test_without_a_recomputation_one_pass_over_the_graph_is_assumed():
    model = CostModel(rates={"incremental": (0.0, 1.0), "recompute": (0.0, 1.0)})
    assert model.recompute_budget(700) == 700.0


def test_incremental_work_per_change_is_a_running_mean():
    model = CostModel(rates=CHEAP_INCREMENTAL)
    model.observe("incremental", seconds=1.0, work=400, changed=4)
    assert model.work_per_change == 100.0
    model.observe("incremental", seconds=1.0, work=0, changed=10)
    assert model.work_per_change == pytest.approx(75.0)
    model.observe("recompute", seconds=1.0, work=10**6, changed=10)      # not an incremental update
    assert model.work_per_change == pytest.approx(75.0)


def test_the_choice_follows_the_estimates():
    model = CostModel(rates={"incremental": (1e-3, 1e-8), "recompute": (1e-3, 1e-8)})
    model.observe_recompute(work=10**6, size=10**6)
    model.observe("incremental", seconds=0.0, work=50, changed=1)        # 50 entries per change
    small, large = model.choose(changed=10, size=10**6), model.choose(changed=10**5, size=10**6)
    assert (small.path, large.path) == ("incremental", "recompute")
    assert small.incremental_s == pytest.approx(1e-3 + 1e-8 * 500)
    assert large.recompute_s == pytest.approx(1e-3 + 1e-8 * 10**6)
    assert "estimated" in small.reason and "ms" in small.reason


def test_rates_are_fitted_from_timed_updates_without_the_first():
    model = CostModel("cpu")
    model.observe_recompute(work=10**6, size=10**6)
    assert model.estimate(changed=1, size=10**6)[1] == pytest.approx(2e-4 + 2e-8 * 10**6)   # the CPU prior
    model.observe("incremental", seconds=60.0, work=100, changed=1)      # compiling kernels: dropped...
    assert model.rates["incremental"].rate() == (0.0, 0.6)                # ...once others come
    for work in (100, 1000, 10000):
        model.observe("incremental", seconds=2e-3 + 1e-7 * work, work=work, changed=1)
    fixed, per_edge = model.rates["incremental"].fitted
    assert fixed == pytest.approx(2e-3) and per_edge == pytest.approx(1e-7)


def test_timings_of_no_work_give_a_fixed_cost_not_a_rate_per_entry():
    """An update that scanned nothing (a BFS batch that changed no level) says what
    an update costs whatever it scans, nothing about each entry: before a fit
    it is a fixed cost, with the prior's rate per entry, not its whole time
    per entry (which made the next update of 180 entries look 170x dearer)."""
    model = CostModel("cpu")
    model.observe_recompute(work=90_000, size=10**6, seconds=0.005)
    model.observe("incremental", seconds=1e-4, work=0, changed=100)
    model.work_per_change = 1.8
    incremental, recompute = model.estimate(changed=100, size=10**6)
    assert incremental == pytest.approx(1e-4 + 2e-8 * 180) and incremental < recompute
    model.observe("incremental", seconds=9e-4, work=200, changed=100)
    model.work_per_change = 2.0
    level = (1e-4 + 9e-4 - 2e-8 * 200) / 2                          # their mean, less the prior's per entry
    assert model.estimate(changed=100, size=10**6)[0] == pytest.approx(min(1e-3, level + 2e-8 * 200))
    model.work_per_change = 0.01                                        # less work than timed: through 0
    assert model.estimate(changed=100, size=10**6)[0] == pytest.approx(1e-3 / 200)


def test_a_cheap_update_of_no_work_that_resets_the_fit_leaves_the_path_cheap():
    """A timing far below the fitted line starts the path's history again (what
    was fitted no longer holds); where it scanned nothing, the next estimates
    are its level, not its time per entry (seen in benchmarks.mode_choice:
    BFS, 100-row batches, CPU, R-MAT 16, where such a reset made auto
    recompute a third of the batches, 2.37x the faster path)."""
    model = CostModel("cpu")
    model.observe_recompute(work=90_000, size=10**6, seconds=0.005)
    for work in (150, 50, 400, 100, 250):
        model.observe("incremental", seconds=2e-4 + 1e-7 * work, work=work, changed=100)
    model.observe("incremental", seconds=2e-5, work=0, changed=100)         # 10x below the line
    assert list(model.rates["incremental"].history) == [(0.0, 2e-5)]
    choice = model.choose(changed=100, size=10**6)
    assert choice.path == "incremental" and choice.incremental_s < 1e-4
    model.observe("incremental", seconds=3e-4, work=300, changed=100)
    assert model.choose(changed=100, size=10**6).path == "incremental"


def test_tracks_computation_times_the_recompute_path():
    model = CostModel("gpu")
    model.observe_recompute(work=1000, size=500, seconds=0.5)
    assert model.estimate(changed=1, size=1000)[1] == pytest.approx(1.0)   # 0.5 ms per entry, twice the graph


def test_only_the_last_updates_are_fitted():
    model = CostModel("cpu")
    for _ in range(HISTORY + 1):
        model.observe("recompute", seconds=1.0, work=100, changed=1)
    for _ in range(HISTORY):
        model.observe("recompute", seconds=2.0, work=100, changed=1)
    assert model.rates["recompute"].fitted == (0.0, pytest.approx(0.02))


def test_one_timing_far_above_the_fit_does_not_switch_paths():
    """A pause of the process in one incremental update would have made the
    recompute path the choice for good (nothing times the incremental path
    again unless a close call probes it): it is held back, and fitted only
    if the next timing of the path is high too."""
    model = CostModel("gpu")
    model.observe_recompute(work=10**6, size=10**6, seconds=0.010)
    for _ in range(4):
        model.observe("incremental", seconds=0.004, work=1000, changed=100)
    model.observe("incremental", seconds=0.100, work=1000, changed=100)    # a pause
    assert model.choose(changed=100, size=10**6).path == "incremental"
    model.observe("incremental", seconds=0.004, work=1000, changed=100)    # normal again: the pause is dropped
    assert all(t < 0.01 for _, t in model.rates["incremental"].history)
    model.observe("incremental", seconds=0.100, work=1000, changed=100)
    model.observe("incremental", seconds=0.100, work=1000, changed=100)    # twice in a row: dearer now
    assert model.choose(changed=100, size=10**6).path == "recompute"
    assert sum(t == 0.100 for _, t in model.rates["incremental"].history) == 2


def test_a_timing_of_more_work_than_ever_is_fitted_however_slow():
    """Small updates fit a line whose slope says little about large ones; an
    update that scanned far more than any before (a deletion that split a
    large component) and took far longer than the line says teaches the slope:
    it is fitted at once, not held back as a pause would be."""
    model = CostModel("gpu")
    model.observe_recompute(work=10**8, size=10**8, seconds=1.0)
    for work, seconds in ((500, 0.001), (1000, 0.0010), (2000, 0.0011), (3000, 0.0012)):
        model.observe("incremental", seconds=seconds, work=work, changed=1)
    assert model.rates["incremental"].fitted[1] == pytest.approx(1e-7)
    model.observe("incremental", seconds=0.050, work=100_000, changed=1)    # 4.6x the line's 10.9 ms
    assert model.rates["incremental"].held is None
    assert (100_000.0, 0.050) in model.rates["incremental"].history
    assert model.rates["incremental"].fitted[1] > 2e-7


def test_a_close_call_probes_the_path_whose_rates_are_stale():
    model = CostModel("cpu")
    model.observe_recompute(work=1000, size=1000, seconds=1.1)
    model.observe("recompute", seconds=1.1, work=1000, changed=1)     # (timed twice: not "timed once")
    for _ in range(3):
        model.observe("incremental", seconds=1.0, work=1000, changed=1)
    choice = model.choose(changed=1, size=1000)
    assert choice.path == "incremental" and not choice.reason.startswith("probe")
    for _ in range(PROBE_AGE + 1):
        model.observe("incremental", seconds=1.0, work=1000, changed=1)
    choice = model.choose(changed=1, size=1000)       # recompute's rates are stale now, and it is close
    assert choice.path == "recompute" and choice.reason.startswith("probe: recompute")
    model.observe("recompute", seconds=1.1, work=1000, changed=1)
    assert model.choose(changed=1, size=1000).path == "incremental"
    # a path far dearer is never probed, however stale
    model.observe_recompute(work=10**6, size=1000, seconds=1000.0)
    for _ in range(PROBE_AGE + 1):
        model.observe("incremental", seconds=1.0, work=1000, changed=1)
    assert model.recompute_budget(1000) == 10**6 and model.choose(changed=1, size=1000).path == "incremental"


def test_a_close_call_probes_a_path_timed_once_at_once():
    """A path's first timing may include first-run costs: on a close call the path is
    timed again without waiting for its rates to go stale."""
    model = CostModel("cpu")
    model.observe_recompute(work=1000, size=1000, seconds=1.1)        # track's: the one timing
    for _ in range(3):
        model.observe("incremental", seconds=1.0, work=1000, changed=1)
    choice = model.choose(changed=1, size=1000)
    assert choice.path == "recompute" and choice.reason.endswith("its rates timed once")
    model.observe("recompute", seconds=1.1, work=1000, changed=1)
    assert model.choose(changed=1, size=1000).reason.startswith("estimated")


def test_pagerank_s_track_only_stands_in_for_its_warm_restart():
    """PageRank's recompute path in auto is a warm restart, not track's computation:
    track's time stands in for the rate, and the path counts as never timed."""
    model = CostModel("cpu")
    model.observe_recompute(work=1000, size=1000, seconds=1.9, stand_in=True)
    assert not model.rates["recompute"].observed()
    assert model.estimate(changed=1, size=1000)[1] == pytest.approx(1.9)
    model.observe("incremental", seconds=1.0, work=1000, changed=1)
    choice = model.choose(changed=1, size=1000)          # (1.9x: within a stand-in's margin)
    assert choice.path == "recompute" and "never timed" in choice.reason
    model.observe("recompute", seconds=0.5, work=800, changed=1)
    assert model.estimate(changed=1, size=1000)[1] == pytest.approx(0.5 / 800 * 1000)
    # a timed path's margin is the usual one: 1.9x is no close call
    timed = CostModel("cpu")
    timed.observe_recompute(work=1000, size=1000, seconds=1.9)
    timed.observe("incremental", seconds=1.0, work=1000, changed=1)
    assert timed.choose(changed=1, size=1000).path == "incremental"


def test_injected_rates_never_probe():
    model = CostModel(rates={"incremental": (1.0, 0.0), "recompute": (1.1, 0.0)})
    model.observe_recompute(work=1, size=1)
    assert [model.choose(changed=1, size=1).path for _ in range(50)] == ["incremental"] * 50


# ----------------------------------------------------------- inside batches
def _graph(backend, rows, directed=True):
    frame = pd.DataFrame(rows, columns=["source", "destination", "weight"])
    return cgs.StreamGraph.from_edgelist(frame, weight="weight", directed=directed, backend=backend)


def _track(g, query, rates):
    query.cost_model = CostModel(rates=rates)
    return g.track(query)


@pytest.mark.parametrize("rates, path", [(CHEAP_INCREMENTAL, "incremental"), (CHEAP_RECOMPUTE, "recompute")])
def test_each_report_says_which_path_ran_and_why(backend, rates, path):
    g = _graph(backend, [(0, 1, 1.0), (1, 2, 1.0)])
    _track(g, cgs.SSSP(source=0), rates)
    report = g.apply(pd.DataFrame({"source": [0], "destination": [2], "weight": [1.0], "op": ["insert"]}))
    (query,) = report.queries
    assert query.path == path and "estimated" in query.path_reason
    assert math.isfinite(query.estimated_incremental_s) and math.isfinite(query.estimated_recompute_s)
    assert report.to_dict()["queries"][0]["path"] == path


@pytest.mark.parametrize("mode", ["recompute", "auto"])
@pytest.mark.parametrize("kind", ["SSSP", "BFS", "WCC", "WidestPath", "PageRank"])
def test_a_batch_that_changes_nothing_updates_nothing_in_any_mode(backend, mode, kind):
    """Re-inserts of the same weight and deletes of absent edges change no edge: every
    query takes the incremental path (nothing to correct, where a recomputation
    would compute the same result again), reads nothing, keeps its result, and
    the cost model learns nothing from it; the next real change takes the mode's path."""
    rows = [(0, 1, 1.0), (1, 2, 2.0), (0, 3, 4.0), (3, 2, 0.5)]
    g = _graph(backend, rows)
    model = ModelGraph(True, "float64")
    model.apply_rows([(u, v, 1, w) for u, v, w in rows])
    query = g.track(cgs.PageRank(tol=1e-9, mode=mode) if kind == "PageRank" else
                    cgs.WCC(mode=mode) if kind == "WCC" else getattr(cgs, kind)(source=0, mode=mode))
    if query.cost_model is not None:
        query.cost_model = CostModel(rates=CHEAP_RECOMPUTE)
    before = host(query.result())
    observed = None if query.cost_model is None else query.cost_model.work_per_change
    report = g.apply(pd.DataFrame({"source": [1, 2, 0], "destination": [2, 0, 3], "weight": [2.0, 1.0, 4.0],
                                   "op": ["insert", "delete", "insert"]}))
    assert (report.unchanged, report.ignored) == (2, 1)
    (qr,) = report.queries
    assert (qr.path, qr.path_reason) == ("incremental", "the batch changed no edge or vertex")
    assert qr.edges_scanned == 0 and qr.invalidated == 0
    pd.testing.assert_frame_equal(host(query.result()), before)
    check_query(query, model)
    if query.cost_model is not None:
        assert query.cost_model.work_per_change == observed
    (qr,) = g.apply(pd.DataFrame({"source": [2], "destination": [4], "weight": [1.0], "op": ["insert"]})).queries
    model.apply_rows([(2, 4, 1, 1.0)])
    assert qr.path == "recompute"           # (the mode's, or the injected rates')
    check_query(query, model)


def test_a_fixed_mode_reports_its_path_without_estimates(backend):
    g = _graph(backend, [(0, 1, 1.0)])
    g.track(cgs.WCC(mode="recompute"))
    (query,) = g.apply(pd.DataFrame({"source": [1], "destination": [2], "weight": [1.0], "op": ["insert"]})).queries
    assert (query.path, query.path_reason) == ("recompute", "mode='recompute'")
    assert math.isnan(query.estimated_recompute_s)
    assert g.last_report.to_dict()["queries"][0]["estimated_recompute_s"] is None


def test_an_incremental_update_that_invalidates_too_much_gives_up(backend):
    """Deleting the first edge of a long path invalidates the whole path: more
    work than a recomputation is said to cost, so it recomputes."""
    n = 200
    g = _graph(backend, [(i, i + 1, 1.0) for i in range(n)])
    query = _track(g, cgs.SSSP(source=0), CHEAP_INCREMENTAL)
    query.cost_model.observe_recompute(work=50, size=2 * n + 1)
    report = g.apply(pd.DataFrame({"source": [0], "destination": [1], "weight": [1.0], "op": ["delete"]}))
    (qr,) = report.queries
    assert qr.path == "recompute" and qr.path_reason.startswith("gave up incremental")
    result = host(query.result())
    assert result["distance"].iloc[1:].eq(np.finfo(np.float64).max).all()
    assert result["predecessor"].iloc[1:].eq(-1).all()
    assert host(query.changes())["vertex"].tolist() == list(range(1, n + 1))


def test_the_model_learns_from_published_reports(backend):
    g = _graph(backend, [(0, 1, 1.0), (1, 2, 1.0)])
    query = g.track(cgs.BFS(source=0))
    assert query.cost_model.recompute_work[1] == 3 + 2          # vertices + edges when track computed
    for i in range(3):
        g.apply(pd.DataFrame({"source": [2 + i], "destination": [3 + i], "weight": [1.0], "op": ["insert"]}))
    rates = query.cost_model.rates
    assert len(rates["recompute"].history) >= 1                   # track's computation, timed
    assert sum(len(rates[path].history) for path in rates) == 1 + 3
    assert query.cost_model.work_per_change is not None or len(rates["incremental"].history) == 0


def test_a_failed_batch_teaches_the_model_nothing(backend):
    g = _graph(backend, [(0, 1, 1.0)])
    query = g.track(cgs.SSSP(source=0))
    with pytest.raises(ValueError):
        g.apply(pd.DataFrame({"source": [0], "destination": [1], "weight": [-1.0], "op": ["insert"]}))
    rates = query.cost_model.rates
    assert (len(rates["incremental"].history), len(rates["recompute"].history)) == (0, 1)   # track's only


OPS = st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11), st.sampled_from([0.0, 1.0, 2.5]),
                         st.sampled_from(["insert", "delete"])), min_size=1, max_size=12)


@settings(max_examples=25, deadline=None)
@given(st.lists(OPS, min_size=1, max_size=6), st.sampled_from([(0.0, 1e-6), (1e-3, 1e-9), (0.0, 0.0)]),
       st.sampled_from([(1e-4, 1e-7), (0.0, 1e-5), (1.0, 0.0)]), st.booleans())
def test_auto_streams_match_the_references_whatever_path_runs(batches, incremental, recompute, directed):
    """Random injected rates make the choice (and the give-ups) flip from batch to
    batch; every tracked query equals a recomputation from scratch after each."""
    rates = {"incremental": incremental, "recompute": recompute}
    model = ModelGraph(directed, "float64")
    g = cgs.StreamGraph(directed=directed, weight_dtype="float64")
    first = pd.DataFrame({"source": [0], "destination": [1], "weight": [1.0], "op": ["insert"]})
    g.apply(first, weight="weight")
    model.apply_rows([(0, 1, 1, 1.0)])
    queries = [_track(g, q, rates) for q in (cgs.SSSP(source=0), cgs.BFS(source=0), cgs.WCC(),
                                             cgs.WidestPath(source=0), cgs.PageRank(tol=1e-9))]
    for rows in batches:
        before = [q.result() for q in queries]
        frame = pd.DataFrame(rows, columns=["source", "destination", "weight", "op"])
        g.apply(frame)
        model.apply_rows([(u, v, 1 if op == "insert" else -1, w) for u, v, w, op in rows])
        for query, old in zip(queries, before):
            check_query(query, model)
            if query.kind != "PageRank":
                check_changes(query, old)


def test_a_query_stuck_recomputing_probes_the_bounded_incremental_path():
    """One misleading incremental timing made recomputing look cheaper; the
    estimates are too far apart for a close-call probe.  Where the incremental
    path is bounded by the give-up, it is probed again every PROBE_AGE updates
    anyway, and its fresh timings bring it back; where it is not (PageRank), it
    is left alone."""
    for bounded in (True, False):
        model = CostModel("gpu")
        model.observe_recompute(work=10**6, size=10**6, seconds=0.010)
        for seconds in (0.001, 0.001, 0.001, 0.300, 0.300):        # twice in a row: fitted
            model.observe("incremental", seconds=seconds, work=1000, changed=10)
        paths = []
        for _ in range(PROBE_AGE + 10):
            choice = model.choose(changed=10, size=10**6, bounded=bounded)
            paths.append(choice.path)
            seconds = 0.010 if choice.path == "recompute" else 0.001
            model.observe(choice.path, seconds=seconds, work=1000 if choice.path == "incremental" else 10**6,
                          changed=10)
        assert paths[0] == "recompute"
        if bounded:      # the probe finds it 300x cheaper than fitted: the fit starts again, and holds
            assert paths[:PROBE_AGE + 1] == ["recompute"] * (PROBE_AGE + 1)
            assert paths[PROBE_AGE + 1:] == ["incremental"] * 9
        else:
            assert paths.count("incremental") == 0


@pytest.mark.parametrize("bounded", [False, True])
def test_a_path_not_fitted_yet_is_probed_whatever_the_estimates(bounded):
    """A path's only timing is its first, which on a GPU may include compiling
    (PageRank: 168.5 ms on a lent H100, where the next batches took 11-17 ms): its rate through
    0 keeps the other path for good.  While its rates are not fitted, the
    path is probed every PROBE_AGE updates whatever the estimates say; the
    fit, without the first timing, brings it back."""
    model = CostModel("gpu")
    model.observe_recompute(work=10**6, size=10**6, seconds=0.010)
    model.observe("recompute", seconds=0.010, work=10**6, changed=10)
    model.observe("incremental", seconds=0.500, work=1000, changed=10)      # compiled: far above the rest
    choices = []
    for _ in range(3 * PROBE_AGE):
        choice = model.choose(changed=10, size=10**6, bounded=bounded)
        choices.append((choice.path, choice.reason.startswith("probe: incremental")))
        seconds = 0.010 if choice.path == "recompute" else 0.004
        model.observe(choice.path, seconds=seconds, work=1000 if choice.path == "incremental" else 10**6,
                      changed=10)
    probes = [i for i, (_, probe) in enumerate(choices) if probe]
    assert probes == [PROBE_AGE + 1, 2 * PROBE_AGE + 3]
    assert choices[probes[-1] + 1:] == [("incremental", False)] * (len(choices) - probes[-1] - 1)


def test_a_recompute_path_timed_once_by_track_is_not_forced():
    """Where incremental updates are far cheaper, the recompute path timed only by
    ``track`` (which runs after the warm-up) is never probed: a forced
    recomputation on a large graph costs more than it could teach."""
    model = CostModel("gpu")
    model.observe_recompute(work=10**6, size=10**6, seconds=0.100)
    paths = []
    for _ in range(4 * PROBE_AGE):
        choice = model.choose(changed=10, size=10**6, bounded=True)
        paths.append(choice.path)
        model.observe(choice.path, seconds=0.001 if choice.path == "incremental" else 0.100,
                      work=1000 if choice.path == "incremental" else 10**6, changed=10)
    assert paths == ["incremental"] * (4 * PROBE_AGE)


def test_an_unfitted_path_found_dear_is_not_probed_again_once_fitted():
    model = CostModel("gpu")
    model.observe_recompute(work=10**6, size=10**6, seconds=0.010)
    model.observe("recompute", seconds=0.010, work=10**6, changed=10)
    model.observe("incremental", seconds=0.500, work=1000, changed=10)
    paths = []
    for _ in range(6 * PROBE_AGE):
        choice = model.choose(changed=10, size=10**6)
        paths.append(choice.path)
        model.observe(choice.path, seconds=0.010 if choice.path == "recompute" else 0.400,
                      work=1000 if choice.path == "incremental" else 10**6, changed=10)
    assert paths.count("incremental") == 2


def test_probes_that_find_the_path_dear_come_less_often():
    model = CostModel("gpu")
    model.observe_recompute(work=10**6, size=10**6, seconds=0.010)
    for _ in range(4):
        model.observe("incremental", seconds=0.050, work=1000, changed=10)      # truly dearer
    probes = []
    for i in range(PROBE_AGE * 7 + 10):
        choice = model.choose(changed=10, size=10**6, bounded=True)
        if choice.path == "incremental":
            probes.append(i)
        model.observe(choice.path, seconds=0.050 if choice.path == "incremental" else 0.010,
                      work=1000 if choice.path == "incremental" else 10**6, changed=10)
    gaps = [b - a for a, b in zip(probes, probes[1:])]
    assert len(probes) == 3 and gaps == [2 * PROBE_AGE + 2, 4 * PROBE_AGE + 2]
