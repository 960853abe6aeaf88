"""The byte layout of a hot-cache chunk: section offsets and packed 3-byte ids."""
import numpy as np
import pytest

from cugraph_stream.chunk_layout import PACKED_ID_LIMIT, check_id_bytes, chunk_layout, read_ids, write_ids


def test_layout_has_no_padding_for_cache_sized_chunks():
    for dtype in (np.float32, np.float64):
        total, offset = chunk_layout(64 * 1000, dtype)
        assert offset == 4 * 64 * 1000 and total == 64 * 1000 * (4 + np.dtype(dtype).itemsize)


def test_packed_ids_round_trip_every_byte():
    ids = np.array([0, 1, 255, 256, 65535, 65536, 0xABCDEF, PACKED_ID_LIMIT - 1])
    packed, plain = np.zeros((ids.size, 3), dtype=np.uint8), np.zeros(ids.size, dtype=np.int32)
    for nbr in (packed, plain):
        write_ids(np, nbr, np.arange(ids.size)[::-1], ids)
        assert read_ids(nbr, np.arange(ids.size)[::-1]).tolist() == ids.tolist()
        assert read_ids(nbr, slice(0, 2)).tolist() == [PACKED_ID_LIMIT - 1, 0xABCDEF]
    assert packed[1].tolist() == [0xEF, 0xCD, 0xAB]


def test_id_bytes_are_3_or_4():
    assert check_id_bytes(3) == 3 and chunk_layout(10, id_bytes=3) == (30, None)
    with pytest.raises(ValueError, match="id_bytes"):
        chunk_layout(10, id_bytes=2)
