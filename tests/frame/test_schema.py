"""The remembered edge schema: cuGraph's column names, weights read by default,
weight dtypes that follow the input, and the pre-0.2 names still read."""
import warnings

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import cugraph_stream as cgs
from cugraph_stream.frame.schema import EdgeSchema, weight_dtype_of


def _edges(**columns):
    base = {"source": [0, 1], "destination": [1, 2], "weight": [5.0, 6.0]}
    base.update(columns)
    return pd.DataFrame(base)


def test_cugraph_names_are_the_defaults():
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no FutureWarning with the new names
        g = cgs.StreamGraph.from_edgelist(_edges(), edge_attr="weight")
        g.apply(pd.DataFrame({"source": [2], "destination": [0], "weight": [7.0], "op": ["insert"]}))
    assert g.schema == EdgeSchema("source", "destination", "weight", recorded=True)
    assert g.edges().values.tolist() == [[0, 1, 5.0], [1, 2, 6.0], [2, 0, 7.0]]


def test_weight_is_remembered_so_an_insert_keeps_its_weight():
    # the issue: apply(batch) without weight= overwrote 5.0 with 1.0
    g = cgs.StreamGraph.from_edgelist(_edges(), weight="weight")
    report = g.apply(pd.DataFrame({"source": [0], "destination": [1], "weight": [9.0], "op": ["insert"]}))
    assert report.weight_updated == 1 and report.ignored_columns == []
    assert g.edges()["weight"].tolist() == [9.0, 6.0]


def test_explicit_columns_override_the_schema_for_one_call():
    g = cgs.StreamGraph.from_edgelist(_edges(), weight="weight")
    batch = pd.DataFrame({"a": [2], "b": [3], "w": [0.25], "op": [1]})
    g.apply(batch, source="a", destination="b", edge_attr="w")
    assert g.edges()["weight"].tolist() == [5.0, 6.0, 0.25]
    assert g.schema.source == "source"              # the schema is unchanged
    with pytest.raises(ValueError, match="column 'source' not found"):
        g.apply(batch)


def test_weighted_graph_refuses_inserts_without_weights_unless_given_a_default():
    g = cgs.StreamGraph.from_edgelist(_edges(), weight="weight")
    before = g.edges()
    inserts = pd.DataFrame({"source": [2, 0], "destination": [0, 1], "op": ["delete", "insert"]})
    with pytest.raises(ValueError, match=r"column 'weight' not found, but row 1 inserts an edge"):
        g.apply(inserts)
    with pytest.raises(ValueError, match=r"column 'weight' not found"):
        g.validate(inserts)
    pd.testing.assert_frame_equal(g.edges(), before)
    g.apply(inserts, default_weight=2.5)
    assert g.edges()["weight"].tolist() == [2.5, 6.0]
    g.apply(pd.DataFrame({"source": [0], "destination": [1], "op": ["delete"]}))    # deletes need none
    assert g.number_of_edges() == 1


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "heavy", True])
def test_default_weight_must_be_a_finite_number(bad):
    g = cgs.StreamGraph.from_edgelist(_edges(), weight="weight")
    with pytest.raises(ValueError, match="default_weight"):
        g.apply(pd.DataFrame({"source": [2], "destination": [0], "op": [1]}), default_weight=bad)


def test_negative_default_weight_is_refused_while_sssp_is_tracked():
    g = cgs.StreamGraph.from_edgelist(_edges(), weight="weight")
    g.track(cgs.SSSP(source=0))
    batch = pd.DataFrame({"source": [2], "destination": [0], "op": [1]})
    with pytest.raises(ValueError, match="default_weight is -1.0, but SSSP"):
        g.apply(batch, default_weight=-1.0)
    g.apply(pd.DataFrame({"source": [2], "destination": [0], "op": [-1]}), default_weight=-1.0)   # no insert


def test_unweighted_graph_lists_the_weight_column_it_ignores():
    g = cgs.StreamGraph.from_edgelist(_edges())          # weights only when asked for, as in cuGraph
    assert not g.schema.weighted and g.weight_dtype == np.float32
    assert g.last_report.ignored_columns == ["weight"]
    report = g.apply(pd.DataFrame({"source": [2], "destination": [0], "weight": [9.0], "op": [1]}))
    assert report.ignored_columns == ["weight"]
    assert g.edges()["weight"].tolist() == [1.0, 1.0, 1.0]
    g.apply(pd.DataFrame({"source": [3], "destination": [0], "op": [1]}), default_weight=4.0)
    assert g.edges()["weight"].tolist() == [1.0, 1.0, 1.0, 4.0]


