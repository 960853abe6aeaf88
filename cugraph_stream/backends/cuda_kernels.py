"""Launcher of the CUDA sources in ``kernels/``: read by path, compiled by NVRTC
with every template instance named up front (``name_expressions``), memoized
per device (and kept on disk beside CuPy's kernel cache).

Subnormal numbers are kept (IEEE float32 arithmetic, as on the CPU backend).
CuPy compiles every kernel it builds at run time -- ``RawModule``,
``RawKernel``, ``ElementwiseKernel``, its ufuncs -- with ``-ftz=true`` appended
*after* the caller's options (``cupy.cuda.compiler._compile_with_cache_cuda``,
CuPy 9 to 14 at least), and NVRTC honours the last ``-ftz``: there a float32
addition, comparison, ``minimum`` or conversion (``cvt.ftz``) reads and writes
subnormals as 0 (seen on the H100 with CuPy 14.2), so a distance of 1e-45
came out 0.  The modules here are therefore compiled
through ``cupy.cuda.compiler.compile_using_nvrtc``, which adds no ``-ftz``,
with :data:`COMPILE_OPTIONS` (``-ftz=false``), and loaded with
``cupy.cuda.function.Module``.  float64 is never flushed (PTX has ``.ftz``
for ``.f32`` only).  :mod:`cugraph_stream.floats` converts and compares floats outside
these kernels without flushing (CuPy's ``astype`` and comparisons flush).

Source lookup: an installed wheel carries the sources as
``cugraph_stream/kernels/*.cu``; a source checkout keeps them in the
repository's top-level ``kernels/``.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os
import struct
import tempfile
from pathlib import Path

import numpy as np

from ..algorithms.rule import EXTENDS, ORDERS  # the rule codes, defined once there
from ..algorithms.specs import every_rule

VALUE_TYPES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double",
               np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
WEIGHT_TYPES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double"}
#: the unsigned words that kernels/arrays.cu moves elements of each width (bytes) as
WORD_TYPES = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long"}
#: the integer dtypes that kernels/arrays.cu converts between as it moves them (take_as, put_as, exchange_as):
#: the engine's ids (int64), slot pointers (uint32) and compact ids (int32)
CONVERTED_TYPES = {np.dtype(np.int32): "int", np.dtype(np.uint32): "unsigned int", np.dtype(np.int64): "long long"}
RELAX_KERNELS = ("relax_thread", "relax_warp", "relax_block", "relax_arcs", "correction_block", "pull_warp",
                 "pull_block", "converge_block", "converge_grid", "keep_ties_warp", "keep_ties_block")
#: (value type, extend, order) of every rule of :mod:`cugraph_stream.algorithms.specs`, each once;
#: every relax kernel is compiled for each of them and each weight type
RULE_INSTANCES = list(dict.fromkeys((VALUE_TYPES[np.dtype(rule.value_dtype)], rule.extend, rule.order)
                                    for rule in every_rule(WEIGHT_TYPES)))


def kernels_dir():
    """Directory holding the ``.cu`` sources."""
    package = Path(__file__).resolve().parents[1]
    for candidate in (package / "kernels", package.parent / "kernels"):
        if (candidate / "relax.cu").exists():
            return candidate
    raise FileNotFoundError(f"CUDA sources not found under {package / 'kernels'} or {package.parent / 'kernels'}")


def relax_name(kernel, value_type, weight_type, extend, order):
    """Name of a relax/pull template instance, e.g. ``relax_warp<float, float, 0, 0>``
    (``extend`` and ``order`` are a rule's, written as their codes)."""
    return f"{kernel}<{value_type}, {weight_type}, {EXTENDS[extend]}, {ORDERS[order]}>"


def relax_name_expressions():
    """Every relax/pull template instance the engine can ask for."""
    return ["bin_by_degree"] + [relax_name(k, v, w, e, o) for (v, e, o) in RULE_INSTANCES
                                for w in WEIGHT_TYPES.values() for k in RELAX_KERNELS]


#: the templated kernels of pagerank.cu (weight type, weighted or not)
PAGERANK_KERNELS = ("pagerank_push", "gather_sum_thread", "gather_sum_warp", "gather_sum_block")


def pagerank_name(kernel, weight_type, weighted):
    """Name of a pagerank.cu template instance, e.g. ``gather_sum_warp<float, 1>``."""
    return f"{kernel}<{weight_type}, {int(bool(weighted))}>"


#: the kernels of remove_entries (kernels/adjacency.cu): its four phases in one block, then one launch each
REMOVE_KERNELS = ("remove_entries_block", "remove_mark", "remove_reserve", "remove_pair", "remove_move")
#: the kernels of remove_arcs (kernels/adjacency.cu): the four phases in one block per adjacency, then each phase
#: of both in one launch
REMOVE_ARCS_KERNELS = ("remove_arcs_block", "remove_arcs_phase")
#: the kernels of place_arcs (kernels/adjacency.cu): both phases in one block per adjacency, then one launch each
PLACE_ARCS_KERNELS = ("place_arcs_block", "take_arc_tickets", "place_arc_tickets")


SOURCES = {"relax": relax_name_expressions,
           "invalidate": lambda: ["invalidate_children", "invalidate_block", "invalidate_grid"],
           "pagerank": lambda: ["bin_gather_lists", "block_sums", "block_deviations", "spread_amounts",
                                "correct_sources", "correct_arcs", "masked_sums", "tally_arcs",
                                "correct_tallied", "spread_tallied", "clear_tallied"] + [
               pagerank_name(k, w, weighted) for k in PAGERANK_KERNELS
               for w in WEIGHT_TYPES.values() for weighted in (False, True)],
           "bfs": lambda: ["bfs_mark_frontier", "bfs_top_down", "bfs_bottom_up"],
           "hash_index": lambda: ["hash_find", "hash_claim", "arc_find", "arc_claim", "arc_locate", "arc_locate_moved",
                                  "follow_twins"] + [f"arc_erase<{w}>" for w in WEIGHT_TYPES.values()],
           "cache": lambda: ["copy_id_lists", "uncache_lists", "recache_in_place"] + [
               f"{k}<{w}>" for k in ("copy_value_lists", "copy_to_chunks") for w in WEIGHT_TYPES.values()],
           "batch": lambda: ["net_group", "arc_keys"] + [
               f"{k}<{w}>" for k in ("net_changes", "net_walk", "net_rows_block") for w in WEIGHT_TYPES.values()],
           "single_row": lambda: [f"apply_single_row<{w}>" for w in WEIGHT_TYPES.values()],
           "validate": lambda: [f"check_rows<{w}>" for w in WEIGHT_TYPES.values()],
           "reads": lambda: ["count_reads", "add_to_field"],
           "adjacency": lambda: ["take_tickets", "plan_block_sums", "plan_chunk_offsets", "plan_moves",
                                 "relocate_lists"] + [
               f"{k}<{w}>" for k in REMOVE_KERNELS + REMOVE_ARCS_KERNELS
               + ("place_tickets", "place_kept_tickets", "relocate_entries") + PLACE_ARCS_KERNELS
               for w in WEIGHT_TYPES.values()],
           "arrays": lambda: ([f"{k}<{t}>" for k in ("take", "put", "put_value", "exchange", "exchange_value")
                               for t in WORD_TYPES.values()]
                              + [f"{k}<{s}, {t}>" for k in ("take_as", "put_as", "exchange_as")
                                 for s in CONVERTED_TYPES.values() for t in CONVERTED_TYPES.values() if s != t]),
           "sets": lambda: (["distinct", "take_flagged_among", "sorted_lookup", "lookup_rows", "merge_sorted",
                             "compact_flags", "sorted_distinct_block", "block_offsets", "distinct_counts",
                             "distinct_sorted", "set_byte_counts", "set_byte_positions", "value_range", "mark_values",
                             "children_of", "weak_children_of", "enter_vertices"]
                            + [f"{k}<{v}>" for k in ("record_changes", "reached", "flag_reached", "reset_values")
                               for v in VALUE_TYPES.values()])}


#: NVRTC options of every module: C++17 and IEEE float32 (no flush to zero)
COMPILE_OPTIONS = ("-std=c++17", "-ftz=false")
#: version of the on-disk cache entries (bump when their layout changes)
_CACHE_FORMAT = b"cgs-nvrtc-1"


def _cache_dir():
    """Where compiled modules are kept (CuPy's kernel cache folder), or None
    (``CUPY_CACHE_IN_MEMORY=1``: nothing goes to disk)."""
    if os.environ.get("CUPY_CACHE_IN_MEMORY", "") not in ("", "0"):
        return None
    return Path(os.environ.get("CUPY_CACHE_DIR") or Path("~/.cupy/kernel_cache").expanduser())


def _cache_key(code, options, names):
    """Everything the compiled image depends on: the source and every header
    beside it (CuPy's own cache key leaves included headers out), the options,
    the instances, NVRTC, CuPy and the device."""
    import cupy

    digest = hashlib.sha256(_CACHE_FORMAT)
    headers = sorted(kernels_dir().glob("*.cuh"))
    device = cupy.cuda.Device()
    parts = [code, repr(options), repr(names), repr(cupy.cuda.nvrtc.getVersion()), cupy.__version__,
             device.compute_capability, os.environ.get("CUPY_COMPILE_WITH_PTX", "")]
    parts += [f"{h.name}\0{h.read_text()}" for h in headers]
    for part in parts:
        digest.update(part.encode() + b"\0\0")
    return digest.hexdigest()


def _load_cached(path, names):
    try:
        data = path.read_bytes()
        size = struct.unpack_from("<I", data, 0)[0]
        header = json.loads(data[4:4 + size])
        image = data[4 + size:]
    except (OSError, ValueError, struct.error):
        return None
    if sorted(header.get("mapping", {})) != sorted(names) or header.get("sha256") != hashlib.sha256(image).hexdigest():
        return None
    return image, header["mapping"]


def _store_cached(path, image, mapping):
    header = json.dumps({"mapping": mapping, "sha256": hashlib.sha256(image).hexdigest()}).encode()
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix="cgs_", delete=False) as out:
            temporary = out.name
            out.write(struct.pack("<I", len(header)) + header + image)
        os.replace(temporary, path)          # readers see a whole entry or none
    except OSError:                          # a read-only or full cache: compile again next time
        if temporary is not None:
            try:
                os.unlink(temporary)
            except OSError:
                pass


