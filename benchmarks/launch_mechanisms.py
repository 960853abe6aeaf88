"""What CUDA graphs would save the batch pipeline, measured (issue 17: the mechanism, by measurement).

A batch costs far more host time than device time (``benchmarks/gpu_busy.py``,
``docs/batch-pipeline.md``): each operator call is Python around one or two
launches, and each loop the device must finish (a push's levels) returns to
the host once a level.  This times the two mechanisms that would take the
host out, on the machine it runs on, each the mean of ``--repeat`` runs with
the stream synchronised at the end of each run:

``calls``
    ``--calls`` calls of the GPU backend's own operators on small arrays
    (``take``, ``put`` and ``exchange`` in turn, the kinds a small batch
    makes) launched from Python, against the same calls captured once into a
    CUDA graph (CuPy's stream capture; the memory pool's allocations are
    captured with them and their memory is the graph's from then on) and
    replayed with one ``graph.launch``.  Both must leave the same values.  The
    capture's own time (once per shape a pipeline would replay) is printed too.
``loop``
    a loop of ``--steps`` steps that stops on a count on the device: one
    launch a step and the count read after each (the host decides), against
    one WHILE conditional node (CUDA 12.4+, through ``cuda.bindings``) whose
    body kernel decrements the count and sets the node's condition itself.
    The node must run its body exactly ``--steps`` times.
``gaps`` (``--gaps``)
    the ``calls`` both ways again, each run after the process slept the gap:
    after a pause of a millisecond or more, launches and waits are slower
    (on a lent H200, 2026-11-29: 20 small launches and a wait 172 us back to
    back, 400-490 us after 20-50 ms asleep; their captured graph 28 and
    76-87 us), and a stream's batches arrive after such gaps.  Medians of
    ``--gap-repeat`` runs a gap, the two ways alternating.

Printed: microseconds per run and per call or step, and the ratio.  Needs CuPy
and a GPU; the loop also needs ``cuda.bindings`` (skipped, and said so,
without it)::

    python -m benchmarks.launch_mechanisms
    python -m benchmarks.launch_mechanisms --calls 60 --steps 20 --out $OUT/launch_mechanisms.json
    python -m benchmarks.launch_mechanisms --calls 20 --gaps 1,20,50
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from .common import cupy_with_a_device, gpu_info, json_default, positive, write

#: the loop's kernels: one step without and one with the device-set condition
#: (``cudaGraphSetConditional`` is a device runtime builtin: no cudadevrt link)
LOOP_SOURCE = r"""
typedef unsigned long long cudaGraphConditionalHandle;
extern "C" __device__ void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value);

extern "C" __global__ void step(long long* left) {
    if (threadIdx.x == 0 && blockIdx.x == 0) left[0] -= 1;
}