def test_weight_and_edge_attr_must_agree():
    with pytest.raises(ValueError, match="name different weight columns"):
        cgs.StreamGraph.from_edgelist(_edges(w=[1.0, 2.0]), weight="weight", edge_attr="w")
    g = cgs.StreamGraph.from_edgelist(_edges(), weight="weight", edge_attr="weight")
    assert g.schema.weight == "weight"


@pytest.mark.parametrize("fmt", ["pandas", "arrow", "dict"])
@pytest.mark.parametrize("dtype, expected", [("float32", "float32"), ("float64", "float64"),
                                             ("int64", "float64"), ("int32", "float64"),
                                             ("uint8", "float64"), ("float16", "float32")])
def test_weight_dtype_follows_the_input(fmt, dtype, expected):
    frame = _edges(weight=np.array([2 ** 53, 3], dtype=np.int64).astype(dtype)
                   if dtype == "int64" else np.array([1, 3]).astype(dtype))
    table = (frame if fmt == "pandas" else pa.Table.from_pandas(frame, preserve_index=False)
             if fmt == "arrow" else {c: frame[c].to_numpy() for c in frame.columns})
    g = cgs.StreamGraph.from_edgelist(table, edge_attr="weight")
    assert g.weight_dtype == np.dtype(expected)
    assert g.edges()["weight"].tolist() == [float(x) for x in frame["weight"]]     # exact, 2**53 too
    forced = cgs.StreamGraph.from_edgelist(table, edge_attr="weight", weight_dtype="float32")
    assert forced.weight_dtype == np.float32


def test_float64_distances_are_exact():
    # the issue: float64 weights became float32, so float64 distances were not exact
    w = [0.1, 0.2, 0.30000000000000004]
    g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"source": [0, 1, 2], "destination": [1, 2, 3], "weight": w}),
                                      edge_attr="weight")
    paths = g.track(cgs.SSSP(source=0))
    assert paths.result()["distance"].tolist() == [0.0, 0.1, 0.1 + 0.2, 0.1 + 0.2 + 0.30000000000000004]


def test_an_empty_graph_takes_its_first_batchs_dtype_and_columns():
    g = cgs.StreamGraph()
    g.apply(pd.DataFrame({"a": [0], "b": [1], "w": np.array([0.1]), "op": [1]}), source="a", destination="b",
            weight="w")
    assert g.weight_dtype == np.float64 and g.schema == EdgeSchema("a", "b", "w", recorded=True)
    assert g.edges()["w"].tolist() == [0.1]
    fixed = cgs.StreamGraph(weight_dtype="float32")
    fixed.apply(pd.DataFrame({"source": [0], "destination": [1], "weight": np.array([0.1]), "op": [1]}),
                weight="weight")
    assert fixed.weight_dtype == np.float32


def test_a_failed_first_batch_leaves_an_empty_graph_as_it_was():
    g = cgs.StreamGraph()
    with pytest.raises(ValueError, match="column 'w' holds a null weight at row 1"):
        g.apply(pd.DataFrame({"source": [0, 1], "destination": [1, 2], "w": [0.5, np.nan], "op": [1, 1]}),
                weight="w")
    assert g.weight_dtype == np.float32 and not g.schema.recorded and g.number_of_edges() == 0


def test_a_ctrl_c_during_the_first_batchs_commit_still_finds_its_schema_recorded(monkeypatch):
    """A Ctrl-C that arrives as the transaction commits is delivered right after it:
    the batch is in, so its columns must be recorded too (they are, inside the
    transaction), or the next batch would record its own."""
    import signal

    from cugraph_stream.engine.journal import Journal

    commit = Journal.commit

    def interrupted_commit(journal):
        commit(journal)
        signal.raise_signal(signal.SIGINT)                  # held back until the transaction is over

    g = cgs.StreamGraph()
    monkeypatch.setattr(Journal, "commit", interrupted_commit)
    with pytest.raises(KeyboardInterrupt):
        g.apply(pd.DataFrame({"a": [0, 1], "b": [1, 2], "w": [0.5, 2.0], "op": [1, 1]}),
                source="a", destination="b", weight="w")
    monkeypatch.setattr(Journal, "commit", commit)
    assert g.number_of_edges() == 2 and g.schema == EdgeSchema("a", "b", "w", recorded=True)


