"""``Backend.check_rows`` (``backends/rows.py``; on the GPU one launch of
``kernels/validate.cu``) and ``read_rows`` through it: every backend codes the
ops, converts the weights and summarises the batch as the CPU backend does,
bit for bit (a float32 weight of 1e-45 survives, -1e-45 is negative, -0.0 is
not), and a failing batch raises the CPU backend's message.
"""
import zlib

import numpy as np
import pyarrow as pa
import pytest

from cugraph_stream.backends import get_backend
from cugraph_stream.frame.batch import read_rows

CPU = get_backend("cpu")
WEIGHT_DTYPES = [np.float32, np.float64]
COLUMN_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"]
OP_DTYPES = ["int8", "int64", "uint8", "float32", "float64", None]

TINY32 = float(np.finfo(np.float32).smallest_subnormal)     # 1e-45
MAX32 = float(np.finfo(np.float32).max)
#: weights that meet every edge of the conversion and of the checks
NASTY = [TINY32, -TINY32, -0.0, 0.0, 0.5, -2.5, 1e-320, -1e-320, MAX32, 3.5e38, -3.5e38, 1e300, np.nan, -np.nan,
         np.inf, -np.inf, 2.0 ** 53 + 2, 16777217.0, 1e-39]


def on(ops, array):
    return None if array is None else ops.asarray(array)


def assert_same_check(ops, op_values, weights, weight_dtype, nonnegative):
    """``ops.check_rows`` of device copies of the columns equals the CPU backend's
    of the host columns: codes, weights (bits: -0.0 and subnormals), and the
    summary (largest and fractional mean something for a batch that is not bad)."""
    expected = CPU.check_rows(op_values, weights, weight_dtype, nonnegative)
    got = ops.check_rows(on(ops, op_values), on(ops, weights), weight_dtype, nonnegative)
    assert got.bad == expected.bad
    codes, converted = ops.to_host(got.codes), ops.to_host(got.weights)
    assert codes.dtype == np.int8 and converted.dtype == np.dtype(weight_dtype)
    assert codes.tolist() == expected.codes.tolist()
    if expected.bad:
        np.testing.assert_array_equal(converted, expected.weights)       # (NaN bits may differ)
    else:
        bits = np.dtype(f"u{np.dtype(weight_dtype).itemsize}")
        assert converted.view(bits).tolist() == expected.weights.view(bits).tolist()
        assert (got.largest, got.fractional) == (expected.largest, expected.fractional)
    return got


