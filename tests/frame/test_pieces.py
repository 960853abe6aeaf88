"""Edge lists in pieces (frame/pieces.py)."""
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from cugraph_stream.frame.pieces import RowSlices, edge_list_pieces, row_slice


@pytest.mark.parametrize("make", [pd.DataFrame, pa.table, dict])
def test_a_frame_is_cut_into_slices_of_rows(make):
    frame = make({"src": np.arange(7), "dst": np.arange(7) + 1})
    pieces = edge_list_pieces(frame, piece_rows=3)
    assert isinstance(pieces, RowSlices) and len(pieces) == 3
    got = [np.asarray(pd.DataFrame(dict(p) if isinstance(p, dict) else p.to_pydict()
                                   if isinstance(p, pa.Table) else p)["src"]).tolist() for p in pieces]
    assert got == [[0, 1, 2], [3, 4, 5], [6]]
    with pytest.raises(IndexError):
        pieces[3]


def test_small_frames_and_no_limit_load_at_once():
    frame = pd.DataFrame({"src": [0, 1]})
    assert edge_list_pieces(frame, piece_rows=2) is None
    assert edge_list_pieces(frame) is None


def test_sequences_are_pieces_and_other_things_are_refused():
    parts = [pd.DataFrame({"src": [0]}), pd.DataFrame({"src": [1]})]
    assert edge_list_pieces(parts) is parts
    assert edge_list_pieces(tuple(parts), piece_rows=1) == tuple(parts)
    with pytest.raises(ValueError, match="empty sequence"):
        edge_list_pieces([])
    with pytest.raises(ValueError, match="must be a frame"):
        edge_list_pieces("edges.csv")
    with pytest.raises(ValueError, match="must be a frame"):
        edge_list_pieces(42)


def test_dask_partitions_are_pieces():
    dd = pytest.importorskip("dask.dataframe")
    ddf = dd.from_pandas(pd.DataFrame({"src": np.arange(6)}), npartitions=3)
    pieces = edge_list_pieces(ddf)
    assert len(pieces) == 3
    assert pd.concat([pieces[i] for i in range(3)])["src"].tolist() == list(range(6))


def test_row_slice_views():
    assert row_slice({"a": np.arange(5)}, 1, 3)["a"].tolist() == [1, 2]
    assert row_slice(pa.table({"a": [1, 2, 3]}), 2, 3).to_pydict() == {"a": [3]}