def test_a_first_batch_failing_at_any_operator_leaves_an_empty_graph_as_it_was():
    from cugraph_stream.backends import get_backend
    from cugraph_stream.backends.faults import FaultInjector

    batch = pd.DataFrame({"a": [0, 1], "b": [1, 2], "w": [0.5, 2.0], "op": [1, 1]})
    for at in range(1000):
        ops = get_backend("cpu")
        g = cgs.StreamGraph(backend=ops)
        with FaultInjector(ops, at=at, error=MemoryError("injected")) as fault:
            try:
                g.apply(batch, source="a", destination="b", weight="w")
            except MemoryError:
                pass
        if not fault.fired:                 # past the last operator: the batch went through
            assert g.number_of_edges() == 2 and g.weight_dtype == np.float64 and at > 3
            break
        assert (g.number_of_edges(), g.number_of_vertices(), g.weight_dtype) == (0, 0, np.float32), at
        assert not g.schema.recorded, at
        g.apply(pd.DataFrame({"source": [5], "destination": [6], "op": [1]}))       # its own columns now
        assert g.schema == EdgeSchema("source", "destination", None, recorded=True), at


def test_legacy_names_are_read_with_a_future_warning():
    edges = pd.DataFrame({"src": [0, 1], "dst": [1, 2]})
    with pytest.warns(FutureWarning) as record:
        g = cgs.StreamGraph.from_edgelist(edges)
    assert ["pass source='src'" in str(w.message) for w in record] == [True, False]
    assert "pass destination='dst'" in str(record[1].message)
    assert record[0].filename == __file__            # pointed at the caller's line
    assert g.schema == EdgeSchema("src", "dst", None, recorded=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # recorded: later batches read src/dst quietly
        g.apply(pd.DataFrame({"src": [2], "dst": [0], "op": ["insert"]}))
    assert g.edges().columns.tolist() == ["src", "dst", "weight"]


def test_missing_default_columns_are_named():
    with pytest.raises(ValueError, match=r"column 'source' not found; the table has columns \['a', 'b'\]"):
        cgs.StreamGraph.from_edgelist(pd.DataFrame({"a": [0], "b": [1]}))


def test_schema_survives_a_checkpoint(tmp_path):
    g = cgs.StreamGraph.from_edgelist(pd.DataFrame({"u": [0], "v": [1], "cost": np.array([0.5])}),
                                      source="u", destination="v", edge_attr="cost")
    h = cgs.StreamGraph.load(g.save(tmp_path / "ckpt"))
    assert h.schema == g.schema and h.weight_dtype == np.float64
    h.apply(pd.DataFrame({"u": [1], "v": [2], "cost": [0.25], "op": [1]}))
    assert h.edges().values.tolist() == [[0, 1, 0.5], [1, 2, 0.25]]


def test_schema_from_dict_round_trip_and_legacy_checkpoints():
    schema = EdgeSchema(("a", "b"), "d", "w", recorded=True)
    assert EdgeSchema.from_dict(schema.to_dict()) == schema
    assert EdgeSchema.from_dict(None) == EdgeSchema("src", "dst", None, recorded=True)


def test_apply_stream_reads_the_schema_columns():
    dd = pytest.importorskip("dask.dataframe")
    g = cgs.StreamGraph.from_edgelist(_edges(), edge_attr="weight")
    updates = pd.DataFrame({"source": [2, 0], "destination": [3, 1], "weight": [1.5, None], "op": [1, -1]})
    reports = g.apply_stream(dd.from_pandas(updates, npartitions=2, sort=False), progress=False)
    assert [r.rows for r in reports] == [1, 1]
    assert g.edges().values.tolist() == [[1, 2, 6.0], [2, 3, 1.5]]


def test_weight_dtype_of():
    assert weight_dtype_of(np.dtype("float32")) == np.float32
    assert weight_dtype_of(np.dtype("float64")) == np.float64
    assert weight_dtype_of(np.dtype("int8")) == np.float64
    assert weight_dtype_of(np.dtype("object")) == np.float64
    assert weight_dtype_of(None) == np.float32


def test_cugraph_spellings_load_an_empty_graph():
    G = cgs.StreamGraph()
    assert G.from_cudf_edgelist(_edges(), edge_attr="weight", vertices=[7]) is None
    assert G.schema.weight == "weight" and G.number_of_vertices() == 4
    assert G.edges()["weight"].tolist() == [5.0, 6.0]
    with pytest.raises(ValueError, match="already holds vertices"):
        G.from_pandas_edgelist(_edges())
    H = cgs.StreamGraph(directed=False)
    H.from_pandas_edgelist(pd.DataFrame({"a": [0], "b": [1], "w": [2.0]}), source="a", destination="b", weight="w")
    assert H.schema == EdgeSchema("a", "b", "w", recorded=True) and not H.directed
    with pytest.raises(ValueError, match="renumber=False"):
        cgs.StreamGraph().from_pandas_edgelist(_edges(), renumber=False)
    K = cgs.StreamGraph()
    with pytest.raises(ValueError, match="column 'nope' not found"):
        K.from_pandas_edgelist(_edges(), edge_attr="nope")
    assert not K.schema.recorded and K.number_of_vertices() == 0