def column(values, dtype):
    """``values`` in ``dtype`` (NumPy's C casts for out-of-range floats: what a user's column holds)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return np.asarray(values, dtype=np.float64).astype(dtype) if np.dtype(dtype).kind != "f" \
            else np.asarray(values).astype(dtype)


def random_weights(rng, n, value_dtype, weight_dtype):
    """``n`` weights of ``value_dtype`` that fit ``weight_dtype``: both signs, every
    magnitude, and subnormals of either dtype."""
    if np.dtype(value_dtype).kind != "f":
        info = np.iinfo(value_dtype)
        return rng.integers(info.min, info.max, n, dtype=value_dtype, endpoint=True)
    top = np.log10(min(float(np.finfo(value_dtype).max), float(np.finfo(weight_dtype).max)))
    weights = rng.choice([-1.0, 1.0], n) * 10.0 ** (rng.uniform(-0.99, 0.99, n) * top)
    weights[::97] = float(np.finfo(value_dtype).smallest_subnormal) * rng.integers(-3, 4, weights[::97].size)
    weights[1::97] = float(np.finfo(weight_dtype).smallest_subnormal) * rng.integers(-3, 4, weights[1::97].size)
    return weights.astype(value_dtype)


@pytest.mark.parametrize("weight_dtype", WEIGHT_DTYPES)
@pytest.mark.parametrize("value_dtype", COLUMN_DTYPES + ["float16"])
@pytest.mark.parametrize("op_dtype", OP_DTYPES)
def test_random_columns_check_as_on_the_cpu(ops, weight_dtype, value_dtype, op_dtype):
    rng = np.random.default_rng(zlib.crc32(f"{value_dtype} {op_dtype} {np.dtype(weight_dtype)}".encode()))
    n = 5000
    weights = random_weights(rng, n, value_dtype, weight_dtype)
    codes = [1] if op_dtype is not None and np.dtype(op_dtype).kind == "u" else [1, -1]    # (no uint is -1)
    op_values = None if op_dtype is None else column(rng.choice(codes, n), op_dtype)
    for nonnegative in (False, True):
        assert not assert_same_check(ops, op_values, weights, weight_dtype, nonnegative).bad or nonnegative
        if op_values is not None:           # an unknown op somewhere
            spoiled = op_values.copy()
            spoiled[rng.integers(n)] = 2 if spoiled.dtype.kind != "u" else np.iinfo(spoiled.dtype).max
            assert assert_same_check(ops, spoiled, weights, weight_dtype, nonnegative).bad
    floats = np.dtype(value_dtype).kind == "f"
    positive = assert_same_check(ops, op_values, np.abs(weights) if floats else np.maximum(weights, 0), weight_dtype,
                                 True)
    assert not positive.bad and positive.fractional == floats
    whole = assert_same_check(ops, None if op_values is None else op_values[:100],
                              np.abs(weights[:100].astype(np.float64)).round(), weight_dtype, True)
    assert not whole.bad and not whole.fractional


@pytest.mark.parametrize("weight_dtype", WEIGHT_DTYPES)
@pytest.mark.parametrize("value_dtype", ["float32", "float64"])
@pytest.mark.parametrize("op", [1, -1])
def test_each_nasty_weight_on_an_insert_or_a_delete_row(ops, weight_dtype, value_dtype, op):
    for value in NASTY:
        weights = column([1.0, value, 2.0], value_dtype)
        op_values = np.array([1, op, -1], dtype=np.int8)
        for nonnegative in (False, True):
            check = assert_same_check(ops, op_values, weights, weight_dtype, nonnegative)
            if op == -1:                # a delete row's weight is never read
                assert not check.bad


def test_subnormals_and_signed_zeros_survive(ops):
    check = assert_same_check(ops, np.array([1, 1, 1, -1], np.int64), np.array([TINY32, -0.0, 3.0, -1.0], np.float32),
                              np.float32, True)
    assert not check.bad and check.largest == 3.0 and check.fractional
    assert ops.to_host(check.weights).view(np.uint32).tolist() == [1, 0x80000000, 0x40400000, 0]
    check = assert_same_check(ops, None, np.array([TINY32], np.float32), np.float32, True)
    assert (check.largest, check.fractional) == (TINY32, True)
    assert assert_same_check(ops, None, np.array([-TINY32], np.float32), np.float32, True).bad
    assert not assert_same_check(ops, None, np.array([-TINY32], np.float32), np.float32, False).bad


@pytest.mark.parametrize("value_dtype", ["int64", "uint64"])
def test_integer_weights_round_as_numpy_converts(ops, value_dtype):
    info = np.iinfo(value_dtype)
    weights = np.array([info.max, info.min, 2**53 + 1, 2**24 + 1, info.max - 1024, 2**63 - 2049], dtype=value_dtype)
    for weight_dtype in WEIGHT_DTYPES:
        assert not assert_same_check(ops, None, weights, weight_dtype, False).bad


def test_no_rows(ops):
    check = ops.check_rows(on(ops, np.zeros(0, np.int8)), on(ops, np.zeros(0)), np.float32, True)
    assert (check.bad, check.largest, check.fractional) == (False, 0.0, False)
    assert check.codes.size == check.weights.size == 0 and check.weights.dtype == np.float32


def test_host_columns_on_any_backend(ops):
    """Host columns (a pandas batch of a GPU graph) are checked on the host, with no synchronisation."""
    before = ops.calls.snapshot()
    check = ops.check_rows(np.array([1, 1, 2]), np.array([1.5, -1.0, 0.0]), np.float64, True)
    assert ops.calls.since(before) == (1, 0)
    assert type(check.codes) is np.ndarray and check.bad and check.codes.tolist() == [1, 1, 0]


@pytest.mark.gpu
def test_device_columns_count_one_synchronisation_once_read():
    """The check itself waits for nothing; reading its summary with no wait between is one."""
    gpu = _gpu()
    op_values, weights = gpu.asarray(np.array([1, -1], np.int8)), gpu.asarray(np.array([2.0, 3.0]))
    before = gpu.calls.snapshot()
    check = gpu.check_rows(op_values, weights, np.float32)
    assert gpu.calls.since(before) == (1, 0)
    assert (check.bad, check.largest, check.fractional) == (False, 2.0, False)
    assert gpu.calls.since(before) == (1, 1)


def _gpu():
    from cugraph_stream.backends import available_backends

    if available_backends().get("gpu"):
        pytest.skip("no GPU backend here")
    return get_backend("gpu")


# ------------------------------------------------------------------ read_rows
def read(ops, table, weight_dtype, nonnegative_for):
    """``read_rows`` of ``table``: its rows (host arrays), or the message of its ``ValueError``."""
    try:
        rows = read_rows(table, "src", "dst", "weight", "op", weight_dtype, ops, nonnegative_for=nonnegative_for)
    except ValueError as error:
        return str(error), error.row
    return (ops.to_host(rows.op).tolist(), ops.to_host(rows.weight).view(f"u{np.dtype(weight_dtype).itemsize}").tolist(),
            rows.largest_weight, rows.fractional_weights, ops.to_host(rows.src).tolist())


def assert_reads_as_on_the_cpu(ops, columns, weight_dtype, nonnegative_for):
    """The batch as device columns (on ``ops``) reads as the CPU reads it from an Arrow
    table (where NaN is a number, as in a CuPy column, not a null: the CPU backend reads the table)."""
    table = pa.table(columns)
    expected = read(CPU, table, weight_dtype, nonnegative_for)
    if ops.has_device_memory:
        table = {name: values if values.dtype.kind in "OU" else ops.asarray(values) for name, values in columns.items()}
    assert read(ops, table, weight_dtype, nonnegative_for) == expected


@pytest.mark.parametrize("weight_dtype", WEIGHT_DTYPES)
@pytest.mark.parametrize("value_dtype", ["int8", "uint64", "float32", "float64"])
@pytest.mark.parametrize("op_dtype", ["int8", "int64", "float64"])
def test_read_rows_names_the_first_bad_row_as_on_the_cpu(ops, weight_dtype, value_dtype, op_dtype):
    n = 8
    ids = np.arange(n, dtype=np.int64)
    for nonnegative_for in (None, "SSSP"):
        for value in NASTY + [-1.0, 255]:
            for row in (0, 5):
                for op in (1, -1, 0, 2):
                    weights = np.full(n, 3.0)
                    weights[row] = value
                    weights[7] = -4.0 if value != -np.inf else np.nan     # a later bad row
                    ops_column = np.ones(n)
                    ops_column[row] = op
                    columns = {"src": ids, "dst": ids + 1, "weight": column(weights, value_dtype),
                               "op": column(ops_column, op_dtype)}
                    assert_reads_as_on_the_cpu(ops, columns, weight_dtype, nonnegative_for)


@pytest.mark.parametrize("weight_dtype", WEIGHT_DTYPES)
def test_read_rows_with_host_string_ops_and_device_weights(ops, weight_dtype):
    columns = {"src": np.arange(4), "dst": np.arange(4) + 1, "weight": np.array([1.0, TINY32, -1.0, 2.0]),
               "op": np.array(["insert", "Insert", "delete", "INSERT"])}
    assert_reads_as_on_the_cpu(ops, columns, weight_dtype, "SSSP")
    columns["op"] = np.array(["insert", "upsert", "delete", "insert"])
    assert_reads_as_on_the_cpu(ops, columns, weight_dtype, "SSSP")
    columns["op"] = np.array(["insert", "insert", "insert", "insert"])
    assert_reads_as_on_the_cpu(ops, columns, weight_dtype, "SSSP")


@pytest.mark.gpu
def test_read_rows_of_device_columns_is_one_launch_and_one_sync():
    """int64 ids cost nothing; the op and weight columns one kernel and one read (CUPTI,
    where it loads; the operator layer's count otherwise)."""
    gpu = _gpu()
    xp = gpu.xp
    n = 10_000
    table = {"src": xp.arange(n, dtype=xp.int64), "dst": xp.arange(n, dtype=xp.int64) + 1,
             "weight": xp.ones(n, dtype=xp.float32), "op": xp.ones(n, dtype=xp.int8)}
    read_rows(table, "src", "dst", "weight", "op", np.float32, gpu, nonnegative_for="SSSP")    # compiled
    before = gpu.calls.snapshot()
    rows = read_rows(table, "src", "dst", "weight", "op", np.float32, gpu, nonnegative_for="SSSP")
    assert gpu.calls.since(before) == (1, 1) and rows.largest_weight == 1.0 and rows.src is table["src"]
    try:
        from benchmarks.device_calls import CuptiCounter
    except ImportError:
        return
    if not CuptiCounter.available():
        return
    with CuptiCounter() as counter:
        read_rows(table, "src", "dst", "weight", "op", np.float32, gpu, nonnegative_for="SSSP")
    assert (counter.launches, counter.syncs) == (1, 1), counter.by_name


@pytest.mark.gpu
def test_an_unverified_device_check_is_read_with_the_next_wait():
    """``verify=False``: the check's summary is read by the next wait, with no wait
    of its own; without one between, reading it waits (counted, so counts never
    depend on the device's speed); two checks waiting read their own words."""
    gpu = _gpu()
    xp = gpu.xp
    n = 5_000

    def table(weight, op=1):
        return {"src": xp.arange(n, dtype=xp.int64), "dst": xp.arange(n, dtype=xp.int64) + 1,
                "weight": xp.full(n, weight, dtype=xp.float64), "op": xp.full(n, op, dtype=xp.int8)}

    read_rows(table(1.0), "src", "dst", "weight", "op", np.float32, gpu, verify=False).verify()     # compiled
    before = gpu.calls.snapshot()
    rows = read_rows(table(2.5), "src", "dst", "weight", "op", np.float32, gpu, verify=False)
    assert gpu.calls.since(before) == (1, 0)
    assert gpu.host_ints(xp.ones(1, dtype=xp.int64).sum()) == [1]         # a wait of something else
    rows.verify()
    assert gpu.calls.since(before) == (2, 1)                # (host_ints' one)
    assert (rows.largest_weight, rows.fractional_weights) == (2.5, True)

    before = gpu.calls.snapshot()
    rows = read_rows(table(3.0), "src", "dst", "weight", "op", np.float32, gpu, verify=False)
    assert (rows.largest_weight, rows.fractional_weights) == (3.0, False)
    assert gpu.calls.since(before) == (1, 1)                # read with a wait of its own

    first = read_rows(table(4.0, op=1), "src", "dst", "weight", "op", np.float32, gpu, verify=False)
    second = read_rows(table(5.0, op=3), "src", "dst", "weight", "op", np.float32, gpu, verify=False)
    assert (first.check.bad, first.largest_weight) == (False, 4.0)       # its own words, not the second's
    with pytest.raises(ValueError, match="column 'op' holds an unknown op 3 at row 0"):
        second.verify()


@pytest.mark.gpu
@pytest.mark.parametrize("weight_dtype", WEIGHT_DTYPES)
def test_a_gpu_graph_applies_device_columns_as_the_cpu_applies_them(weight_dtype):
    """Batches of CuPy columns on a GPU graph (the fused check) and the same columns as an
    Arrow table on a CPU graph: the same edges, bit for bit, or the same error and no change."""
    import pandas as pd

    import cugraph_stream as cgs

    gpu = _gpu()
    tiny = float(np.finfo(weight_dtype).smallest_subnormal)
    edges = pd.DataFrame({"src": [0, 1, 2], "dst": [1, 2, 3], "w": [1.0, 2.0, 3.0]})
    graphs = {}
    for backend in ("cpu", "gpu"):
        graphs[backend] = cgs.StreamGraph.from_edgelist(edges, source="src", destination="dst", weight="w",
                                                        backend=backend, weight_dtype=weight_dtype)
        graphs[backend].track(cgs.SSSP(0))
    batches = [([0, 1, 3], [2, 2, 4], [tiny, -4.0, 0.5], [1, -1, 1]),      # a subnormal; -4 on a delete row
               ([0, 3], [3, 0], [-0.0, 7.0], [1.0, 1.0]),                    # -0.0 is not negative
               ([0, 3], [4, 1], [1.0, -tiny], [1, 1]),                       # negative: SSSP refuses it
               ([0, 1], [4, 4], [1.0, np.nan], [1, -1]),                     # NaN on a delete row: fine
               ([0], [4], [np.inf], [1]),
               ([0, 1], [4, 3], [1.0, 2.0], [1, 3]),                         # an unknown op
               ([2], [0], [1e39], [1])]                                      # beyond float32
    for src, dst, w, op in batches:
        columns = {"src": np.array(src, np.int64), "dst": np.array(dst, np.int64), "w": np.array(w, np.float64),
                   "op": np.array(op, np.float64 if isinstance(op[0], float) else np.int8)}
        outcomes = {}
        for backend, table in (("cpu", pa.table(columns)), ("gpu", {k: gpu.asarray(v) for k, v in columns.items()})):
            try:
                graphs[backend].apply(table, weight="w")
                outcomes[backend] = "applied"
            except ValueError as error:
                outcomes[backend] = str(error)
            frame = graphs[backend].edges()
            frame = frame.to_pandas() if hasattr(frame, "to_pandas") else frame
            bits = f"u{np.dtype(weight_dtype).itemsize}"
            outcomes[backend] = (outcomes[backend], frame["src"].tolist(), frame["dst"].tolist(),
                                 np.asarray(frame["w"], dtype=weight_dtype).view(bits).tolist())
        assert outcomes["gpu"] == outcomes["cpu"], (src, dst, w, op)


@pytest.mark.parametrize("weight_dtype", WEIGHT_DTYPES)
@pytest.mark.parametrize("value_dtype", COLUMN_DTYPES + ["float16", "bool"])
@pytest.mark.parametrize("op_dtype", OP_DTYPES + ["bool", "uint64"])
@pytest.mark.parametrize("nonnegative", [False, True])
def test_a_few_host_rows_check_as_the_array_code_checks_them(weight_dtype, value_dtype, op_dtype, nonnegative):
    """Batches of up to FEW_ROWS host rows take the element-by-element check: the
    same codes, weights (bits), flags, largest weight and fractional flag as the
    whole-array code, for the nasty weights and ops of every dtype."""
    from cugraph_stream.backends import rows

    rng = np.random.default_rng(zlib.crc32(f"{weight_dtype}{value_dtype}{op_dtype}{nonnegative}".encode()))
    pool = np.array(NASTY + [1.0, 2.0, -1.0, 3.0, 255.0, 7.5])
    for n in range(0, rows.FEW_ROWS + 1):
        for _ in range(12):
            weights = column(rng.choice(pool, n), value_dtype)
            op_values = None if op_dtype is None else column(rng.choice([1, -1, 1, -1, 0, 2, 255, np.nan], n),
                                                              op_dtype)
            few = rows._check_few_rows(op_values, weights, weight_dtype, nonnegative)
            with np.errstate(over="ignore", invalid="ignore"):
                saved, rows.FEW_ROWS = rows.FEW_ROWS, -1          # the array code
                try:
                    whole, _ = rows.check_rows(op_values, weights, weight_dtype, nonnegative)
                finally:
                    rows.FEW_ROWS = saved
            bits = np.dtype(f"u{np.dtype(weight_dtype).itemsize}")
            assert few.codes.dtype == np.int8 and few.codes.tolist() == whole.codes.tolist()
            assert few.weights.dtype == np.dtype(weight_dtype)
            assert few.weights.view(bits).tolist() == whole.weights.view(bits).tolist()
            assert few.bad == whole.bad
            if not whole.bad:
                assert (few.largest, few.fractional) == (whole.largest, whole.fractional)
