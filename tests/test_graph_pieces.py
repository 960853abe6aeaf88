"""StreamGraph.from_edgelist on an edge list in pieces: the graph a load at once
gives, checked against the model and the from-scratch references."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import cugraph_stream as cgs
from reference import ModelGraph, check_edges, check_query


def edge_frame(rng, rows, ids):
    """Rows over arbitrary int64 ids, with repeats (the last weight wins), loops
    and zero weights."""
    src, dst = rng.choice(ids, rows), rng.choice(ids, rows)
    return pd.DataFrame({"source": src, "destination": dst,
                         "w": rng.integers(0, 4, rows).astype(np.float64)})


def model_of(frame, directed):
    model = ModelGraph(directed, "float64")
    for u, v, w in frame.itertuples(index=False):
        model.vertices.update((int(u), int(v)))
        model.edges[model.key(u, v)] = float(w)
    return model


@pytest.mark.parametrize("directed", [True, False])
@given(data=st.data())
def test_pieces_load_the_graph_a_frame_loads(directed, data):
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    ids = rng.integers(-2**62, 2**62, data.draw(st.integers(1, 40)))
    frame = edge_frame(rng, data.draw(st.integers(1, 200)), ids)
    cuts = sorted(set(data.draw(st.lists(st.integers(1, len(frame)), max_size=5)) + [len(frame)]))
    pieces = [frame.iloc[a:b] for a, b in zip([0] + cuts, cuts)]
    piece_rows = data.draw(st.one_of(st.none(), st.integers(1, 2 * len(frame))))
    g = cgs.StreamGraph.from_edgelist(pieces, weight="w", directed=directed, piece_rows=piece_rows)
    model = model_of(frame, directed)
    check_edges(g, model, "after the load in pieces")
    assert g.last_report.rows == len(frame) and g.last_report.inserted == model.number_of_edges()
    source = int(frame.source.iloc[0])
    sssp, wcc = g.track(cgs.SSSP(source)), g.track(cgs.WCC())
    check_query(sssp, model, "SSSP", source=source)
    check_query(wcc, model, "WCC")


@pytest.mark.parametrize("directed", [True, False])
def test_unweighted_pieces_keep_no_weights_and_weigh_one(directed):
    frame = edge_frame(np.random.default_rng(6), 500, np.arange(50) * 11).drop(columns="w")
    g = cgs.StreamGraph.from_edgelist([frame.iloc[:200], frame.iloc[200:]], directed=directed, piece_rows=120)
    model = model_of(frame.assign(w=1.0), directed)
    check_edges(g, model)
    assert not g.schema.weighted


def test_string_keys_in_pieces():
    """Each piece's new keys are committed as it is validated; the second reading
    encodes them the same."""
    a = pd.DataFrame({"source": ["x", "y"], "destination": ["y", "z"]})
    b = pd.DataFrame({"source": ["z", "w"], "destination": ["x", "x"]})
    g = cgs.StreamGraph.from_edgelist([a, b], piece_rows=1)
    whole = cgs.StreamGraph.from_edgelist(pd.concat([a, b]))
    assert sorted(g.edges().values.tolist()) == sorted(whole.edges().values.tolist())
    assert g.track(cgs.BFS("x")).result().set_index("vertex")["distance"].to_dict() == {
        "x": 0, "y": 1, "z": 2, "w": np.iinfo(np.int32).max}


def test_empty_pieces():
    empty = pd.DataFrame({"source": np.array([], dtype=np.int64), "destination": np.array([], dtype=np.int64)})
    g = cgs.StreamGraph.from_edgelist([empty, empty])
    assert g.number_of_edges() == g.number_of_vertices() == 0
    g.apply(pd.DataFrame({"source": [1], "destination": [2], "op": ["insert"]}))
    g = cgs.StreamGraph.from_edgelist([empty, pd.DataFrame({"source": [1, 2], "destination": [2, 3]}), empty],
                                      piece_rows=1)
    assert (g.number_of_edges(), g.number_of_vertices()) == (2, 3)


def test_a_large_frame_is_loaded_in_pieces_of_piece_rows(monkeypatch):
    rng = np.random.default_rng(4)
    frame = edge_frame(rng, 1000, np.arange(60) * 1000)
    read = []
    real = cgs.StreamGraph._read_piece

    def counting(self, pieces, index, *args):
        read.append(index)
        return real(self, pieces, index, *args)

    monkeypatch.setattr(cgs.StreamGraph, "_read_piece", counting)
    g = cgs.StreamGraph.from_edgelist(frame, weight="w", piece_rows=300, progress=False)
    assert read == [0, 1, 2, 3] * 2                  # validated, then read as internal ids
    check_edges(g, model_of(frame, True))
    read.clear()
    cgs.StreamGraph.from_edgelist(frame, weight="w", piece_rows=1000)
    assert read == []                                # at once: the frame fits


def test_validation_sorts_one_piece_of_ids_at_a_time(monkeypatch):
    # the distinct ids of the pieces before are merged with a piece's, not sorted again with
    # them (O(V log V) a piece: 6.6 s of validation at R-MAT scale 27 on the GPU)
    from cugraph_stream.backends.cpu import CPUBackend
    sorted_sizes, real = [], CPUBackend.sorted_distinct

    def recording(self, values):
        sorted_sizes.append(int(values.size))
        return real(self, values)

    monkeypatch.setattr(CPUBackend, "sorted_distinct", recording)
    frame = edge_frame(np.random.default_rng(8), 1000, np.arange(-2000, 2000) * 7919)
    g = cgs.StreamGraph.from_edgelist(frame, weight="w", piece_rows=300, progress=False)
    assert sorted_sizes and max(sorted_sizes) <= 2 * 300
    check_edges(g, model_of(frame, True))
    assert g.number_of_vertices() == len(set(frame.source) | set(frame.destination))


def test_a_bad_row_is_named_with_its_piece_and_the_graph_is_not_built():
    good = pd.DataFrame({"source": [0, 1], "destination": [1, 2], "w": [1.0, 2.0]})
    bad = pd.DataFrame({"source": [3, 4], "destination": [4, 5], "w": [1.0, np.nan]})
    with pytest.raises(ValueError, match=r"piece 1 of the edge list \(from its row 2\).*'w'.*row 1"):
        cgs.StreamGraph.from_edgelist([good, bad], weight="w")


class Changing:
    """Pieces that read differently the second time: refused."""

    def __init__(self):
        self.reads = 0

    def __len__(self):
        return 1

    def __getitem__(self, index):
        if index:
            raise IndexError(index)
        self.reads += 1
        rows = 3 if self.reads == 1 else 2
        return {"source": np.arange(rows), "destination": np.arange(rows) + 1}


class Renamed(Changing):
    """As many rows the second time, but naming other vertices: refused too."""

    def __getitem__(self, index):
        if index:
            raise IndexError(index)
        self.reads += 1
        return {"source": np.arange(3) + 10 * (self.reads > 1), "destination": np.arange(3) + 1}


def test_pieces_must_read_the_same_each_time():
    with pytest.raises(ValueError, match="piece 0 .* 3 rows when first read and 2 when read again"):
        cgs.StreamGraph.from_edgelist(Changing())
    with pytest.raises(ValueError, match="piece 0 .* names vertices it did not name when first read"):
        cgs.StreamGraph.from_edgelist(Renamed())


def test_a_time_window_needs_one_frame():
    frame = pd.DataFrame({"source": [0], "destination": [1], "ts": [1.0]})
    with pytest.raises(ValueError, match="time= needs the edge list in one frame"):
        cgs.StreamGraph.from_edgelist([frame], time="ts", window=5.0)


def test_dask_partitions_load_as_pieces():
    dd = pytest.importorskip("dask.dataframe")
    frame = edge_frame(np.random.default_rng(2), 300, np.arange(40))
    g = cgs.StreamGraph.from_edgelist(dd.from_pandas(frame, npartitions=4), weight="w", piece_rows=100)
    check_edges(g, model_of(frame, True))


def test_pieces_on_each_backend_and_placement(backend, placement):
    """In ranges of vertices on the GPU too (host placement: the arc index built in
    device memory and copied once), then batches and queries stay exact."""
    rng = np.random.default_rng(9)
    frame = edge_frame(rng, 4000, np.arange(300) * 3)
    frame.loc[:1500, "source"] = 0                   # a hub
    frame["w"] += 1
    pieces = [frame.iloc[i:i + 700] for i in range(0, len(frame), 700)]
    memory = {"cache_budget": 4096, "chunk_bytes": 1024} if placement == "cached" else {}
    g = cgs.StreamGraph.from_edgelist(pieces, weight="w", backend=backend, placement=placement,
                                      piece_rows=500, **memory)
    model = model_of(frame, True)
    check_edges(g, model)
    sssp = g.track(cgs.SSSP(0))
    batch = edge_frame(rng, 200, np.arange(300) * 3).assign(op=["insert", "delete"] * 100)
    batch["w"] += 1
    g.apply(batch)
    for u, v, w, op in batch.itertuples(index=False):
        if op == "insert":
            model.vertices.update((int(u), int(v)))
            model.edges[model.key(u, v)] = float(w)
        else:
            model.edges.pop(model.key(u, v), None)
    check_edges(g, model)
    check_query(sssp, model, "SSSP", source=0)
