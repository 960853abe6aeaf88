"""Launcher of the CUDA sources in ``kernels/``: read by path, compiled by NVRTC
through CuPy's ``RawModule`` with every template instance named up front
(``name_expressions``), memoized per device.

Source lookup: an installed wheel carries the sources as
``cugraph_stream/kernels/*.cu``; a source checkout keeps them in the
repository's top-level ``kernels/``.
"""
from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

VALUE_TYPES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double",
               np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
WEIGHT_TYPES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double"}
EXTENDS = {"add": 0, "add_one": 1, "min": 2, "copy": 3}
ORDERS = {"min": 0, "max": 1}
RELAX_KERNELS = ("relax_thread", "relax_warp", "relax_block", "relax_arcs", "pull_warp", "pull_block",
                 "converge_block")
# (value dtype, extend, order) of the rules in cugraph_stream.algorithms.specs
RULE_INSTANCES = [(v, "add", "min") for v in ("float", "double")] + \
                 [("int", "add_one", "min")] + \
                 [(v, "min", "max") for v in ("float", "double")] + \
                 [("long long", "copy", "min")]


def kernels_dir():
    """Directory holding the ``.cu`` sources."""
    package = Path(__file__).resolve().parents[1]
    for candidate in (package / "kernels", package.parent / "kernels"):
        if (candidate / "relax.cu").exists():
            return candidate
    raise FileNotFoundError(f"CUDA sources not found under {package / 'kernels'} or {package.parent / 'kernels'}")


def relax_name(kernel, value_type, weight_type, extend, order):
    return f"{kernel}<{value_type}, {weight_type}, {EXTENDS[extend]}, {ORDERS[order]}>"


def relax_name_expressions():
    """Every relax/pull template instance the engine can ask for."""
    return ["bin_by_degree"] + [relax_name(k, v, w, e, o) for (v, e, o) in RULE_INSTANCES
                                for w in WEIGHT_TYPES.values() for k in RELAX_KERNELS]


SOURCES = {"relax": relax_name_expressions, "invalidate": lambda: ["invalidate_children", "invalidate_block"],
           "pagerank": lambda: ["pagerank_push", "bin_gather_lists", "gather_sum_thread", "gather_sum_warp",
                                  "gather_sum_block"],
           "hash_index": lambda: ["hash_find", "hash_claim"],
           "cache": lambda: ["copy_id_lists"] + [f"copy_value_lists<{w}>" for w in WEIGHT_TYPES.values()],
           "batch": lambda: [f"net_changes<{w}>" for w in WEIGHT_TYPES.values()],
           "adjacency": lambda: ["follow_moves"] + [f"{k}<{w}>" for k in ("close_holes", "place_entries",
                                                                          "relocate_lists")
                                                    for w in WEIGHT_TYPES.values()],
           "sets": lambda: ["distinct", "sorted_lookup", "merge_sorted"] + [f"record_changes<{v}>" for v in VALUE_TYPES.values()]}


@functools.lru_cache(maxsize=None)
def _module(source, device_id):
    import cupy

    path = kernels_dir() / f"{source}.cu"
    with cupy.cuda.Device(device_id):
        module = cupy.RawModule(code=path.read_text(), options=("-std=c++17", f"-I{kernels_dir()}"),
                                name_expressions=SOURCES[source]())
        module.compile()
    return module


def get_kernel(source, name):
    """The compiled kernel ``name`` (a template instance name) from ``source``.cu."""
    import cupy

    return _module(source, cupy.cuda.Device().id).get_function(name)