def _compile(code, options, names):
    """``(image, mapping)``: the module's cubin (or PTX) and each name's lowered name."""
    from cupy.cuda import compiler

    folder = _cache_dir()
    path = None if folder is None else folder / f"cgs_{_cache_key(code, options, names)}.bin"
    if path is not None:
        held = _load_cached(path, names)
        if held is not None:
            return held
    # not CuPy's compile_with_cache (RawModule): it appends -ftz=true (see the module docstring)
    image, mapping = compiler.compile_using_nvrtc(code, options, name_expressions=names)
    if isinstance(image, str):
        image = image.encode()
    mapping = {name: (lowered.decode() if isinstance(lowered, bytes) else lowered)
               for name, lowered in mapping.items()}
    if path is not None:
        _store_cached(path, image, mapping)
    return image, mapping


@functools.lru_cache(maxsize=None)
def _module(source, device_id):
    """``(module, mapping)`` of ``source``.cu on device ``device_id``."""
    import cupy
    from cupy.cuda import function

    folder = kernels_dir()
    with cupy.cuda.Device(device_id):
        image, mapping = _compile((folder / f"{source}.cu").read_text(), COMPILE_OPTIONS + (f"-I{folder}",),
                                  list(SOURCES[source]()))
        module = function.Module()
        module.load(image)
    return module, mapping


@functools.lru_cache(maxsize=None)
def _function(source, name, device_id):
    module, mapping = _module(source, device_id)
    return module.get_function(mapping[name])


_runtime = None     # cupy.cuda.runtime, once a kernel is asked for (the module imports without CuPy)


def get_kernel(source, name):
    """The compiled kernel ``name`` (a template instance name) from ``source``.cu,
    called as ``kernel(grid, block, args)``."""
    global _runtime
    if _runtime is None:
        from cupy.cuda import runtime
        _runtime = runtime
    return _function(source, name, _runtime.getDevice())     # (the current device, without a Device object)