extern "C" __global__ void step_and_set(long long* left, cudaGraphConditionalHandle handle) {
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        long long now = left[0] - 1;
        left[0] = now;
        cudaGraphSetConditional(handle, now > 0 ? 1u : 0u);
    }
}
"""


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks.launch_mechanisms", description=__doc__.splitlines()[0])
    p.add_argument("--calls", type=positive(int), default=15, help="operator calls a run (default 15: a one-row batch)")
    p.add_argument("--steps", type=positive(int), default=10, help="steps of the loop (default 10)")
    p.add_argument("--repeat", type=positive(int), default=2000, help="timed runs of each (default 2000)")
    p.add_argument("--gaps", type=gap_list, default=[],
                   help="idle gaps in ms before each run of the calls, both ways (e.g. 1,20,50; default none)")
    p.add_argument("--gap-repeat", type=positive(int), default=30, help="timed runs a gap (default 30)")
    p.add_argument("--out", help="write the figures here as JSON")
    return p.parse_args(argv)


def gap_list(text):
    """``"0,20,50"`` -> ``[0.0, 20.0, 50.0]`` (milliseconds, none negative)."""
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        values = []
    if not values or min(values) < 0:
        raise argparse.ArgumentTypeError(f"expected milliseconds separated by commas, got {text!r}")
    return values


def median_after_gaps(runs, gaps_ms, repeat):
    """``{gap_ms: {name: median microseconds}}`` of each of ``runs`` (``{name: run}``),
    each timed run after sleeping the gap; the runs alternate, so a gap's
    figures share its conditions (a gap of 0 sleeps not at all).

    >>> out = median_after_gaps({"noop": lambda: None}, [0.0, 1.0], 3)
    >>> sorted(out), 0 <= out[1.0]["noop"] < 1e3
    ([0.0, 1.0], True)
    """
    out = {}
    for gap in gaps_ms:
        times = {name: [] for name in runs}
        for _ in range(repeat):
            for name, run in runs.items():
                if gap:
                    time.sleep(gap / 1e3)
                start = time.perf_counter()
                run()
                times[name].append((time.perf_counter() - start) * 1e6)
        out[gap] = {name: float(np.median(t)) for name, t in times.items()}
    return out


def mean_microseconds(run, repeat):
    """Mean microseconds of ``run()`` over ``repeat`` calls, after 20 untimed ones."""
    for _ in range(20):
        run()
    start = time.perf_counter()
    for _ in range(repeat):
        run()
    return (time.perf_counter() - start) / repeat * 1e6


def time_calls(cp, ops, stream, calls, repeat, gaps_ms=(), gap_repeat=30):
    """The ``calls`` mechanism (see the module docstring), and after ``gaps_ms``
    the ``gaps`` one: figures, or raises ``AssertionError`` where the replay
    leaves other values than Python's calls."""
    source = cp.arange(64, dtype=cp.int64)
    index = cp.arange(0, 64, 4, dtype=cp.int64)
    ones = cp.ones(index.size, dtype=cp.int64)
    target = cp.zeros(64, dtype=cp.int64)
    kinds = (lambda: ops.take(source, index), lambda: ops.put(target, index, index),
             lambda: ops.exchange(target, index, ones))

    def sequence():
        for k in range(calls):
            kinds[k % 3]()

    def python_calls():
        sequence()
        stream.synchronize()

    synchronise = mean_microseconds(stream.synchronize, repeat)
    python = mean_microseconds(python_calls, repeat)
    expected = target.get()
    target.fill(-1)
    start = time.perf_counter()
    stream.begin_capture()
    try:
        sequence()
    finally:
        graph = stream.end_capture()
    captured = (time.perf_counter() - start) * 1e6       # (once per shape a pipeline would replay)

    def replay():
        graph.launch(stream)
        stream.synchronize()

    replayed = mean_microseconds(replay, repeat)
    written, left = index.get(), target.get()          # (the capture ran nothing: the rest holds -1 still)
    assert (left[written] == expected[written]).all() and (np.delete(left, written) == -1).all(), \
        "the replayed calls left other values than the calls from Python"
    figures = {"calls": calls, "synchronize_us": synchronise, "python_us": python, "replayed_us": replayed,
               "capture_us": captured,
               "python_us_per_call": (python - synchronise) / calls,
               "replayed_us_per_call": (replayed - synchronise) / calls}
    if gaps_ms:
        after = median_after_gaps({"python_us": python_calls, "replayed_us": replay}, [0.0, *gaps_ms], gap_repeat)
        figures["after_gaps"] = [{"gap_ms": gap, **runs} for gap, runs in after.items()]
    return figures


def _checked(result):
    """The values of a ``cuda.bindings.runtime`` call's result, raising on its error code."""
    from cuda.bindings import runtime as rt

    error, *values = result if isinstance(result, tuple) else (result,)
    if error != rt.cudaError_t.cudaSuccess:
        raise RuntimeError(f"CUDA runtime: {error}")
    return values[0] if len(values) == 1 else values


