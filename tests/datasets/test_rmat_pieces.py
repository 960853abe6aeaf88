"""rmat_pieces: an R-MAT graph in pieces generated on demand, weights a function of the edge."""
from collections.abc import Sequence

import numpy as np
import pandas as pd
import pytest

from cugraph_stream.datasets import RmatPieces, edge_weight, rmat_pieces
from cugraph_stream.datasets.rmat import _generate, _NumpyRandom, mix64


def _keys(frame):
    return frame["src"].to_numpy() * (1 << 32) + frame["dst"].to_numpy()


def test_a_sequence_of_frames_with_the_documented_columns():
    pieces = rmat_pieces(9, edge_factor=4, pieces=5, seed=2)
    assert isinstance(pieces, Sequence) and isinstance(pieces, RmatPieces)
    assert len(pieces) == 5 and pieces.num_vertex_ids == 512 and pieces.rows == 4 * 512
    frame = pieces[0]
    assert list(frame.columns) == ["src", "dst", "weight"]
    assert [str(t) for t in frame.dtypes] == ["int64", "int64", "float32"]
    assert pieces[-1].equals(pieces[4])
    assert sum(1 for _ in pieces) == 5          # iteration stops at the end
    with pytest.raises(IndexError):
        pieces[5]
    with pytest.raises(TypeError):
        pieces[1.0]


def test_piece_sizes_add_up_to_the_draws():
    pieces = rmat_pieces(8, edge_factor=5, pieces=7, seed=0)
    draws = [pieces.draws(i) for i in range(7)]
    assert draws[:-1] == [5 * 256 // 7] * 6
    assert sum(draws) == pieces.rows == 5 * 256
    for i in range(7):
        frame = pieces[i]
        assert 0 < len(frame) <= draws[i]


def test_each_piece_is_sorted_without_self_loops_or_repeats():
    pieces = rmat_pieces(10, edge_factor=8, pieces=4, seed=3)
    for frame in pieces:
        src, dst = frame["src"].to_numpy(), frame["dst"].to_numpy()
        assert (src != dst).all()
        assert src.min() >= 0 and max(src.max(), dst.max()) < pieces.num_vertex_ids
        assert (np.diff(_keys(frame)) > 0).all()


def test_deterministic_per_seed_and_pieces_differ():
    a = rmat_pieces(9, pieces=3, seed=7)
    b = rmat_pieces(9, pieces=3, seed=7)
    c = rmat_pieces(9, pieces=3, seed=8)
    for i in range(3):
        pd.testing.assert_frame_equal(a[i], b[i])
        assert not a[i].equals(c[i])
    assert not a[0].equals(a[1])
    assert a.seed_of(1) == int(np.random.SeedSequence([7, 1]).generate_state(1)[0])


def test_a_piece_is_the_generators_draws_from_its_own_seed():
    pieces = rmat_pieces(8, edge_factor=6, pieces=3, seed=4)
    src, dst, _ = _generate(np, _NumpyRandom(pieces.seed_of(2)), 8, pieces.draws(2), 0.57, 0.19, 0.19,
                            weights=None, wdtype=None, directed=True, permute=False, chunk=1 << 22)
    frame = pieces[2]
    np.testing.assert_array_equal(frame["src"].to_numpy(), src)
    np.testing.assert_array_equal(frame["dst"].to_numpy(), dst)


def test_weights_are_a_function_of_the_edge_across_pieces():
    pieces = rmat_pieces(8, edge_factor=16, pieces=6, seed=1)
    union = pd.concat(list(pieces), ignore_index=True)
    keys = _keys(union)
    assert (union.weight == np.round(union.weight)).all() and union.weight.between(1, 64).all()
    per_edge = pd.Series(union.weight.to_numpy()).groupby(keys).nunique()
    assert (per_edge == 1).all()
    repeated = pd.Series(keys).value_counts()
    assert (repeated > 1).any()          # R-MAT's hubs: the same edge drawn in several pieces
    expected = edge_weight(np, union.src.to_numpy(), union.dst.to_numpy())
    np.testing.assert_array_equal(union.weight.to_numpy(), expected)
    # spread over the whole range
    assert union.weight.nunique() == 64


def test_union_of_pieces_is_the_rmat_draws_of_every_piece():
    pieces = rmat_pieces(9, edge_factor=4, pieces=4, seed=5)
    union = np.unique(np.concatenate([_keys(frame) for frame in pieces]))
    expected = []
    for i in range(len(pieces)):
        src, dst, _ = _generate(np, _NumpyRandom(pieces.seed_of(i)), 9, pieces.draws(i), 0.57, 0.19, 0.19,
                                weights=None, wdtype=None, directed=True, permute=False, chunk=1 << 22)
        expected.append(src * (1 << 32) + dst)
    np.testing.assert_array_equal(union, np.unique(np.concatenate(expected)))
    # as many distinct edges as one R-MAT draw of the same size would give, roughly
    assert 0.7 * pieces.rows < union.size < pieces.rows


def test_edge_weight_and_mix64():
    src = np.array([0, 1, 2, 2**31 - 1])
    dst = np.array([1, 0, 2**31 - 1, 0])
    w = edge_weight(np, src, dst)
    assert w.dtype == np.float32 and ((w >= 1) & (w <= 64)).all()
    np.testing.assert_array_equal(w, edge_weight(np, src.astype(np.int32), dst.astype(np.int32)))
    assert mix64(np, [1 << 32])[0] != mix64(np, [1])[0]      # (1, 0) and (0, 1) are different keys
    assert len(set(mix64(np, np.arange(1000)).tolist())) == 1000


@pytest.mark.parametrize("bad", [dict(scale=0), dict(pieces=0), dict(edge_factor=0), dict(seed=-1),
                                 dict(a=1.5), dict(backend="tpu"), dict(scale=4, edge_factor=1, pieces=17)])
def test_bad_arguments_raise_value_error(bad):
    arguments = dict(scale=4, edge_factor=1, pieces=2) | bad
    with pytest.raises(ValueError):
        rmat_pieces(**arguments)


@pytest.mark.gpu
def test_gpu_pieces_hold_cupy_columns():
    cupy = pytest.importorskip("cupy")
    pieces = rmat_pieces(10, edge_factor=4, pieces=3, seed=1, backend="gpu")
    src, dst, weight = pieces.arrays(1)
    assert isinstance(src, cupy.ndarray) and src.dtype == cupy.int64 and weight.dtype == cupy.float32
    np.testing.assert_array_equal(cupy.asnumpy(weight), edge_weight(np, cupy.asnumpy(src), cupy.asnumpy(dst)))
    again = pieces.arrays(1)
    assert bool((again[0] == src).all() and (again[1] == dst).all())
