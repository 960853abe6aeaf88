"""benchmarks/cpu_vs_scipy.py's back-to-back series (the script's full run is in test_stream.py)."""
import cugraph_stream as cgs
from benchmarks import cpu_vs_scipy
from benchmarks.common import make_query
from cugraph_stream.datasets import mixed_stream, rmat


def test_the_back_to_back_series_fails_unless_it_ends_where_the_checked_run_ended():
    args = cpu_vs_scipy.parse_args(["--scale", "8", "--batches", "2", "--batch-size", "30", "--mode", "incremental"])
    stream = mixed_stream(rmat(8, edge_factor=8, seed=0, weights=(1.0, 64.0)), 2, 30, delete_fraction=0.5, seed=0)
    checked = cgs.StreamGraph.from_edgelist(stream.initial, source="src", destination="dst", weight="weight",
                                            backend="cpu", weight_dtype="float32")
    query = checked.track(make_query("sssp", 0, "incremental", args.alpha, args.tol))
    seconds, problems = cpu_vs_scipy.run_back_to_back("sssp", stream, 0, args, query)
    assert len(seconds) == 2 and problems == ["results differ from the checked run's"]   # (G0's result)
    for batch in stream:
        checked.apply(batch, source="src", destination="dst", weight="weight", op="op")
    assert cpu_vs_scipy.run_back_to_back("sssp", stream, 0, args, query)[1] == []