def time_loop(cp, stream, steps, repeat):
    """The ``loop`` mechanism (see the module docstring): figures, or raises
    ``AssertionError`` where either loop ran another number of steps."""
    from cuda.bindings import runtime as rt

    module = cp.RawModule(code=LOOP_SOURCE, options=("-std=c++17",))
    step, step_and_set = module.get_function("step"), module.get_function("step_and_set")
    left = cp.zeros(1, dtype=cp.int64)
    pinned = cp.cuda.alloc_pinned_memory(8)
    host = np.frombuffer(pinned, np.int64, 1)

    def read_left():
        cp.cuda.runtime.memcpyAsync(host.ctypes.data, left.data.ptr, 8, cp.cuda.runtime.memcpyDeviceToHost,
                                    stream.ptr)
        stream.synchronize()
        return int(host[0])

    def host_loop():
        left.fill(steps)
        taken = 0
        while True:
            step((1,), (32,), (left,))
            taken += 1
            if read_left() <= 0:
                return taken

    graph = _checked(rt.cudaGraphCreate(0))
    handle = _checked(rt.cudaGraphConditionalHandleCreate(
        graph, 1, rt.cudaGraphConditionalHandleFlags.cudaGraphCondAssignDefault))
    params = rt.cudaGraphNodeParams()
    params.type = rt.cudaGraphNodeType.cudaGraphNodeTypeConditional
    params.conditional.handle = handle
    params.conditional.type = rt.cudaGraphConditionalNodeType.cudaGraphCondTypeWhile
    params.conditional.size = 1
    _checked(rt.cudaGraphAddNode(graph, None, None, 0, params))
    body = params.conditional.phGraph_out[0]
    _checked(rt.cudaStreamBeginCaptureToGraph(stream.ptr, body, None, None, 0,
                                              rt.cudaStreamCaptureMode.cudaStreamCaptureModeRelaxed))
    try:
        step_and_set((1,), (32,), (left, np.uint64(int(handle))))
    finally:
        _checked(rt.cudaStreamEndCapture(stream.ptr))
    executable = _checked(rt.cudaGraphInstantiate(graph, 0))

    def while_node():
        left.fill(steps)
        _checked(rt.cudaGraphLaunch(executable, stream.ptr))
        return steps - read_left()

    try:
        assert host_loop() == steps and while_node() == steps, "a loop ran another number of steps"
        looped = mean_microseconds(host_loop, repeat)
        node = mean_microseconds(while_node, repeat)
    finally:
        _checked(rt.cudaGraphExecDestroy(executable))
        _checked(rt.cudaGraphDestroy(graph))
    return {"steps": steps, "host_loop_us": looped, "while_node_us": node,
            "host_loop_us_per_step": looped / steps, "while_node_us_per_step": node / steps}


def main(argv=None):
    args = parse_args(argv)
    cp = cupy_with_a_device("launch_mechanisms")
    if cp is None:
        return 2
    from cugraph_stream.backends import get_backend

    ops = get_backend("gpu")
    figures = {"gpu": gpu_info(), "cupy": cp.__version__}
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        calls = figures["calls"] = time_calls(cp, ops, stream, args.calls, args.repeat, args.gaps, args.gap_repeat)
        write(f"{args.calls} operator calls: from Python {calls['python_us']:.1f} us a run "
              f"({calls['python_us_per_call']:.1f} a call), captured and replayed {calls['replayed_us']:.1f} us "
              f"({calls['replayed_us_per_call']:.1f} a call); a synchronisation alone {calls['synchronize_us']:.1f} us: "
              f"{calls['python_us'] / calls['replayed_us']:.1f}x; the capture itself {calls['capture_us']:.0f} us")
        for row in calls.get("after_gaps", []):
            write(f"  after {row['gap_ms']:g} ms idle (medians of {args.gap_repeat}): from Python "
                  f"{row['python_us']:.1f} us, replayed {row['replayed_us']:.1f} us: "
                  f"{row['python_us'] / row['replayed_us']:.1f}x")
        try:
            import cuda.bindings.runtime  # noqa: F401
        except ImportError as error:
            write(f"loop: skipped, cuda.bindings is not importable ({error})")
        else:
            loop = figures["loop"] = time_loop(cp, stream, args.steps, args.repeat)
            write(f"a loop of {args.steps} steps: the count read after each {loop['host_loop_us']:.1f} us "
                  f"({loop['host_loop_us_per_step']:.1f} a step), one WHILE node {loop['while_node_us']:.1f} us "
                  f"({loop['while_node_us_per_step']:.1f} a step): "
                  f"{loop['host_loop_us'] / loop['while_node_us']:.1f}x")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(figures, f, indent=1, default=json_default)
    return 0


if __name__ == "__main__":
    sys.exit(main())
