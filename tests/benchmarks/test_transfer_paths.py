"""benchmarks.transfer_paths: its helpers on the CPU; the three paths, checked against NumPy, on the GPU."""
import json

import numpy as np
import pytest

from benchmarks import transfer_paths


def test_segments_touched_counts_whole_128_byte_segments():
    # rows of 40 ids (160 bytes): row 0 spans segments 0-1, row 1 spans 1-2, row 4 spans 5-6
    assert transfer_paths.segments_touched(np.array([0, 1, 4]), 40) == 6
    assert transfer_paths.segments_touched(np.arange(32), 1) == 32      # one id a row: a segment each


def test_blocks_touched_counts_each_block_of_the_union_once():
    # rows of 40 ids (160 bytes): rows 0 and 1 span bytes 0-319, 64-byte blocks 0-4; row 4 spans blocks 10-12
    assert transfer_paths.blocks_touched(np.array([0, 1, 4]), 40, 64) == 5 + 3
    assert transfer_paths.blocks_touched(np.arange(32), 1, 64) == 2      # 128 contiguous bytes
    rng = np.random.default_rng(5)
    rows = np.sort(rng.choice(500, 60, replace=False))
    for degree, unit in ((1, 64), (3, 64), (40, 128)):
        brute = {byte // unit for r in rows.tolist() for byte in range(r * degree * 4, (r + 1) * degree * 4)}
        assert transfer_paths.blocks_touched(rows, degree, unit) == len(brute)


def test_parallel_take_copies_the_rows_in_order():
    source = np.arange(60, dtype=np.int32).reshape(20, 3)
    rows = np.array([1, 4, 5, 11, 19])
    out = np.zeros((5, 3), dtype=np.int32)
    transfer_paths.parallel_take(source, rows, out, threads=3)
    np.testing.assert_array_equal(out, source[rows])


def test_bad_shares_and_degrees_are_refused():
    for argv in (["--shares", "0"], ["--shares", "1.5"], ["--degrees", "0,4"]):
        with pytest.raises(SystemExit):
            transfer_paths.parse_args(argv)


@pytest.mark.gpu
def test_every_path_sums_what_numpy_sums_on_the_gpu(tmp_path, capsys):
    pytest.importorskip("cupy")
    path = tmp_path / "paths.json"
    assert transfer_paths.main(["--gib", "0.01", "--degrees", "1,8,100", "--shares", "0.01,0.5,1",
                                "--repeat", "1", "--threads", "2", "--json", str(path)]) == 0
    out = capsys.readouterr().out
    assert "MISMATCH" not in out and out.count("\n| ") >= 2 + 9
    rows = json.loads(path.read_text())["rows"]
    assert len(rows) == 9 and all(r["fastest"] in transfer_paths.PATHS for r in rows)
    assert all(r["segment_bytes"] >= r["useful_bytes"] for r in rows)
    assert all(r["segment_bytes"] >= r["block64_bytes"] / 2 and r["block64_bytes"] >= r["useful_bytes"] for r in rows)
