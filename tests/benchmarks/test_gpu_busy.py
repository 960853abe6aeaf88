import argparse

import numpy as np
import pytest

import cugraph_stream as cgs
from benchmarks import gpu_busy
from cugraph_stream.backends import get_backend
from cugraph_stream.datasets import rmat

# two rows as ncu 2026 printed them on the lent H100 (the kernels' parameter lists shortened)
NCU_OUTPUT = """==PROF== Connected to process 2517 (/usr/bin/python3.12)
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit","Metric Value"
"0","2517","python3.12","127.0.0.1","void check_rows<float>(const void *, int)","1","7","(256, 1, 1)","(40, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","ns","4,864"
"1","2517","python3.12","127.0.0.1","void check_rows<float>(const void *, int)","1","7","(256, 1, 1)","(40, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","ns","5,136"
"2","2517","python3.12","127.0.0.1","converge_block","1","7","(1024, 1, 1)","(1, 1, 1)","0","9.0","Command line profiler metrics","gpu__time_duration.sum","usecond","142.1"
==PROF== Disconnected from process 2517
"""


def test_kernel_times_sums_each_kernels_durations_in_microseconds():
    total, launches, per_kernel = gpu_busy.kernel_times(NCU_OUTPUT)
    assert launches == 3
    assert per_kernel["void check_rows<float>"] == pytest.approx([10.0, 2])
    assert per_kernel["converge_block"] == pytest.approx([142.1, 1])
    assert total == pytest.approx(152.1)


def test_without_ncu_it_says_so_and_exits_2(monkeypatch, capsys):
    monkeypatch.setattr(gpu_busy, "_ncu", lambda: None)
    assert gpu_busy.main(["--scale", "10"]) == 2
    assert "ncu" in capsys.readouterr().err


def test_ingest_applies_the_new_edges_to_each_fresh_copy_of_the_graph():
    ops = get_backend("cpu")
    args = argparse.Namespace(scale=8, edge_factor=4, seed=0, rows=50, batches=2, child="time")
    wall, graph, hub = gpu_busy.ingest_batches(ops, args)
    assert wall > 0 and hub is None
    assert graph.last_report.rows == 50 and graph.last_report.deleted == 0
    edges = rmat(8, edge_factor=4, seed=0, backend="cpu")
    rng = np.random.RandomState(7)
    src, dst = rng.randint(0, 256, 50, dtype=np.int64), rng.randint(0, 256, 50, dtype=np.int64)
    both = cgs.StreamGraph.from_edgelist({"src": np.concatenate((edges["src"], src)),
                                          "dst": np.concatenate((edges["dst"], dst))},
                                         source="src", destination="dst", backend="cpu")
    assert graph.number_of_edges() == both.number_of_edges()
