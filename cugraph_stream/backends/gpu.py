"""CuPy operators with the CUDA kernels of ``kernels/``: the GPU backend.

Plain array steps use CuPy; the graph operators launch the kernels through
:mod:`cugraph_stream.backends.cuda_kernels`.  The batch reduction and the
list updates are per-edge and per-list kernels.  Small push and
invalidation phases (the usual incremental batch) run whole in one thread
block, level after level (a warp per list, the whole block per hub list);
wider ones step by step, with frontiers as byte maps compacted after each
step (no atomics to enqueue, no duplicates).  Every per-list launch is
scheduled by degree (a thread, a warp or a block per list), so a hub never
leaves one warp reading its list alone.  Sets of vertex ids (distinct ids,
change records) are kept with per-vertex epoch stamps in one launch each.
A BFS from scratch (``bfs_levels``) runs level by level with the kernels of
``kernels/bfs.cu``: top-down levels claim neighbours with ``atomicCAS``,
bottom-up levels scan unvisited vertices' in-lists against a frontier bitmap
and stop at the first parent.  Only sizes come back to the host.  Engines allocate from their own CuPy
memory pool (:func:`engine_memory_pool`), whatever CuPy's allocator is.

Kernels that read neighbour lists take per-vertex list addresses
(``nbr_at``, ``wgt_at``) rather than offsets into one array: a list lives in
the store's slot arrays (GPU memory, or pinned host memory read in place) or,
with placement ``"cached"``, in a chunk of the hot-list cache.  The
addresses are derived by one elementwise kernel and kept until the
adjacency's ``version`` changes.

Values keep their subnormals, as on the CPU: the kernels are compiled without
flush-to-zero (see :mod:`cugraph_stream.backends.cuda_kernels`, which also
says why CuPy's own float32 arithmetic cannot be), and no CuPy arithmetic,
comparison or conversion here touches a weight or a value (float conversions
go through :func:`~cugraph_stream.floats.exact_astype`).
"""
from __future__ import annotations

import ctypes
import functools
import weakref

import numpy as np

from ..arrays import is_cupy
from ..chunk_layout import PACKED_IDS_TAG
from ..floats import exact_astype
from . import cuda_kernels
from .base import (DEVICE_CALLS, EMPTY_SLOT, HOST_READ_BANDWIDTH_PRIOR, MIN_LIST_SLOTS, READ_UNIT_BYTES,
                   SINGLE_ROW_TREES, SLOT_DTYPE, SR_WEIGHTS, SR_WORDS, AdjacencyLists, ArcTableBuilder, Backend,
                   Counted, Known, MovePlan, NetChanges, Placement, RemovedEntries, Replaced, SingleRow, marks_fit)
from .chunks import DeviceChunkAllocator
from .pinned import pinned_host_array
from .rows import INSERT, RowCheck, RowSummary

#: bits of the fault word (:meth:`GPUBackend._fault_word`) and what :meth:`GPUBackend.synchronize` raises for each
DEVICE_FAULTS = {1: (KeyError, "arc_locate: an arc is not in the index at its slot"),
                 2: (RuntimeError, "place_entries: a list given room for its rows (must_fit) lacks it"),
                 4: (RuntimeError, "converge or invalidate: a block of a grid-wide kernel never reached its barrier")}
#: the fault bit of a grid barrier that timed out (kernels/common.cuh cgs::grid_sync)
_GRID_SYNC_FAULT = 4

_THREADS = 256
_STAGING_BYTES = 4 << 20      # batches up to here reach the device through a pinned staging buffer
_SMALL_DEGREE = 32      # below: a thread per vertex
_LARGE_DEGREE = 1024    # from here: a block per vertex; between: a warp
_ONE_LAUNCH_FRONTIER = 2048   # up to here: one launch, a block per vertex, no binning
_FUSED_THREADS = 1024         # the one block that runs whole small phases (converge, invalidate)
_FUSED_LEVEL_LIMIT = 4096     # a wider level goes to the grid-wide kernels
#: seeds of a count left on the device that the one-block invalidations take, however many
#: of them there are (a first level wider than _FUSED_LEVEL_LIMIT goes on to the grid)
_COUNTED_SEEDS_LIMIT = 16 * _FUSED_LEVEL_LIMIT
_FUSED_QUEUE_LIMIT = 1 << 20  # activated vertices one fused push phase may log
_GRID_HUBS = 1 << 14          # hub lists one level of the grid-wide push sets aside for whole blocks
_COUNT_READS_BLOCKS = 1024      # most blocks of count_reads (each adds its sums to the counts once)
_HUB_THREADS = 1024           # threads per list of the re-seeding (pull) of hubs
_PUSH_SEGMENT = 1024          # list entries one warp of a PageRank push sends to
_DEVIATION_BLOCKS = 512       # most blocks (partial sums) of l1_deviation's passes
_ONE_BLOCK_COMPACTION = 1 << 16   # masks up to here are compacted by one block, in one launch
#: values :meth:`GPUBackend.sorted_distinct` sorts in one block (kernels/sets.cu SORT_BLOCK)
_ONE_BLOCK_SORT = 4096
_RANGE_BLOCKS = 1024              # most blocks of value_range (each warp takes two atomic maxima)
_SIGN_BIT = np.uint64(1 << 63)    # flips between an int64's bits and its order-preserving unsigned key
_MOST_MARKS = 1 << 24             # the largest byte map sorted_distinct marks (16K chunks)
_PLAN_THREADS = 1024              # the block of plan_moves (PLAN_THREADS in kernels/adjacency.cu)
_ONE_BLOCK_PLAN = 1 << 16         # lists whose moves one block plans; more take a block a chunk
_PLAN_COLUMNS = 6                 # the columns plan_moves scans per list (PLAN_COLUMNS in kernels/adjacency.cu)
_ONE_BLOCK_REMOVE = 1 << 12       # rows that remove_entries removes in one block, in one launch
_ONE_BLOCK_PLACE = 1 << 12        # rows that place_arcs places in one block per adjacency, in one launch
_ONE_BLOCK_CORRECTION = 1 << 12   # candidates that correction_frontier collects in one block, in one launch
_NET_ROWS_BLOCK = 64              # rows net_changes_of_ends reduces in one block (kernels/batch.cu's NET_ROWS_BLOCK)
_NET_ROWS_THREADS = 128
_CORRECTION_GROUPS = 4            # the arc groups correction_block relaxes (kernels/relax.cu)
_NO_WEIGHTS = np.empty(0, np.float32)   # (the weight type of a correction_block without arcs: any)
_REMOVE_BLOCK_THREADS = 1024
_CHECK_ROWS_BLOCKS = 1024     # blocks of a check_rows launch at most (a grid-stride loop beyond)
_SPARE_EVENTS = 64            # CUDA events given back (release_marks) that mark hands out again

#: the column types kernels/validate.cu reads (its ColumnType codes)
_COLUMN_TYPES = {np.dtype(t): code for code, t in enumerate(
    (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64, np.float32, np.float64))}
_COLUMN_NONE = len(_COLUMN_TYPES)


def _column_type(values):
    """The ColumnType code of a 1-D CuPy array that ``kernels/validate.cu`` reads, else None."""
    if not is_cupy(values) or values.ndim != 1:
        return None
    return _COLUMN_TYPES.get(values.dtype)


# Every CuPy call costs the host 1.5-5 us (timed alone on a lent H200; see
# docs/batch-pipeline.md), and a batch makes dozens; these two stand in for
# calls that do no work: a conversion to the dtype an array already has, and
# the slices and views of one allocation.
_INT64 = np.dtype(np.int64)
_FLOAT64 = np.dtype(np.float64)


def _int64(array):
    """``array.astype(int64, copy=False)``: the array itself where it is int64
    already (a dtype comparison, where ``astype`` is a CuPy call)."""
    return array if array.dtype == _INT64 else array.astype(_INT64)


def _vertex_lookup(keys, values):
    """A vertex lookup's three kernel arguments (``cgs::vertex_id``): the sorted
    external ids ``keys``, their internal ids ``values`` and their number; or,
    where ``values`` is None, the dense map ``keys`` (int32), a null pointer and
    the map's size."""
    if values is None:
        return (keys if keys.dtype == np.int32 else keys.astype(np.int32)), np.uint64(0), np.int64(keys.size)
    return keys, values, np.int64(keys.size)


def _float64(array):
    """``array.astype(float64, copy=False)``, as :func:`_int64`."""
    return array if array.dtype == _FLOAT64 else array.astype(_FLOAT64)


def _carve(buffer, offset, size, dtype):
    """``size`` items of ``dtype`` from byte ``offset`` of contiguous device array
    ``buffer``'s memory, as a 1-D array (what slicing and viewing ``buffer``
    give, made directly: one CuPy call instead of two or three); it keeps the
    memory alive as a slice would."""
    return type(buffer)((size,), dtype=dtype, memptr=buffer.data + offset)


def _carved(xp, *parts):
    """Arrays of ``(size, dtype)`` each, carved in order out of one allocation
    (each at an 8-byte boundary): one CuPy allocation where each part would
    cost one."""
    offsets, total = [], 0
    for size, dtype in parts:
        total += -total % 8
        offsets.append(total)
        total += size * np.dtype(dtype).itemsize
    buffer = xp.empty(-(-total // 8), dtype=xp.int64)
    return [_carve(buffer, at, size, dtype) for (size, dtype), at in zip(parts, offsets)]


def engine_memory_pool():
    """The CuPy memory pool every GPU engine of this process allocates from."""
    import cupy

    return _engine_pool(cupy)


@functools.cache
def _measure_host_read_bandwidth(cupy, segments=1 << 16, span_bytes=64 << 20):
    """Bytes per second of a kernel reading random 128-byte segments of pinned host
    memory in place (a gather of ``segments`` whole segments out of ``span_bytes``),
    the best of three timed runs after a warm-up; :data:`HOST_READ_BANDWIDTH_PRIOR`
    if the measurement fails.  A few milliseconds, once per process."""
    try:
        words = 128 // 4
        host = pinned_host_array(cupy, span_bytes // 4, np.int32, 4096)
        host.fill(1)
        rng = np.random.default_rng(0)
        first = rng.integers(0, span_bytes // 128, segments, dtype=np.int64) * words
        index = cupy.asarray((first[:, None] + np.arange(words)).ravel())
        best = 0.0
        for run in range(4):
            start, end = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
            total = host[index].sum()
            end.record()
            end.synchronize()
            if run and int(total) == index.size:
                best = max(best, segments * 128 / (cupy.cuda.get_elapsed_time(start, end) / 1e3))
        return best or HOST_READ_BANDWIDTH_PRIOR
    except Exception:       # a measurement that cannot run leaves the prior
        return HOST_READ_BANDWIDTH_PRIOR


#: device bytes a bulk load's range takes per row at its peak (the rows read as
#: int64 ids, selected, reduced, sorted by key and by target, their arcs' keys
#: and slots), with room to spare for the allocator's rounding
BULK_LOAD_BYTES_PER_ROW = 192


@functools.cache
def _engine_pool(cupy):
    return cupy.cuda.MemoryPool()


@functools.cache
def _list_addresses_kernel(cupy):
    """Per vertex: where its list's neighbours and weights are (cache or store).  A
    chunk's neighbour address carries the packed-ids tag (bit 63) when the cache
    stores 3-byte ids (``nbr_item`` 3); adding an offset keeps it."""
    return cupy.ElementwiseKernel(
        "int64 start, raw bool in_cache, raw int32 chunk, raw int32 offset, raw uint64 chunk_nbr, "
        "raw uint64 chunk_wgt, int64 cached, bool cached_weights, uint64 nbr_item, uint64 nbr_base, "
        "uint64 wgt_base, uint64 wgt_item",
        "uint64 nbr_at, uint64 wgt_at",
        """
        bool hit = i < cached && in_cache[i];
        unsigned long long o = hit ? offset[i] : 0;
        nbr_at = hit ? chunk_nbr[chunk[i]] + nbr_item * o : nbr_base + 4ull * (unsigned long long)start;
        wgt_at = hit && cached_weights ? chunk_wgt[chunk[i]] + wgt_item * o
                                       : wgt_base + wgt_item * (unsigned long long)start;
        """,
        "cgs_list_addresses")


@functools.cache
def _shift_fields_kernel(cupy):
    """``out = (words << shift) & mask`` in one pass (:meth:`Backend.shift_fields`)."""
    return cupy.ElementwiseKernel("uint32 words, uint32 shift, uint32 mask", "uint32 out",
                                  "out = (words << shift) & mask", "cgs_shift_fields")


def _ids_address(nbr):
    """A neighbour array's address for kernels reading ``cgs::Neighbours``: tagged when
    the ids are packed (a cache chunk's ``uint8`` rows of 3)."""
    return np.uint64(nbr.data.ptr | (PACKED_IDS_TAG if nbr.ndim == 2 else 0))


def _converted(source, target):
    """``"S, T"``, the C types of the ``kernels/arrays.cu`` instances (``take_as``,
    ``put_as``, ``exchange_as``) converting integer dtype ``source`` to
    ``target``, or None (the same dtype, or a pair without instances)."""
    if source == target:
        return None
    types = cuda_kernels.CONVERTED_TYPES
    if source not in types or target not in types:
        return None
    return f"{types[source]}, {types[target]}"


def _blocks(threads):
    return (max(int(threads), 1) + _THREADS - 1) // _THREADS


def _slice_or_index(xp, index, length):
    """``(first, None)`` for a slice of step 1 of an array of ``length`` entries (its
    entries from ``first`` on), ``(None, int64 index)`` for an index array, ``(None,
    None)`` for another slice."""
    if isinstance(index, slice):
        start, _, step = index.indices(length)
        return (start, None) if step == 1 else (None, None)
    return None, _int64(index)


@functools.cache
def _multiprocessors(device_id):
    """The multiprocessors of CUDA device ``device_id`` (a grid-wide kernel runs a block on each)."""
    import cupy

    multiprocessor_count = 16       # cudaDevAttrMultiProcessorCount (Device.attributes reads every attribute)
    return int(cupy.cuda.runtime.deviceGetAttribute(multiprocessor_count, device_id))


def _check_slot_pointers(array):
    """Kernels read slot pointers as ``unsigned int``: refuse another dtype
    (an int64 array would be read as pairs of halves)."""
    if array is not None and array.dtype != SLOT_DTYPE:
        raise TypeError(f"slot pointers must be {SLOT_DTYPE}, got {array.dtype}")


#: cudaPointerAttributes.type of host memory (cudaMemoryTypeHost, driver_types.h)
_MEMORY_TYPE_HOST = 1


def _in_host_memory(xp, array):
    """Whether ``array`` lies in host memory that kernels read in place (placement ``host``)."""
    return xp.cuda.runtime.pointerGetAttributes(array.data.ptr).type == _MEMORY_TYPE_HOST


class _DeviceArcTableBuilder(ArcTableBuilder):
    """Claims without recording where each arc went, into a device copy when the
    table is host memory; :meth:`finish` copies it there."""

    def enter(self, keys, slots):
        self.ops._arc_claim(self.table, keys, slots)

    def finish(self):
        if self.table is not self.target:
            self.target.data.copy_from_device_async(self.table.data, self.target.nbytes)
            self.table = self.target


def _row_summary(host):
    """The :class:`RowSummary` of ``check_rows``' three summary words (kernels/validate.cu)."""
    return RowSummary(bool(host[0]), float(host[1:2].view(np.float64)[0]), bool(host[2]))


def _first_int(host):
    """The first word of a host copy, as a Python int (a count read later)."""
    return int(host[0])


def _copied_from(host, word, array):
    """A host copy of device array ``array`` from the pinned words ``host``, into which
    :meth:`GPUBackend._wait_for_copies` copied it from ``word`` on."""
    return host[word:word + -(-array.nbytes // 8)].view(array.dtype)[:array.size].copy()


def _block_sums(parts, groups, host):
    """The sums of ``groups`` runs of ``parts`` float64 words each at the start of
    ``host``: a kernel's per-block partial sums (``parts`` blocks), as a wait
    copied them, each run added up in order."""
    values = host.view(np.float64)[:groups * parts]
    return [float(values[i * parts:(i + 1) * parts].sum()) for i in range(groups)]


def _round_sums(parts, rounds, host):
    """``[sum of the amounts, sum of the dangling ones]`` over ``rounds`` records of
    kernels/pagerank.cu's ``spread_amounts`` (``parts`` blocks) at the start of ``host``."""
    width = 1 + 2 * parts
    records = host.view(np.float64)[:rounds * width].reshape(rounds, width)
    sums = [_block_sums(parts, 2, record[1:]) for record in records]
    return [sum(added for added, _ in sums), sum(held for _, held in sums)]


class _LaterRead:
    """A small device array read to the host with its backend's next wait
    (:meth:`GPUBackend._wait_for_copies`, which every count, scalar and
    kept-size read goes through) instead of a wait of its own; :meth:`get`
    gives ``convert`` of its host copy, and waits (counted) only where no
    such wait came first, so counts never depend on the device's speed."""

    def __init__(self, backend, array, convert):
        self._backend, self._array, self._convert, self._value = backend, array, convert, None

    def get(self):
        """``convert`` of the array's host copy (made once)."""
        if self._value is None:
            self._backend._wait_for_copies([])      # (reads every read still waiting: this one too)
            DEVICE_CALLS.syncs += 1
            if self._value is None:                 # (dropped by a wait that failed)
                self._take(self._array.get())
        return self._value

    def _take(self, host):
        """Keep ``convert`` of ``host``, the array's words copied to the host."""
        self._value, self._array = self._convert(host), None


class GPUBackend(Backend):
    """Operators on CuPy arrays in GPU memory (see the module docstring)."""

    name = "gpu"
    has_device_memory = True
    #: place_entries takes tickets per list (kernels/adjacency.cu): rows need no sort by owner
    place_entries_any_order = True
    #: each kernels/*.cu module is compiled by NVRTC (or read from the disk cache) on its first
    #: use in a process, as are CuPy's own kernels: 165 ms in the first 10,000-row PageRank batch
    #: on a lent H100, which the cost model then took for the incremental path's cost
    loads_kernels_lazily = True

    @classmethod
    def unavailable_reason(cls):
        """Why the GPU backend cannot run here, or None."""
        try:
            import cupy
        except ImportError as error:
            return f"CuPy is not installed ({error})"
        try:
            count = cupy.cuda.runtime.getDeviceCount()
        except Exception as error:   # CUDA driver missing or broken
            return f"CuPy finds no CUDA device ({error})"
        return None if count else "CuPy finds no CUDA device"

    def __init__(self):
        import cupy

        self.xp = cupy
        self._faults = None
        self._staging_buffer = self._staged = None     # see _staging
        self._counts_read = None                        # see _count_buffer
        self._riders = []                               # see _read_later
        self._spare_events = []                         # see mark
        self.discard_scratch()

    def __reduce__(self):
        # a copy of a graph gets operators of its own: scratch is made afresh as needed
        return (GPUBackend, ())

    def discard_scratch(self):
        self._scratches = {}
        self._epoch = 0          # the last epoch handed out for the "stamp" scratch (see kernels/sets.cu)
        self._addresses = weakref.WeakKeyDictionary()   # adjacency -> (version, nbr_at, wgt_at)

    # ------------------------------------------------------------------ memory
    def asarray(self, array, dtype=None):
        return self.xp.asarray(array, dtype=dtype)

    def asarrays(self, *arrays):
        # one copy of host arrays packed at 8-byte aligned offsets, then typed views
        if any(not isinstance(a, np.ndarray) for a in arrays):
            return [self.asarray(a) for a in arrays]
        offsets, total = [], 0
        for a in arrays:
            total += -total % 8
            offsets.append(total)
            total += a.nbytes
        staged = total <= _STAGING_BYTES
        packed = self._staging(total) if staged else np.empty(total, dtype=np.uint8)
        for a, at in zip(arrays, offsets):
            packed[at:at + a.nbytes] = np.ascontiguousarray(a).reshape(-1).view(np.uint8)
        if staged:      # from pinned memory the copy is queued, not waited for
            device = self.xp.empty(total, dtype=np.uint8)
            stream = self.xp.cuda.get_current_stream()
            runtime = self.xp.cuda.runtime
            if total:
                runtime.memcpyAsync(device.data.ptr, packed.ctypes.data, total, runtime.memcpyHostToDevice,
                                    stream.ptr)
            self._staged.record(stream)
        else:
            device = self.xp.asarray(packed)
        # typed arrays over the copy's memory (cheaper than slicing and viewing it)
        ndarray, base = self.xp.ndarray, device.data
        return [ndarray(a.shape, dtype=a.dtype, memptr=base + at) for a, at in zip(arrays, offsets)]

    def _staging(self, nbytes):
        """The first ``nbytes`` of a reusable buffer of pinned host memory, once the
        copy queued from it last (:meth:`asarrays`) has run (long since, as a rule:
        every transaction synchronises before it ends)."""
        held = self._staging_buffer
        if held is None or held.size < nbytes:
            size = max(nbytes, 1 << 16, 0 if held is None else 2 * held.size)
            memory = self.xp.cuda.alloc_pinned_memory(size)
            self._staging_buffer = held = np.frombuffer(memory, dtype=np.uint8, count=size)
            self._staged = self.xp.cuda.Event(disable_timing=True)
        elif not self._staged.done:      # (a query; a wait only for two copies in one transaction)
            DEVICE_CALLS.syncs += 1
            self._staged.synchronize()
        return held[:nbytes]

    def to_host(self, array):
        return self.xp.asnumpy(array)

    def join(self, arrays):
        # one queued copy per part into one allocation (any memory: cudaMemcpyDefault)
        xp = self.xp
        arrays = list(arrays)
        dtype = arrays[0].dtype if arrays else None
        if not arrays or any(type(a) is not xp.ndarray or a.ndim != 1 or a.dtype != dtype for a in arrays):
            return xp.concatenate(arrays)
        out = xp.empty(sum(int(a.size) for a in arrays), dtype=dtype)
        self._copy_into(out, arrays)
        return out

    def _copy_into(self, out, arrays):
        """The 1-D arrays one after another at the start of contiguous ``out`` (of
        their dtype): one queued copy each, in any memory (cudaMemcpyDefault),
        where CuPy's assignment launches a kernel."""
        xp = self.xp
        stream = xp.cuda.get_current_stream().ptr
        copy, kind, at = xp.cuda.runtime.memcpyAsync, xp.cuda.runtime.memcpyDefault, out.data.ptr
        for a in arrays:
            if a.size:
                a = xp.ascontiguousarray(a)
                copy(at, a.data.ptr, a.nbytes, kind, stream)
                at += a.nbytes

    def aligned_empty(self, n, dtype, align=4096, memory="device"):
        if memory == "host":
            return pinned_host_array(self.xp, int(n), dtype, align)
        # CuPy's pool hands out 512-byte aligned blocks: every 128-byte
        # boundary of a list start is a boundary in device memory too
        return self.xp.empty(int(n), dtype=dtype)

    def host_read_bandwidth(self):
        """Measured once per process (see :func:`_measure_host_read_bandwidth`)."""
        return _measure_host_read_bandwidth(self.xp)

    def bulk_load_rows(self, reserved_bytes=0):
        """From the device memory free now (and held free by the engine's pool), at
        :data:`BULK_LOAD_BYTES_PER_ROW`."""
        free, _ = self.xp.cuda.Device().mem_info
        free += _engine_pool(self.xp).free_bytes()
        return max((free - reserved_bytes) // BULK_LOAD_BYTES_PER_ROW, 1 << 20)

    def release_cached_memory(self):
        _engine_pool(self.xp).free_all_blocks()

    def allocation_scope(self):
        # the engines' own CuPy pool, whatever CuPy's allocator is: cuDF, on
        # import, points it at RMM, whose Python hook per allocation (and,
        # without an RMM pool, a cudaMalloc and cudaFree) doubled the time
        # of a batch
        return self.xp.cuda.using_allocator(_engine_pool(self.xp).malloc)

    def synchronize(self):
        """Wait for the queued work, then raise what a kernel reported broken (see :meth:`_fault_word`)."""
        broken = self._wait_for_faults()
        if broken:
            raise broken[0][0]("; ".join(message for _, message in broken))

    def discard_faults(self):
        return [message for _, message in self._wait_for_faults()]

    def _wait_for_faults(self):
        """Wait for the queued work; return the :data:`DEVICE_FAULTS` entries its kernels set, cleared."""
        self.xp.cuda.get_current_stream().synchronize()
        if self._faults is None or not self._faults[1][0]:
            return []
        bits, self._faults[1][0] = int(self._faults[1][0]), 0
        return [fault for bit, fault in DEVICE_FAULTS.items() if bits & bit]

    def _fault_word(self):
        """A word of pinned, mapped host memory where kernels set :data:`DEVICE_FAULTS`
        bits when they meet a broken invariant they cannot stop at (a kernel
        cannot raise): the host reads it after the next :meth:`synchronize`,
        without a copy, and raises there (the transaction then rolls back).
        Returns the device view (passed to kernels)."""
        if self._faults is None:
            device = pinned_host_array(self.xp, 1, np.uint32, 64)
            host = np.ctypeslib.as_array((ctypes.c_uint32 * 1).from_address(device.data.ptr))
            host[0] = 0
            self._faults = (device, host)
        return self._faults[0]

    def mark(self):
        # timing enabled: records when the queue reaches it (an event given back, or a new
        # one; list.pop is atomic where graphs sharing this backend apply from two threads)
        try:
            event = self._spare_events.pop()
        except IndexError:
            event = self.xp.cuda.Event()
        event.record()
        return event

    def release_marks(self, marks):
        self._spare_events.extend(marks[:max(_SPARE_EVENTS - len(self._spare_events), 0)])

    def elapsed(self, start, end):
        return self.xp.cuda.get_elapsed_time(start, end) / 1e3

    def memory_bytes(self, *arrays):
        return int(sum(a.nbytes for a in arrays if a is not None))

    def chunk_allocator(self, capacity_bytes=None, **options):
        return DeviceChunkAllocator(pool_bytes=capacity_bytes, **options)

    def _flag(self, name, bound):
        """A zeroed byte map of at least ``bound`` entries; callers re-zero what they set."""
        return self._scratch(name, bound, self.xp.uint8, zeroed=True)

    def _scratch(self, name, size, dtype, zeroed=False):
        """A reusable array of at least ``size`` entries (``zeroed``: callers leave it zero)."""
        array = self._scratches.get(name)
        if array is None or array.size < size:
            size = max(int(size), 0 if array is None else 2 * array.size)
            array = self.xp.zeros(size, dtype=dtype) if zeroed else self.xp.empty(size, dtype=dtype)
            self._scratches[name] = array
        return array

    def _stamps(self, bound, spare=0):
        """``(stamp, epoch)``: per-vertex stamps for at least ``bound`` vertices
        and an epoch none of them holds yet (see ``kernels/sets.cu``), nor
        any of the ``spare`` epochs after it: a caller that stamps with those
        too adds how many it used to ``self._epoch``."""
        stamp = self._scratches.get("stamp")
        if stamp is None or stamp.size < bound:
            size = max(int(bound), 0 if stamp is None else 2 * stamp.size)
            self._scratches["stamp"] = stamp = self.xp.zeros(size, dtype=self.xp.uint32)
            self._epoch = 0
        elif self._epoch + spare >= 0xFFFFFFFF:         # (the epochs would wrap: start over, in place)
            self._set_bytes(stamp, 0)
            self._epoch = 0
        self._epoch += 1
        return stamp, np.uint32(self._epoch)

    def _set_bytes(self, array, byte):
        """Every byte of contiguous ``array`` set to ``byte`` (0: zeros, 0xFF: integer -1s),
        queued: one memset, where CuPy's ``fill`` launches a kernel."""
        if array.size:
            self.xp.cuda.runtime.memsetAsync(array.data.ptr, byte, array.nbytes,
                                             self.xp.cuda.get_current_stream().ptr)

    def _kept(self, out, kept):
        """The first ``kept[0]`` entries of 1-D contiguous ``out`` (one copy to the host;
        the array made directly, as :func:`_carve` does, not by slicing)."""
        return _carve(out, 0, int(self._fetch(kept)[0]), out.dtype)

    def _lists(self, adj: AdjacencyLists):
        """``(nbr_at, wgt_at)``: per vertex, the device addresses of its
        neighbours and weights (in the store, in device or pinned host
        memory, or in the adjacency's cache), recomputed when ``adj.version``
        changes (the adjacency bumps it whenever a list may start elsewhere)."""
        cache = adj.cache
        held = self._addresses.get(adj)
        if held is not None and held[0] == adj.version:
            return held[1], held[2]
        xp = self.xp
        n = int(adj.start.size)
        nbr_at, wgt_at = xp.empty(n, dtype=xp.uint64), xp.empty(n, dtype=xp.uint64)
        if cache is None:       # (zeros, never read when nothing is cached; kept, not made each time)
            in_cache = self._scratch("no_cache_flags", 1, xp.bool_, zeroed=True)
            chunk = offset = self._scratch("no_cache_ints", 1, xp.int32, zeroed=True)
            chunk_nbr = chunk_wgt = self._scratch("no_cache_addresses", 1, xp.uint64, zeroed=True)
        else:
            in_cache, chunk, offset = cache.in_cache, cache.chunk_id, cache.chunk_offset
            chunk_nbr, chunk_wgt = cache.nbr_pointers, cache.wgt_pointers
        if n:
            cached = np.int64(0 if cache is None else in_cache.size)
            cached_weights = np.bool_(cache is not None and cache.weights)
            nbr_item = np.uint64(4 if cache is None else cache.id_bytes)
            _list_addresses_kernel(xp)(
                adj.start, in_cache, chunk, offset, chunk_nbr, chunk_wgt, cached, cached_weights, nbr_item,
                np.uint64(adj.nbr.data.ptr), np.uint64(adj.wgt.data.ptr), np.uint64(adj.wgt.itemsize), nbr_at, wgt_at)
        self._addresses[adj] = (adj.version, nbr_at, wgt_at)
        return nbr_at, wgt_at

    def compress(self, mask, *arrays):
        if mask.size > _ONE_BLOCK_COMPACTION:
            return super().compress(mask, *arrays)
        xp = self.xp
        where, kept = xp.empty(mask.size, dtype=xp.int64), xp.zeros(1, dtype=xp.uint64)
        if mask.size:
            cuda_kernels.get_kernel("sets", "compact_flags")(
                (1,), (_FUSED_THREADS,), (xp.ascontiguousarray(mask, dtype=xp.bool_), np.int64(mask.size), where, kept))
        where = self._kept(where, kept)
        return [a[where] for a in arrays]

    def sorted_distinct(self, values):
        return self.sorted_distinct_range(values)[0]

    def sorted_distinct_range(self, values):
        # up to SORT_BLOCK values: one block sorts and dedupes them, its count and
        # range read together; more: their range first, then ids dense enough
        # (marks_fit, up to 16 bytes a value: the map is read twice, a byte a thread,
        # where a sort moves 8-byte keys through eight radix passes) are marked in a
        # byte map (of at most _MOST_MARKS bytes) whose set bytes come out in order;
        # others go to CuPy's sort; then a block a chunk counts the distinct ones,
        # one block turns the counts into the chunks' offsets, and a block a chunk
        # compacts them (_compacted, kernels/sets.cu).
        xp = self.xp
        if values.size == 0:
            return xp.empty(0, dtype=xp.int64), None, None
        if values.size <= _ONE_BLOCK_SORT:
            out, kept = xp.empty(values.size, dtype=xp.int64), xp.empty(3, dtype=xp.uint64)
            cuda_kernels.get_kernel("sets", "sorted_distinct_block")(
                (1,), (_FUSED_THREADS,), (xp.ascontiguousarray(values, dtype=xp.int64), np.int64(values.size), out,
                                          kept))
            count, lowest, highest = self._fetch(kept).view(np.int64).tolist()
            return _carve(out, 0, count, out.dtype), lowest, highest
        values = xp.ascontiguousarray(_int64(values))
        n = np.int64(values.size)
        blocks = (min(_blocks(values.size), _RANGE_BLOCKS),)
        span = xp.zeros(2, dtype=xp.uint64)
        cuda_kernels.get_kernel("sets", "value_range")(blocks, (_THREADS,), (values, n, span))
        keys = span.get()                       # (the least's key complemented, the greatest's key)
        DEVICE_CALLS.syncs += 1                 # (the range's read is a first wait)
        keys[0] = ~keys[0]
        low, high = (int(x) for x in (keys ^ _SIGN_BIT).view(np.int64))
        if marks_fit(low, high, values.size, per_value=16, most=_MOST_MARKS):
            flag = xp.zeros(high + 1, dtype=xp.uint8)
            cuda_kernels.get_kernel("sets", "mark_values")(blocks, (_THREADS,), (values, n, flag))
            return self._compacted("set_byte_counts", "set_byte_positions", flag, values.size), low, high
        return self._compacted("distinct_counts", "distinct_sorted", xp.sort(values), values.size), low, high

    def _compacted(self, count_kernel, write_kernel, items, most):
        """The values that the pair of kernels/sets.cu's ordered compaction kernels
        ``count_kernel``, ``write_kernel`` keep of ``items`` (at most ``most``), in
        order, a block of 1,024 items a chunk, the chunks' offsets scanned by one
        block between them (one copy to the host: their number)."""
        xp = self.xp
        n = np.int64(items.size)
        blocks = -(-items.size // _FUSED_THREADS)
        scratch = xp.empty(most + blocks + 1, dtype=xp.int64)
        out, counts, kept = scratch[:most], scratch[most:-1], scratch[-1:]
        cuda_kernels.get_kernel("sets", count_kernel)((blocks,), (_FUSED_THREADS,), (items, n, counts))
        cuda_kernels.get_kernel("sets", "block_offsets")((1,), (_FUSED_THREADS,), (counts, np.int64(blocks)))
        cuda_kernels.get_kernel("sets", write_kernel)((blocks,), (_FUSED_THREADS,), (items, n, counts, out, kept))
        return self._kept(out, kept)

    def _take_flagged(self, flag, bound):
        """Compact a byte map into vertex ids, then clear it."""
        marked = self.xp.flatnonzero(flag[:bound])
        self.put(flag, marked, 0)
        return marked

    def _take_flagged_among(self, flag, ids, bound):
        """:meth:`_take_flagged` of a byte map whose flagged vertices are all among
        ``ids``, at the cost of the ids: each flagged id once, in no order, as a
        :class:`Counted` whose count stays on the device."""
        xp = self.xp
        stamp, epoch = self._stamps(bound)
        out, kept = xp.empty(ids.size, dtype=xp.int64), xp.zeros(1, dtype=xp.uint64)
        cuda_kernels.get_kernel("sets", "take_flagged_among")(
            (_blocks(ids.size),), (_THREADS,), (ids, np.int64(ids.size), flag, stamp, epoch, out, kept))
        return Counted(out, kept)

    # -------------------------------------------------------------- primitives
    def _words(self, array, index):
        """The word type moving ``array``'s elements when :meth:`take`/:meth:`put` can run
        their kernel (a 1-D contiguous device array and a 1-D int64 device index), or None."""
        xp = self.xp
        if (type(array) is not xp.ndarray or type(index) is not xp.ndarray or array.ndim != 1 or index.ndim != 1
                or index.dtype != xp.int64 or not array.flags.c_contiguous):
            return None
        return cuda_kernels.WORD_TYPES.get(array.itemsize)

    def take(self, array, index, dtype=None):
        word = self._words(array, index)
        dtype = array.dtype if dtype is None else np.dtype(dtype)
        converted = _converted(array.dtype, dtype)
        if word is None or (dtype != array.dtype and converted is None):
            return super().take(array, index, dtype)
        out = self.xp.empty(index.size, dtype=dtype)
        if index.size:
            name = f"take<{word}>" if converted is None else f"take_as<{converted}>"
            cuda_kernels.get_kernel("arrays", name)(
                (_blocks(index.size),), (_THREADS,),
                (array, np.int64(array.size), self.xp.ascontiguousarray(index), np.int64(index.size), out))
        return out

    def _scatter(self, array, index, values):
        """How kernels/arrays.cu writes ``values`` at ``array[index]``: ``(kind, types,
        argument)``, the kernel name's suffix ("" for values of the array's dtype,
        "_value" for one value, passed as its bits in that dtype, converted
        on the host exactly; "_as" for integers of another dtype), its
        template types and the values' argument; None where CuPy's assignment
        does it instead."""
        xp = self.xp
        word = self._words(array, index)
        if word is None:
            return None
        if not isinstance(values, xp.ndarray) and np.ndim(values) == 0:
            try:
                return "_value", word, np.asarray(values, dtype=array.dtype).view(f"u{array.itemsize}")[()]
            except (OverflowError, ValueError, TypeError):      # (a value NumPy will not convert: CuPy's way)
                return None
        if values.shape != index.shape:
            return None
        if values.dtype == array.dtype:
            return "", word, xp.ascontiguousarray(values)
        converted = _converted(values.dtype, array.dtype)     # (integers of another width or sign)
        return None if converted is None else ("_as", converted, xp.ascontiguousarray(values))

    def put(self, array, index, values):
        how = self._scatter(array, index, values)
        if how is None:
            array[index] = values
        elif index.size:
            kind, types, argument = how
            cuda_kernels.get_kernel("arrays", f"put{kind}<{types}>")(
                (_blocks(index.size),), (_THREADS,),
                (array, np.int64(array.size), self.xp.ascontiguousarray(index), np.int64(index.size), argument))

    def exchange(self, array, index, values):
        how = self._scatter(array, index, values)
        if how is None:
            return super().exchange(array, index, values)
        old = self.xp.empty(index.size, dtype=array.dtype)
        if index.size:
            kind, types, argument = how
            cuda_kernels.get_kernel("arrays", f"exchange{kind}<{types}>")(
                (_blocks(index.size),), (_THREADS,),
                (array, np.int64(array.size), self.xp.ascontiguousarray(index), np.int64(index.size), argument,
                 old))
        return old

    def expand_segments(self, starts, lengths):
        xp = self.xp
        empty = xp.empty(0, dtype=xp.int64)
        if lengths.size == 0:
            return empty, empty
        lengths = _int64(lengths)
        ends = xp.cumsum(lengths)
        total = int(ends[-1])
        if total == 0:
            return empty, empty
        step = xp.arange(total, dtype=xp.int64)
        owners = xp.searchsorted(ends, step, side="right")
        return step + (_int64(starts) - (ends - lengths))[owners], owners

    def unique(self, ids, bound):
        return ids if ids.size < 2 else self._distinct(ids, bound)

    def _distinct(self, ids, bound, count=None):
        """:meth:`unique` of ``ids``, or of its first ``count`` (a device scalar, read
        by the kernel) where given; one read (how many are distinct)."""
        xp = self.xp
        stamp, epoch = self._stamps(bound)
        out, kept = xp.empty(ids.size, dtype=xp.int64), xp.zeros(1, dtype=xp.uint64)
        if ids.size:
            cuda_kernels.get_kernel("sets", "distinct")(
                (_blocks(ids.size),), (_THREADS,),
                (_int64(ids), np.int64(ids.size), np.uint64(0) if count is None else count, stamp, epoch, out,
                 kept))
        return self._kept(out, kept)

    def lookup_sorted(self, keys, values, queries):
        return self._sorted_lookup(keys, values, queries, None)

    def lookup_missing(self, keys, values, queries, found):
        return self._sorted_lookup(keys, values, queries, found)

    def _sorted_lookup(self, keys, values, queries, known):
        """The sorted_lookup kernel (kernels/sets.cu); ``values`` None: ``keys`` is a
        dense map; ``known``: see :meth:`lookup_missing`."""
        xp = self.xp
        found = xp.empty(queries.shape, dtype=xp.int64)
        queries = _int64(queries)
        if not queries.flags.c_contiguous:
            queries = xp.ascontiguousarray(queries)
        if queries.size:
            cuda_kernels.get_kernel("sets", "sorted_lookup")(
                (_blocks(queries.size),), (_THREADS,),
                (queries, np.int64(queries.size), *_vertex_lookup(keys, values),
                 np.uint64(0) if known is None else _int64(known), found))
        return found

    def find_rows(self, keys, values, src, dst, codes):
        # one kernel looks every endpoint up and gathers the missing ones (kernels/sets.cu);
        # their count stays on the device
        xp = self.xp
        n = int(src.size)
        memory = xp.empty(4 * n + 1, dtype=xp.int64)            # ids, missing ids, their count
        ids, missing = _carve(memory, 0, 2 * n, np.int64), _carve(memory, 16 * n, 2 * n, np.int64)
        count = _carve(memory, 32 * n, 1, np.uint64)
        self._set_bytes(count, 0)
        if n:
            cuda_kernels.get_kernel("sets", "lookup_rows")(
                (_blocks(2 * n),), (_THREADS,),
                (*_vertex_lookup(keys, values), _int64(src),
                 _int64(dst), xp.ascontiguousarray(codes, dtype=xp.int8), np.int8(INSERT),
                 np.int64(n), ids, missing, count))
        return ids, Counted(missing, count)

    def arc_keys(self, u, v, undirected=False):
        xp = self.xp
        keys = xp.empty(u.size, dtype=xp.int64)
        if u.size:
            cuda_kernels.get_kernel("batch", "arc_keys")(
                (_blocks(u.size),), (_THREADS,),
                (_int64(u), _int64(v), np.int64(u.size),
                 np.int32(bool(undirected)), keys))
        return keys

    def children_of(self, parent, u, v):
        xp = self.xp
        out, kept = xp.empty(v.size, dtype=xp.int64), xp.zeros(1, dtype=xp.uint64)
        if v.size == 0:
            return Counted(out, 0)
        cuda_kernels.get_kernel("sets", "children_of")(
            (_blocks(v.size),), (_THREADS,),
            (parent, _int64(u), _int64(v), np.int64(v.size), out, kept))
        return Counted(out, kept)

    def weak_children_of(self, parent, u, v, reverse_at):
        xp = self.xp
        out, kept = xp.empty(2 * v.size, dtype=xp.int64), xp.zeros(1, dtype=xp.uint64)
        if v.size == 0:
            return Counted(out, 0)
        cuda_kernels.get_kernel("sets", "weak_children_of")(
            (_blocks(v.size),), (_THREADS,),
            (parent, _int64(u), _int64(v),
             _int64(reverse_at), np.int64(v.size), out, kept))
        return Counted(out, kept)

    def reached(self, value, vertices, unreachable):
        xp = self.xp
        out, kept = xp.empty(vertices.size, dtype=xp.int64), xp.zeros(1, dtype=xp.uint64)
        if vertices.size:
            cuda_kernels.get_kernel("sets", f"reached<{cuda_kernels.VALUE_TYPES[value.dtype]}>")(
                (_blocks(vertices.size),), (_THREADS,),
                (value, _int64(vertices), np.int64(vertices.size), value.dtype.type(unreachable),
                 out, kept))
        return self._kept(out, kept)

    def uncache_lists(self, lists, ids, chunks, chunk_slots, price=None):
        if not self._uncaches_here(lists, price):
            return super().uncache_lists(lists, ids, chunks, chunk_slots, price)
        return self.uncache_lists_in([(lists, ids, chunks, chunk_slots, price)])[0]

    def uncache_lists_in(self, requests):
        # a launch per cache (kernels/cache.cu) and one read-back of every tally: the
        # evictions' count, value and losses per chunk; every argument made before
        # the first launch
        xp = self.xp
        if not all(self._uncaches_here(lists, price) for lists, _, _, _, price in requests):
            return super().uncache_lists_in(requests)       # (a call each: uncache_lists takes its own way)
        sizes = [int(ids.size) for _, ids, _, _, _ in requests]
        tallies = [2 + int(chunks) for _, _, chunks, _, _ in requests]
        parts = _carved(xp, *[(3 * n, np.int64) for n in sizes], (sum(tallies), np.uint64))
        tally = parts[-1]
        self._set_bytes(tally, 0)
        launches, outputs, at = [], [], 0
        for (lists, ids, chunks, chunk_slots, price), n, out, words in zip(requests, sizes, parts, tallies):
            if price is None:
                degree, bits, fields, field_bits, itemsizes = np.uint64(0), np.uint64(0), 0, 0, (0, 0)
            else:
                degree, bits, fields, field_bits = price.degree, price.words, price.fields, price.field_bits
                itemsizes = (tuple(price.itemsizes) + (0, 0))[:2]
            evicted, places, held = (_carve(out, 8 * n * k, n, np.int64) for k in range(3))
            outputs.append((evicted, places, held))
            if n:
                launches.append((n, (_int64(ids), np.int64(n), lists.in_cache, lists.chunk_id, lists.chunk_offset,
                                     lists.cached_degree, np.int64(chunk_slots), degree, bits, np.int32(fields),
                                     np.int32(field_bits), np.int64(itemsizes[0]), np.int64(itemsizes[1]),
                                     np.int64(READ_UNIT_BYTES), evicted, places, held,
                                     _carve(tally, 8 * at, words, np.uint64))))
            at += words
        kernel = cuda_kernels.get_kernel("cache", "uncache_lists")
        for n, args in launches:
            kernel((_blocks(n),), (_THREADS,), args)
        counts = tally.get().astype(np.int64)           # the one sync
        results, at = [], 0
        for (evicted, places, held), words in zip(outputs, tallies):
            k = int(counts[at])
            results.append((_carve(evicted, 0, k, np.int64), _carve(places, 0, k, np.int64),
                            _carve(held, 0, k, np.int64), counts[at + 2:at + words], int(counts[at + 1])))
            at += words
        return results

    @staticmethod
    def _uncaches_here(lists, price):
        """Whether the uncache_lists kernel takes a cache's arrays (and its price) as they are."""
        arrays = (lists.in_cache, lists.chunk_id, lists.chunk_offset, lists.cached_degree)
        return (all(a.flags.c_contiguous for a in arrays) and lists.in_cache.dtype == np.bool_
                and all(a.dtype == np.int32 for a in arrays[1:])
                and (price is None or (len(price.itemsizes) <= 2 and price.words.dtype == np.uint32
                                       and price.degree.dtype == np.int64)))

    def recache_in_place(self, lists, vertices, places, held, adjacency, chunk_slots, weight_itemsize):
        # one launch (kernels/cache.cu) and one read-back: the count, the loads' transactions, entries per chunk
        xp = self.xp
        n = int(vertices.size)
        arrays = (lists.in_cache, lists.chunk_id, lists.chunk_offset, lists.cached_degree)
        if (any(not a.flags.c_contiguous for a in arrays) or lists.in_cache.dtype != np.bool_
                or any(a.dtype != np.int32 for a in arrays[1:]) or adjacency.degree.dtype != np.int64
                or adjacency.start.dtype != np.int64):
            return super().recache_in_place(lists, vertices, places, held, adjacency, chunk_slots, weight_itemsize)
        placed = xp.empty(n, dtype=xp.int64)
        tally = xp.zeros(2 + int(lists.nbr_pointers.size), dtype=xp.uint64)
        if n:
            cuda_kernels.get_kernel("cache", "recache_in_place")(
                (_blocks(n),), (_THREADS,),
                (_int64(vertices), places, held, np.int64(n), adjacency.degree,
                 adjacency.start, np.int64(chunk_slots), lists.nbr_pointers) + arrays + (
                    np.int64(weight_itemsize), np.int64(READ_UNIT_BYTES), placed, tally))
        counts = tally.get().astype(np.int64)
        return placed[:counts[0]], counts[2:], int(counts[1])

    def copy_to_cache(self, cache, vertices, adjacency):
        # one launch (kernels/cache.cu copy_to_chunks): a warp a list, through the chunk address tables
        n = int(vertices.size)
        if n == 0:
            return
        weights = adjacency.wgt
        cuda_kernels.get_kernel("cache", f"copy_to_chunks<{cuda_kernels.WEIGHT_TYPES[np.dtype(weights.dtype)]}>")(
            (_blocks(32 * n),), (_THREADS,),
            (_int64(vertices), np.int64(n), _int64(adjacency.start),
             _ids_address(adjacency.nbr), weights, cache.chunk_id, cache.chunk_offset, cache.cached_degree,
             cache.nbr_pointers, cache.wgt_pointers, np.int32(bool(cache.weights))))

    def shift_fields(self, words, shift, mask, out):
        # one launch: the base class's two ufuncs fused
        if words.dtype != np.uint32 or out.dtype != np.uint32:
            return super().shift_fields(words, shift, mask, out)
        _shift_fields_kernel(self.xp)(words, np.uint32(shift), np.uint32(mask), out)

    def add_to_field(self, words, vertices, added, field_max, distinct=False):
        # one launch (kernels/reads.cu): a compare-and-swap loop per entry, no tally
        xp = self.xp
        n = int(vertices.size)
        if n == 0:
            return
        if words.dtype != np.uint32 or not words.flags.c_contiguous:
            return super().add_to_field(words, vertices, added, field_max, distinct)
        scalar = xp.isscalar(added) or added.ndim == 0
        per_entry = xp.zeros(1, dtype=xp.uint32) if scalar else added.astype(xp.uint32, copy=False)
        cuda_kernels.get_kernel("reads", "add_to_field")(
            (_blocks(n),), (_THREADS,),
            (words, _int64(vertices), np.int64(n), per_entry, np.int32(not scalar),
             np.uint32(added if scalar else 0), np.uint32(field_max)))

    def count_reads(self, counts, frontier, degree, start, in_cache, weight_itemsize, cached_weights, times=1,
                    accesses=None):
        # one launch (kernels/reads.cu): a grid-stride pass, sums reduced per warp and block, the
        # accesses counted on the way
        n = int(frontier.size)
        if n == 0 or times == 0:
            return
        if (counts.dtype != np.int64 or degree.dtype != np.int64 or start.dtype != np.int64
                or (accesses is not None and (accesses.words.dtype != np.uint32
                                              or not accesses.words.flags.c_contiguous))):
            return super().count_reads(counts, frontier, degree, start, in_cache, weight_itemsize, cached_weights,
                                       times, accesses)
        xp = self.xp
        cached = 0 if in_cache is None else int(in_cache.size)         # ids from `cached` on: not cached
        in_cache = xp.zeros(1, dtype=bool) if in_cache is None else in_cache.astype(bool, copy=False)
        cuda_kernels.get_kernel("reads", "count_reads")(
            (min(_blocks(n), _COUNT_READS_BLOCKS),), (_THREADS,),
            (_int64(frontier), np.int64(n), degree, start, in_cache, np.int64(cached),
             np.int64(weight_itemsize), np.int32(bool(cached_weights)), np.int64(times), np.int64(READ_UNIT_BYTES),
             counts, counts if accesses is None else accesses.words,          # (not read without accesses)
             np.uint32(0 if accesses is None else accesses.added),
             np.uint32(0 if accesses is None else accesses.field_max)))

    def reset_values(self, value, parent, vertices, fill, source=None, source_value=None):
        # one launch: every write to the source writes source_value (kernels/sets.cu)
        if value.dtype not in cuda_kernels.VALUE_TYPES or parent.dtype != np.int64:
            return super().reset_values(value, parent, vertices, fill, source, source_value)
        n = int(vertices.size)
        if n == 0 and source is None:
            return
        kind = value.dtype.type
        cuda_kernels.get_kernel("sets", f"reset_values<{cuda_kernels.VALUE_TYPES[value.dtype]}>")(
            (max(_blocks(n), 1),), (_THREADS,),
            (value, parent, _int64(vertices), np.int64(n), kind(fill),
             np.int64(-1 if source is None else source), kind(0 if source is None else source_value)))

    def enter_vertices(self, ids, reused, first, external, alive, dense=None, held=None):
        xp = self.xp
        k, with_map = int(ids.size), dense is not None
        internal, old_external, old_dense, old_alive = _carved(
            xp, (k, np.int64), (k, np.int64), (k if with_map else 0, np.int32), (k, np.bool_))
        if k:
            held_ids, held_internal, at = held if held is not None else (np.uint64(0), np.uint64(0), 0)
            reuse = int(reused.size)
            reused = xp.ascontiguousarray(_int64(reused)) if reuse else np.uint64(0)    # (freed ids: a reversed view)
            cuda_kernels.get_kernel("sets", "enter_vertices")(
                (_blocks(k),), (_THREADS,),
                (xp.ascontiguousarray(_int64(ids)), np.int64(k), reused, np.int64(reuse), np.int64(first), internal,
                 external, alive, dense if with_map else np.uint64(0), held_ids, held_internal, np.int64(at),
                 old_external, old_alive, old_dense if with_map else np.uint64(0)))
        return internal, (old_external, old_alive, old_dense if with_map else None)

    def merge_sorted(self, keys, values, more_keys, more_values):
        xp = self.xp
        n, m = int(keys.size), int(more_keys.size)
        merged_keys, merged_values = xp.empty(n + m, dtype=xp.int64), xp.empty(n + m, dtype=xp.int64)
        if n + m:
            cuda_kernels.get_kernel("sets", "merge_sorted")(
                (_blocks(n + m),), (_THREADS,),
                (keys, values, np.int64(n), more_keys, more_values, np.int64(m), merged_keys, merged_values))
        return merged_keys, merged_values

    def record_changes(self, forced, touched, value, parent, previous_value, previous_parent, alive,
                       with_parents, keep=False):
        xp = self.xp
        stamp, epoch = self._stamps(value.size)
        total = forced.size + touched.size
        logged = total if keep else 0
        out, kept, log, log_value, log_parent = _carved(
            xp, (total, np.int64), (2, np.uint64), (logged, np.int64), (logged, value.dtype), (logged, np.int64))
        self._set_bytes(kept, 0)
        null = np.uint64(0)
        kernel = cuda_kernels.get_kernel("sets", f"record_changes<{cuda_kernels.VALUE_TYPES[value.dtype]}>")
        # (forced first: they claim their stamps; both converted before the first write)
        parts = [(_int64(ids), is_forced) for ids, is_forced in ((forced, 1), (touched, 0)) if ids.size]
        for ids, is_forced in parts:
            kernel((_blocks(ids.size),), (_THREADS,),
                   (ids, np.int64(ids.size), np.int32(is_forced), stamp, epoch,
                    value, parent, previous_value, previous_parent, np.int32(bool(with_parents)), alive, out,
                    kept) + ((log, log_value, log_parent) if keep else (null, null, null)))
        changed = Counted(out, kept[:1])    # (the counts stay on the device until they are read)
        return (changed, Replaced(log, (log_value, log_parent), kept[1:])) if keep else changed

    def factorize(self, values):
        uniques, codes = self.xp.unique(values, return_inverse=True)
        return uniques, _int64(codes.reshape(-1))

    def scatter_add(self, target, index, values):
        self.xp.add.at(target, index, values)

    # -------------------------------------------------------------- hash index
    def hash_find(self, table, keys):
        xp = self.xp
        found = xp.empty(keys.size, dtype=xp.int64)
        if keys.size:
            kernel = cuda_kernels.get_kernel("hash_index", "hash_find")
            kernel((_blocks(keys.size),), (_THREADS,),
                   (table, np.int32(table.size.bit_length() - 1), keys, np.int64(keys.size), found))
        return found

    def hash_claim(self, table, keys):
        xp = self.xp
        placed = xp.empty(keys.size, dtype=xp.int64)
        replaced = xp.empty(keys.size, dtype=xp.int64)
        if keys.size:
            kernel = cuda_kernels.get_kernel("hash_index", "hash_claim")
            kernel((_blocks(keys.size),), (_THREADS,),
                   (table, np.int32(table.size.bit_length() - 1), keys, np.int64(keys.size), placed, replaced))
        return placed, replaced

    def hash_build(self, table, keys):
        return self.hash_claim(table, keys)[0]

    # --------------------------------------------------------------- arc index
    def arc_find(self, table, adj, keys):
        _check_slot_pointers(table)
        found = self.xp.empty(keys.size, dtype=self.xp.int64)
        if keys.size:
            cuda_kernels.get_kernel("hash_index", "arc_find")(
                (_blocks(keys.size),), (_THREADS,),
                (table, np.int64(table.size), adj.start, adj.degree, adj.nbr,
                 _int64(keys), np.int64(keys.size), found))
        return found

    def arc_claim(self, table, keys, slots):
        xp = self.xp
        placed, replaced = _carved(xp, (keys.size, np.int64), (keys.size, np.int64))
        self._arc_claim(table, keys, slots, placed, replaced)
        return placed, replaced

    def _arc_claim(self, table, keys, slots, placed=None, replaced=None):
        """The ``arc_claim`` kernel; without ``placed`` and ``replaced`` it records
        nothing (a build: 16 bytes per arc less)."""
        _check_slot_pointers(table)
        if keys.size:
            record = placed is not None
            cuda_kernels.get_kernel("hash_index", "arc_claim")(
                (_blocks(keys.size),), (_THREADS,),
                (table, np.int64(table.size), _int64(keys),
                 _int64(slots), np.int64(keys.size),
                 placed if record else np.uint64(0), replaced if record else np.uint64(0)))

    def arc_build(self, table, keys, slots):
        builder = self.arc_table_builder(table)
        builder.enter(keys, slots)
        builder.finish()

    def arc_table_builder(self, table):
        """Claims in device memory and one copy where ``table`` is host memory: an
        atomic per probe over the bus made a scale-24 load 11 s slower (H100).
        In place where the device has no room for a copy of the table."""
        xp = self.xp
        working = None
        if _in_host_memory(xp, table):
            try:
                working = xp.full(table.size, EMPTY_SLOT, dtype=SLOT_DTYPE)
            except xp.cuda.memory.OutOfMemoryError:
                working = None
        return _DeviceArcTableBuilder(self, table, working)

    def arc_locate(self, table, keys, slots):
        xp = self.xp
        _check_slot_pointers(table)
        found = xp.empty(keys.size, dtype=xp.int64)
        if keys.size:
            cuda_kernels.get_kernel("hash_index", "arc_locate")(
                (_blocks(keys.size),), (_THREADS,),
                (table, np.int64(table.size), _int64(keys),
                 _int64(slots), np.int64(keys.size), found, self._fault_word()))
        return found

    def arc_erase(self, table, adj, positions):
        xp = self.xp
        _check_slot_pointers(table)
        _check_slot_pointers(adj.twin)
        n, with_twin = int(positions.size), adj.twin is not None
        slots, twins, weights = _carved(xp, (n, np.int64), (n if with_twin else 0, np.int64), (n, adj.wgt.dtype))
        if n:
            cuda_kernels.get_kernel("hash_index", f"arc_erase<{cuda_kernels.WEIGHT_TYPES[np.dtype(adj.wgt.dtype)]}>")(
                (_blocks(n),), (_THREADS,),
                (table, _int64(positions), np.int64(n), adj.wgt, adj.twin if with_twin else np.uint64(0), slots,
                 weights, twins if with_twin else np.uint64(0)))
        return slots, weights, (twins if with_twin else None)

    def arc_repoint(self, table, adj, owners, sources, targets):
        # every position found in one launch (the keys made from the lists there),
        # then written in one (exchange)
        xp = self.xp
        _check_slot_pointers(table)
        positions = xp.empty(targets.size, dtype=xp.int64)
        if targets.size:
            cuda_kernels.get_kernel("hash_index", "arc_locate_moved")(
                (_blocks(targets.size),), (_THREADS,),
                (table, np.int64(table.size), adj.nbr, _int64(owners), _int64(sources), _int64(targets),
                 np.int64(targets.size), positions, self._fault_word()))
        return positions, self.exchange(table, positions, targets)

    def follow_twins(self, table, out, inn, owners, targets):
        # one launch: each moved in-entry finds its out-entry and writes its twin
        xp = self.xp
        _check_slot_pointers(table)
        _check_slot_pointers(out.twin)
        slots, previous = _carved(xp, (targets.size, np.int64), (targets.size, out.twin.dtype))
        if targets.size:
            cuda_kernels.get_kernel("hash_index", "follow_twins")(
                (_blocks(targets.size),), (_THREADS,),
                (table, np.int64(table.size), out.start, out.degree, out.nbr, out.twin, inn.nbr, _int64(owners),
                 _int64(targets), np.int64(targets.size), slots, previous, self._fault_word()))
        return slots, previous

    # ------------------------------------------------------------ adjacency
    def close_holes(self, adj, owners, slots):
        removed = self.remove_entries(adj, owners, slots, keep=False)
        removed = removed.read(*self.read_counts(removed.count))
        return removed.owner, removed.source, removed.target

    def remove_entries(self, adj, owners, slots, keep=True):
        # rows in any order, no sort: the four phases of kernels/adjacency.cu meet
        # through the per-vertex counts place_entries uses (zero between calls);
        # one block runs them all for a small batch, else four launches; how
        # many entries moved stays on the device (read_counts reads it)
        n = int(slots.size)
        if n == 0:
            return self._removal(adj, owners, slots, keep, None)[0]
        counts = self._scratch("place_counts", adj.start.size, self.xp.uint64, zeroed=True)
        removed, side = self._removal(adj, owners, slots, keep, counts)
        kernel = functools.partial(self._remove_kernel, adj.wgt.dtype, (np.int64(n), np.int32(keep)) + side)
        if n <= _ONE_BLOCK_REMOVE:
            kernel("remove_entries_block", (1,), _REMOVE_BLOCK_THREADS)
        else:
            for phase in cuda_kernels.REMOVE_KERNELS[1:]:
                kernel(phase, (_blocks(n),), _THREADS)
        return removed

    def remove_arcs(self, adjs, owners, slots, keep=True):
        # both adjacencies in each launch (a grid row each, counts and scratch of
        # their own): one block per adjacency for a few rows, else one launch a phase
        n = int(slots[0].size)
        if (len(adjs) != 2 or n == 0 or adjs[0].wgt.dtype != adjs[1].wgt.dtype
                or any(int(s.size) != n for s in slots)):
            return super().remove_arcs(adjs, owners, slots, keep)
        bound, second = int(adjs[0].start.size), int(adjs[1].start.size)
        scratch = self._scratch("place_counts", bound + second, self.xp.uint64, zeroed=True)
        counts = (scratch, _carve(scratch, 8 * bound, second, np.uint64))
        sides = [self._removal(adj, o, s, keep, c) for adj, o, s, c in zip(adjs, owners, slots, counts)]
        args = (np.int64(n), np.int32(keep)) + sides[0][1] + sides[1][1]
        kernel = functools.partial(self._remove_kernel, adjs[0].wgt.dtype, args)
        if n <= _ONE_BLOCK_REMOVE:
            kernel("remove_arcs_block", (1, 2), _REMOVE_BLOCK_THREADS)
        else:
            for phase in range(len(cuda_kernels.REMOVE_KERNELS) - 1):      # (the phases remove_entries launches)
                kernel("remove_arcs_phase", (_blocks(n), 2), _THREADS, np.int32(phase))
        return [removed for removed, _ in sides]

    @staticmethod
    def _remove_kernel(weight_dtype, args, name, grid, threads, *first):
        """Launch removal kernel ``name`` (kernels/adjacency.cu) of weight type ``weight_dtype``
        on ``args``, after the arguments ``first``."""
        weight_type = cuda_kernels.WEIGHT_TYPES[np.dtype(weight_dtype)]
        cuda_kernels.get_kernel("adjacency", f"{name}<{weight_type}>")(grid, (threads,), first + args)

    def _removal(self, adj, owners, slots, keep, counts):
        """``(removed, side)``: the :class:`RemovedEntries` that the removal of ``slots``
        (owned by ``owners``) from ``adj`` fills, and its side's kernel arguments
        (``REMOVE_SIDE_PARAMS`` of kernels/adjacency.cu), with per-vertex ``counts``."""
        xp = self.xp
        _check_slot_pointers(adj.twin)
        n = int(slots.size)
        with_twin = adj.twin is not None
        twin = adj.twin if with_twin else adj.nbr.view(xp.uint32)
        rows, twins = (n if keep else 0), (n if with_twin else 0)
        # one allocation: the moves, the pre-images, then the kernels' pairs (5 words a
        # row at most), the rows' bases and tickets, and two counters
        (owner, source, target, old_degree, pairs, bases, tickets, top, moved, *values) = _carved(
            xp, (n, np.int64), (n, np.int64), (n, np.int64), (rows, np.int64), (5 * n, np.uint64), (n, np.uint64),
            (n, np.uint32), (1, np.uint64), (1, np.uint64), (n, adj.wgt.dtype), (rows, adj.wgt.dtype),
            (n, adj.nbr.dtype), (rows, adj.nbr.dtype), (twins, twin.dtype), (rows if with_twin else 0, twin.dtype))
        moved_values, old_values = (values[2], values[0], values[4]), (values[3], values[1], values[5])
        owners, slots = _int64(owners), _int64(slots)
        side = (slots, owners, counts, pairs, tickets, bases, top, adj.start, adj.degree, adj.nbr, adj.wgt, twin,
                np.int32(with_twin), *old_values, old_degree, owner, source, target, *moved_values, moved)
        k = moved.view(xp.int64) if n else 0
        if not keep:
            return RemovedEntries(owner, source, target, slots, None, None, None, None, k), side
        twins = (lambda values: values) if with_twin else (lambda values: None)
        return RemovedEntries(owner, source, target, slots, owners, old_degree,
                              (old_values[0], old_values[1], twins(old_values[2])),
                              (moved_values[0], moved_values[1], twins(moved_values[2])), k), side

    def plan_moves(self, adj, vertices, need, base, align, count=None):
        # blocks scan the columns (kernels/adjacency.cu) and leave the sums on the
        # device: one block walks a plan of up to _ONE_BLOCK_PLAN lists; a longer one
        # is summed a chunk per block first, one block makes the chunks' offsets,
        # then each block scans its chunk (a count left on the device is read by
        # the kernels, the blocks laid out for its bound)
        xp = self.xp
        on_device = count is not None and not isinstance(count, (int, np.integer))
        if align // MIN_LIST_SLOTS >= 1 << (_PLAN_COLUMNS - 2):      # more classes than the kernel's regions
            return super().plan_moves(adj, vertices, need, base, align, count)
        if count is not None and not on_device:
            vertices, need = vertices[:int(count)], need[:int(count)]
        k = int(vertices.size)                  # (a bound where the count is on the device)
        chunks = -(-k // _PLAN_THREADS)
        blocks = chunks if k > _ONE_BLOCK_PLAN else 1
        new_start, room, first, old_start, old_capacity, totals, block_sums = _carved(
            xp, *[(k, np.int64)] * 5, (3, np.int64), (_PLAN_COLUMNS * (blocks + 1) if blocks > 1 else 0, np.int64))
        vertices, need = _int64(vertices), _int64(need)
        if blocks > 1:
            cuda_kernels.get_kernel("adjacency", "plan_block_sums")(
                (blocks,), (_PLAN_THREADS,),
                (vertices, need, np.int64(k), count if on_device else np.uint64(0), np.int64(align), adj.degree,
                 adj.capacity, block_sums))
            cuda_kernels.get_kernel("adjacency", "plan_chunk_offsets")((1,), (_PLAN_THREADS,),
                                                                      (block_sums, np.int64(blocks)))
        cuda_kernels.get_kernel("adjacency", "plan_moves")(
            (blocks,), (_PLAN_THREADS,),
            (vertices, need, np.int64(k), count if on_device else np.uint64(0), np.int64(base), np.int64(align),
             adj.start, adj.degree, adj.capacity, new_start, room, first, old_start, old_capacity, totals,
             block_sums if blocks > 1 else np.uint64(0)))
        return MovePlan(new_start, room, first, old_start, old_capacity,
                        *(_carve(totals, 8 * i, 1, np.int64) for i in range(3)))

    def move_lists(self, adj, vertices, new_start, room, first, moved):
        # a thread per entry moved, then a thread per list (kernels/adjacency.cu)
        xp = self.xp
        _check_slot_pointers(adj.twin)
        owner, source, target = _carved(xp, *[(moved, np.int64)] * 3)
        count = np.int64(vertices.size)
        if moved:
            name = f"relocate_entries<{cuda_kernels.WEIGHT_TYPES[np.dtype(adj.wgt.dtype)]}>"
            cuda_kernels.get_kernel("adjacency", name)(
                (_blocks(moved),), (_THREADS,),
                (vertices, count, new_start, first, np.int64(moved), adj.start, adj.nbr, adj.wgt,
                 adj.nbr if adj.twin is None else adj.twin, np.int32(adj.twin is not None), owner, source, target))
        if count:
            cuda_kernels.get_kernel("adjacency", "relocate_lists")(
                (_blocks(count),), (_THREADS,), (vertices, count, new_start, room, adj.start, adj.capacity))
        return owner, source, target

    def copy_lists(self, pairs, source_start, target_start, lengths):
        xp = self.xp
        if lengths.size == 0:
            return
        ends = xp.cumsum(lengths, dtype=xp.int64)
        entries = int(ends[-1:].get()[0])
        if entries == 0:
            return
        head = (_int64(source_start),)
        tail = (_int64(target_start), ends, np.int64(lengths.size), np.int64(entries))
        for source, target in pairs:
            if source.dtype.kind == "f":
                name, arrays = f"copy_value_lists<{cuda_kernels.WEIGHT_TYPES[source.dtype]}>", (source, target)
            else:
                name, arrays = "copy_id_lists", (_ids_address(source), _ids_address(target))
            cuda_kernels.get_kernel("cache", name)((_blocks(entries),), (_THREADS,),
                                                   (arrays[0],) + head + (arrays[1],) + tail)

    def place_entries(self, adj, owners, neighbours, weights, slots=None, must_fit=False, degrees=False, kept=None):
        if must_fit and kept is not None and slots is not None:
            # the rows of the moved lists kept their tickets in their slots and
            # the list's fill in `kept`: one launch writes them (kernels/adjacency.cu)
            n = int(owners.size)
            if n:
                name = f"place_kept_tickets<{cuda_kernels.WEIGHT_TYPES[np.dtype(adj.wgt.dtype)]}>"
                cuda_kernels.get_kernel("adjacency", name)(
                    (_blocks(n),), (_THREADS,),
                    (_int64(owners), _int64(neighbours), exact_astype(weights, adj.wgt.dtype), np.int64(n), kept,
                     adj.start, adj.degree, adj.capacity, adj.nbr, adj.wgt, slots, self._fault_word()))
            return Placement(self.no_items(), self.no_items(), 0, slots, None, kept)
        return self._place(adj, owners, neighbours, weights, slots, must_fit, degrees)

    def place_arcs(self, adjs, u, v, w, degrees=False):
        # both adjacencies in each launch (a grid row each, counts of their own):
        # one block per adjacency runs the tickets and the placement for up to
        # _ONE_BLOCK_PLACE rows, else one launch for each (kernels/adjacency.cu)
        if len(adjs) != 2 or adjs[0].wgt.dtype != adjs[1].wgt.dtype:
            return [self._place(adj, owners, neighbours, w, None, False, degrees)
                    for adj, (owners, neighbours) in zip(adjs, ((u, v), (v, u)))]
        xp = self.xp
        n = int(u.size)
        counts = (None, None)           # per adjacency: per-vertex scratch, the second's after the first's
        if n:
            bound, second = int(adjs[0].start.size), int(adjs[1].start.size)
            scratch = self._scratch("place_counts", bound + second, xp.uint64, zeroed=True)
            counts = (scratch, _carve(scratch, 8 * bound, second, np.uint64))
        # per adjacency: outgrown, need, the count (cleared by the first kernel), fill, slots
        outputs = _carved(xp, *[(n, np.int64), (n, np.int64), (1, np.uint64), (n, np.int64), (n, np.int64)] * 2)
        placements, lists = [], []
        for k, (adj, adj_counts) in enumerate(zip(adjs, counts)):
            outgrown, need, count, fill, slots = outputs[5 * k:5 * k + 5]
            placements.append(Placement(outgrown, need, count if n else 0, slots, fill if degrees else None, fill))
            lists += [adj.start, adj.degree, adj.capacity, adj.nbr, adj.wgt, adj_counts, slots, fill, outgrown, need,
                      count]
        if n == 0:
            return placements
        args = (_int64(u), _int64(v), exact_astype(w, adjs[0].wgt.dtype), np.int64(n), *lists, self._fault_word())
        weight_type = cuda_kernels.WEIGHT_TYPES[np.dtype(adjs[0].wgt.dtype)]
        if n <= _ONE_BLOCK_PLACE:
            cuda_kernels.get_kernel("adjacency", f"place_arcs_block<{weight_type}>")((1, 2), (_THREADS,), args)
        else:
            for name in cuda_kernels.PLACE_ARCS_KERNELS[1:]:
                cuda_kernels.get_kernel("adjacency", f"{name}<{weight_type}>")((_blocks(n), 2), (_THREADS,), args)
        return placements

    def _place(self, adj, owners, neighbours, weights, slots, must_fit, degrees):
        # rows in any order: tickets on per-vertex counts, then the placement
        # (kernels/adjacency.cu); the counts are zero between calls.  The
        # outgrown lists' count stays on the device (read_counts reads it).
        # Fresh slots are not filled first: take_tickets takes every row (and
        # copies each row's list degree, the fill placements start from).
        xp = self.xp
        n = int(owners.size)
        fresh = slots is None
        out = xp.empty((3 + fresh) * n + 1, dtype=xp.int64)
        outgrown, need = _carve(out, 0, n, np.int64), _carve(out, 8 * n, n, np.int64)
        count = _carve(out, 16 * n, 1, np.uint64)              # (cleared by take_tickets)
        fill = _carve(out, 16 * n + 8, n, np.int64)
        if fresh:
            slots = _carve(out, 24 * n + 8, n, np.int64)
        old_degree = fill if degrees else None
        if n == 0:
            return Placement(outgrown, need, 0, slots, old_degree)
        counts = self._scratch("place_counts", adj.start.size, xp.uint64, zeroed=True)
        # every argument made before the first launch: nothing can fail between the
        # two (the counts are zero between calls)
        owners, neighbours = _int64(owners), _int64(neighbours)
        weights, faults = exact_astype(weights, adj.wgt.dtype), self._fault_word()
        cuda_kernels.get_kernel("adjacency", "take_tickets")((_blocks(n),), (_THREADS,),
                                                            (owners, np.int64(n), np.int32(fresh), slots, counts,
                                                             count, adj.degree, fill))
        name = f"place_tickets<{cuda_kernels.WEIGHT_TYPES[np.dtype(adj.wgt.dtype)]}>"
        cuda_kernels.get_kernel("adjacency", name)(
            (_blocks(n),), (_THREADS,),
            (owners, neighbours, weights, np.int64(n), fill, adj.start, adj.degree, adj.capacity, adj.nbr, adj.wgt,
             slots, counts, outgrown, need, count, np.int32(bool(must_fit)), faults))
        return Placement(outgrown, need, count, slots, old_degree, fill)

    def read_counts(self, *counts):
        # each device count copied into a pinned word, queued; one wait for all
        host, at = self._wait_for_copies([None if isinstance(c, (int, np.integer)) else c for c in counts])
        return [int(c) if isinstance(c, (int, np.integer)) else int(host[i]) for c, i in zip(counts, at)]

    def read_words(self, words):
        # copied into pinned words with the reads waiting for a wait (_read_later): one wait
        return self._fetch(words)

    def _host_scalars(self, values, dtype):
        # each device scalar copied as it is into a pinned word, queued; one wait for all,
        # then converted on the host (the base class's stack of converted copies and its
        # .get() cost about ten CuPy calls more)
        if not values:
            return []
        scalars = [value if isinstance(value, self.xp.ndarray) and value.size == 1 and value.itemsize <= 8 else None
                   for value in values]
        host, at = self._wait_for_copies(scalars)
        words = host.view(np.uint8)
        out = np.empty(len(values), dtype=dtype)
        for k, (value, scalar, i) in enumerate(zip(values, scalars, at)):      # (each converted alone: exact int64)
            if scalar is not None:
                value = words[8 * i:8 * i + scalar.itemsize].view(scalar.dtype)
            elif isinstance(value, self.xp.ndarray):
                value = value.get()
            out[k] = np.asarray(value).reshape(()).astype(dtype)
        return out

    def _wait_for_copies(self, arrays):
        """Copy each device array of ``arrays`` (None: none) whole into pinned host
        memory, from an 8-byte word of its own, queued, and wait once for all;
        the reads waiting for a wait (:meth:`_read_later`) are made with them.
        Returns the pinned int64 words (valid until the next read) and the word
        each array starts at."""
        riders, self._riders = self._riders, []
        arrays = list(arrays) + [rider._array for rider in riders]
        at, words = [], 0
        for array in arrays:
            at.append(words)
            words += 0 if array is None else -(-array.nbytes // 8)
        host = self._count_buffer(words)
        stream = self.xp.cuda.get_current_stream()
        copy, device_to_host = self.xp.cuda.runtime.memcpyAsync, self.xp.cuda.runtime.memcpyDeviceToHost
        for array, word in zip(arrays, at):
            if array is not None and array.nbytes:
                copy(host.ctypes.data + 8 * word, array.data.ptr, array.nbytes, device_to_host, stream.ptr)
        stream.synchronize()
        for rider, word in zip(riders, at[len(at) - len(riders):]):
            rider._take(_copied_from(host, word, rider._array))
        return host, at[:len(at) - len(riders)]

    def _count_buffer(self, n):
        """``n`` int64 words of pinned host memory that :meth:`read_counts` copies into
        (reused: every read waits for its copies before it returns)."""
        held = self._counts_read
        if held is None or held.size < n:
            size = max(n, 64)
            held = np.frombuffer(self.xp.cuda.alloc_pinned_memory(8 * size), dtype=np.int64, count=size)
            self._counts_read = held
        return held

    def _fetch(self, array):
        """A host copy of small device array ``array``, read as :meth:`_wait_for_copies` reads."""
        host, (word,) = self._wait_for_copies([array])
        return _copied_from(host, word, array)

    def _read_later(self, array, convert):
        """A read of small device array ``array`` made with this backend's next wait:
        a :class:`_LaterRead` whose ``get()`` gives ``convert`` of its host copy."""
        rider = _LaterRead(self, array, convert)
        self._riders.append(rider)
        return rider

    # ------------------------------------------------------ batch reduction
    def check_rows(self, ops, weights, weight_dtype, nonnegative=False):
        """One launch of ``kernels/validate.cu`` for CuPy columns of the types it
        reads (codes, converted weights, and the summary by atomics), whose
        summary is read with the batch's next wait (:meth:`_read_later`);
        other columns take the base class's array code."""
        xp = self.xp
        if (_column_type(weights) is None or (ops is not None and _column_type(ops) is None)
                or np.dtype(weight_dtype) not in cuda_kernels.WEIGHT_TYPES):
            return super().check_rows(ops, weights, weight_dtype, nonnegative)
        n = int(weights.size)
        codes, converted = xp.empty(n, dtype=xp.int8), xp.empty(n, dtype=weight_dtype)
        if n == 0:
            return RowCheck.of(codes, converted, False, 0.0, False)
        op_type = _COLUMN_NONE if ops is None else _column_type(ops)
        ops = codes if ops is None else xp.ascontiguousarray(ops)      # (codes: not read without an op column)
        summary = xp.zeros(3, dtype=xp.uint64)
        name = f"check_rows<{cuda_kernels.WEIGHT_TYPES[np.dtype(weight_dtype)]}>"
        cuda_kernels.get_kernel("validate", name)(
            (min(_blocks(n), _CHECK_ROWS_BLOCKS),), (_THREADS,),
            (ops, np.int32(op_type), xp.ascontiguousarray(weights), np.int32(_column_type(weights)), np.int64(n),
             np.int32(bool(nonnegative)), codes, converted, summary))
        return RowCheck(codes, converted, self._read_later(summary, _row_summary))

    def net_changes(self, u, v, codes, weights, table, adj, undirected=False, unresolved=None):
        # rows in any order: net_group puts each key's rows on a list in a batch
        # table, net_walk settles each key and writes it out with its ends
        # (kernels/batch.cu); one sync reads the counts (and the unresolved
        # count, copied after them).  A key of more rows than net_walk orders
        # itself (rare) sends the batch through a stable sort and the sorted
        # kernel instead.
        xp = self.xp
        n = int(u.size)
        if unresolved is not None and not isinstance(unresolved, xp.ndarray) and unresolved:
            return None
        u, v = _int64(u), _int64(v)
        # one allocation: 8 counters, then 9 rows of n edges (see NetEdgeRow in kernels/batch.cu), then 2 rows
        # of n weights; the kernels index the rows by n
        weight_dtype = np.dtype(weights.dtype)
        memory, counters, edges, changed_w, _ = self._net_memory(xp, n, weight_dtype)
        if n <= 1:
            self._set_bytes(counters, 0)        # (for more rows net_group clears them)
        if isinstance(unresolved, xp.ndarray):
            self._copy_into(_carve(counters, 56, 1, np.uint64), [unresolved.view(xp.uint64)])
        _check_slot_pointers(table)
        codes = codes if codes.dtype == np.int8 else codes.astype(xp.int8)
        outputs = (table, np.int64(table.size), adj.start, adj.degree, adj.nbr, exact_astype(adj.wgt, weights.dtype),
                   edges, changed_w, counters)
        weight_type = cuda_kernels.WEIGHT_TYPES[np.dtype(weights.dtype)]
        direction = np.int32(bool(undirected))
        overflow = 0
        if n == 1:          # one row is in key order: the sorted kernel alone, with no batch table
            cuda_kernels.get_kernel("batch", f"net_changes<{weight_type}>")(
                (1,), (_THREADS,), (u, v, direction, np.int64(n), codes, weights) + outputs)
            host = counters.get()                   # the one sync
        elif n:
            bits = max(int(2 * n - 1).bit_length(), 4)
            groups = xp.empty(2 * (1 << bits) + 2 * n, dtype=xp.int64)
            group_key, group_head = groups[:1 << bits], groups[1 << bits:2 << bits]
            next_row, walker = groups[2 << bits:(2 << bits) + n], groups[(2 << bits) + n:]
            self._set_bytes(groups[:2 << bits], 0xFF)      # (-1 in every word)
            cuda_kernels.get_kernel("batch", "net_group")(
                (_blocks(n),), (_THREADS,),
                (u, v, direction, np.int64(n), np.int32(bits), group_key, group_head, next_row, walker, counters))
            cuda_kernels.get_kernel("batch", f"net_walk<{weight_type}>")(
                (_blocks(n),), (_THREADS,),
                (u, v, direction, np.int64(n), group_head, next_row, walker, codes, weights) + outputs)
            host = counters.get()                   # the one sync
            overflow = int(host[6])
        else:
            host = counters.get() if isinstance(unresolved, xp.ndarray) else np.zeros(8, dtype=np.uint64)
        if isinstance(unresolved, xp.ndarray) and host[7]:
            return None
        if overflow:
            order = xp.argsort(self.arc_keys(u, v, undirected), kind="stable")
            counters.fill(0)
            cuda_kernels.get_kernel("batch", f"net_changes<{weight_type}>")(
                (_blocks(n),), (_THREADS,), (u[order], v[order], direction, np.int64(n), codes[order], weights[order])
                + outputs)
            host = counters.get()
            DEVICE_CALLS.syncs += 1
        return self._net_changes_read(memory, n, weight_dtype, host)

    @staticmethod
    def _net_memory(xp, n, weight_dtype, more=0):
        """One allocation for the net changes of ``n`` rows, as kernels/batch.cu writes
        them: ``(memory, counters, edges, changed_w, extra)``, 8 counters, then 9 rows
        of ``n`` edges (NetEdgeRow), then 2 rows of ``n`` weights, then ``more``
        int64 words for the caller."""
        weight_words = -(-2 * n * weight_dtype.itemsize // 8)
        memory = xp.empty(8 + 9 * n + weight_words + more, dtype=xp.int64)
        return (memory, _carve(memory, 0, 8, np.uint64), _carve(memory, 64, 9 * n, np.int64),
                _carve(memory, 64 + 72 * n, 2 * n, weight_dtype),
                _carve(memory, 8 * (8 + 9 * n + weight_words), more, np.int64))

    def _net_changes_read(self, memory, n, weight_dtype, host):
        """The :class:`NetChanges` in ``memory`` (:meth:`_net_memory`), given its counters read on the host."""
        ins, dels, upd, unchanged, cancelled, ignored = (int(c) for c in host[:6])
        counts = dict(inserted=ins, deleted=dels, weight_updated=upd, unchanged=unchanged, cancelled=cancelled,
                      ignored=ignored)

        def edge_row(i, count):         # row i's first count entries (most rows of a small batch: none)
            return _carve(memory, 64 + 8 * i * n, count, np.int64) if count else self.no_items()

        def weight_row(i, count):
            return (_carve(memory, 64 + 72 * n + weight_dtype.itemsize * i * n, count, weight_dtype) if count
                    else self.no_items(weight_dtype))
        return NetChanges(edge_row(1, ins), edge_row(2, ins), weight_row(0, ins), edge_row(0, ins),
                          edge_row(3, dels), edge_row(4, dels), edge_row(5, dels),
                          edge_row(6, upd), edge_row(7, upd), weight_row(1, upd), edge_row(8, upd), counts)

    def net_changes_of_ends(self, keys, values, src, dst, codes, weights, table, adj, undirected=False):
        # a few rows: the lookup and the reduction in one block (net_rows_block, kernels/batch.cu),
        # one read of the counters, the missing ends' count among them
        n = int(src.size)
        if n == 0 or n > _NET_ROWS_BLOCK:
            changes, ids, missing = super().net_changes_of_ends(keys, values, src, dst, codes, weights, table, adj,
                                                                undirected)
            if changes is None:
                DEVICE_CALLS.syncs += 1         # (the reduction's read was a first wait)
            return changes, ids, missing
        xp, weight_dtype = self.xp, np.dtype(weights.dtype)
        memory, counters, edges, changed_w, extra = self._net_memory(xp, n, weight_dtype, more=4 * n)
        ids, missing = _carve(extra, 0, 2 * n, np.int64), _carve(extra, 16 * n, 2 * n, np.int64)
        _check_slot_pointers(table)
        codes = codes if codes.dtype == np.int8 else codes.astype(xp.int8)
        cuda_kernels.get_kernel("batch", f"net_rows_block<{cuda_kernels.WEIGHT_TYPES[weight_dtype]}>")(
            (1,), (_NET_ROWS_THREADS,),
            (*_vertex_lookup(keys, values), _int64(src), _int64(dst), np.int32(bool(undirected)), np.int64(n),
             ids, missing, codes, weights, table, np.int64(table.size), adj.start, adj.degree, adj.nbr,
             exact_astype(adj.wgt, weights.dtype), edges, changed_w, counters))
        host = self._fetch(counters)            # the one sync
        if host[7]:
            return None, ids, _carve(missing, 0, int(host[7]), np.int64)
        return self._net_changes_read(memory, n, weight_dtype, host), ids, None

    def apply_single_row(self, ids, src, dst, weight, op, table, out_adj, in_adj, trees=()):
        # one thread of one launch (kernels/single_row.cu), the row as kernel scalars;
        # the record and the weights in one allocation, read with the next wait
        if len(trees) > SINGLE_ROW_TREES:
            raise ValueError(f"apply_single_row reads at most {SINGLE_ROW_TREES} trees")
        _check_slot_pointers(table)
        none = [np.uint64(0)] * (SINGLE_ROW_TREES - len(trees))
        parents, tree_values = [parent for parent, _ in trees] + none, [value for _, value in trees] + none
        value_sizes = sum(value.itemsize << (8 * k) for k, (_, value) in enumerate(trees))
        undirected = in_adj is out_adj
        weight_dtype = np.dtype(out_adj.wgt.dtype)
        record, weights = _carved(self.xp, (SR_WORDS, np.int64), (SR_WEIGHTS, weight_dtype))
        cuda_kernels.get_kernel("single_row", f"apply_single_row<{cuda_kernels.WEIGHT_TYPES[weight_dtype]}>")(
            (1,), (32,),
            (*_vertex_lookup(*ids), np.int64(src), np.int64(dst), weight_dtype.type(weight),
             np.int32(op), np.int32(undirected), table, np.int64(table.size), out_adj.start, out_adj.degree,
             out_adj.capacity, out_adj.nbr, out_adj.wgt, np.uint64(0) if undirected else out_adj.twin,
             in_adj.start, in_adj.degree, in_adj.capacity, in_adj.nbr, in_adj.wgt,
             *parents, *tree_values, np.int64(value_sizes), record, weights))
        return SingleRow(record, weights)

    # --------------------------------------------------------- graph operators
    def _relax_kernel(self, kernel, rule, weights):
        name = cuda_kernels.relax_name(kernel, cuda_kernels.VALUE_TYPES[np.dtype(rule.value_dtype)],
                                       cuda_kernels.WEIGHT_TYPES[np.dtype(weights.dtype)],
                                       rule.extend, rule.order)
        return cuda_kernels.get_kernel("relax", name)

    def _unreachable(self, rule):
        value = 0 if rule.unreachable is None else rule.unreachable
        return np.dtype(rule.value_dtype).type(value), np.int32(rule.unreachable is not None)

    def _bin_by_degree(self, adj, vertices):
        """``(bins, sizes, edges)``: ``vertices`` with a non-empty list split by
        degree into rows 0 (thread: under ``_SMALL_DEGREE``), 1 (warp: under
        ``_LARGE_DEGREE``) and 2 (block) of ``bins``, the three sizes, and the
        entries of all their lists (one copy to the host)."""
        return self._bins_by_degree((adj,), vertices)[0]

    def _bins_by_degree(self, adjs, vertices):
        """:meth:`_bin_by_degree` in each adjacency of ``adjs``, one launch each
        and one copy to the host for all: a list of ``(bins, sizes, edges)``."""
        xp = self.xp
        n = int(vertices.size)
        bins = xp.empty((len(adjs), 3, n), dtype=xp.int64)
        counters = xp.zeros((len(adjs), 4), dtype=xp.uint64)
        for k, adj in enumerate(adjs):
            cuda_kernels.get_kernel("relax", "bin_by_degree")(
                (_blocks(n),), (_THREADS,), (vertices, np.int64(n), adj.degree, np.int64(_SMALL_DEGREE),
                                             np.int64(_LARGE_DEGREE), bins[k, 0], bins[k, 1], bins[k, 2],
                                             counters[k]))
        return [(bins[k], tuple(int(c) for c in held[:3]), int(held[3]))
                for k, held in enumerate(counters.get())]

    def relax(self, adj, frontier, value, parent, rule):
        xp = self.xp
        if frontier.size == 0:
            return frontier, 0
        n = int(frontier.size)
        improved = self._flag("improved", value.size)
        args = self._lists(adj) + (adj.degree, value, parent, improved)
        edges = xp.zeros(1, dtype=xp.uint64)
        if n <= _ONE_LAUNCH_FRONTIER:
            self._relax_kernel("relax_block", rule, adj.wgt)((n,), (_THREADS,), (frontier, np.int64(n)) + args
                                                             + (edges,))
            return self._take_flagged(improved, value.size), int(edges.get()[0])
        bins, (small, medium, large), edges_read = self._bin_by_degree(adj, frontier)   # the one sync of a step
        if edges_read == 0:
            return xp.empty(0, dtype=xp.int64), 0
        if small:
            self._relax_kernel("relax_thread", rule, adj.wgt)(
                (_blocks(small),), (_THREADS,), (bins[0], np.int64(small)) + args)
        if medium:
            self._relax_kernel("relax_warp", rule, adj.wgt)(
                (_blocks(32 * medium),), (_THREADS,), (bins[1], np.int64(medium)) + args)
        if large:
            self._relax_kernel("relax_block", rule, adj.wgt)(
                (large,), (_THREADS,), (bins[2], np.int64(large)) + args + (edges,))
        return self._take_flagged(improved, value.size), edges_read

    def converge(self, adjs, frontier, value, parent, rule):
        # small phases run whole in one block; a level wider than the block
        # takes (from the start, or where the block stopped) continues on the
        # whole grid; a queue that fills up continues step by step
        xp = self.xp
        # (a frontier whose count is on the device goes to the block, which reads it
        # and hands a first level wider than it takes to the grid at once)
        frontier, seed_count = self._seeds_and_count(frontier)
        if seed_count is not None and frontier.size > _FUSED_QUEUE_LIMIT:
            frontier, seed_count = frontier[:self.read_counts(seed_count)[0]], None
            DEVICE_CALLS.syncs += 1             # (the count's read: the push's comes after)
        n = int(frontier.size)                  # (with seed_count: a bound)
        if n == 0 or n > _FUSED_QUEUE_LIMIT:
            return super().converge(adjs, frontier, value, parent, rule)
        block = n <= _FUSED_LEVEL_LIMIT or seed_count is not None
        bound = int(value.size)
        queue = self._scratch("queue", _FUSED_QUEUE_LIMIT + bound, xp.int64)
        if frontier.dtype == queue.dtype and frontier.ndim == 1:
            self._copy_into(queue, [frontier])
        else:
            queue[:n] = frontier
        lists = [self._lists(adj) + (adj.degree,) for adj in adjs]
        lists = lists[0] + lists[-1] + (np.int32(len(adjs)),)
        relaxed, end, edges_read = 0, n, 0
        if block:
            queued = self._scratch("queued", bound, xp.int32, zeroed=True)
            out = xp.zeros(3, dtype=xp.uint64)
            self._relax_kernel("converge_block", rule, adjs[0].wgt)(
                (1,), (_FUSED_THREADS,),
                (queue, np.int64(n), np.uint64(0) if seed_count is None else seed_count,
                 np.int64(_FUSED_QUEUE_LIMIT), np.int64(_FUSED_LEVEL_LIMIT),
                 np.int64(_LARGE_DEGREE)) + lists + (value, parent, queued, out))
            relaxed, end, edges_read = (int(c) for c in self._fetch(out))     # (reads waiting for a wait too)
        if end > relaxed and end <= _FUSED_QUEUE_LIMIT:
            if block:
                DEVICE_CALLS.syncs += 1         # (the block's read above was a first wait)
            relaxed, end, more = self._converge_grid(queue, relaxed, end, lists, value, parent, rule, adjs[0].wgt)
            edges_read += more
        activated = self.join([queue[:relaxed]])
        if end == relaxed:
            return activated, edges_read
        rest, more = super().converge(adjs, self.join([queue[relaxed:end]]), value, parent, rule)
        return self.join([activated, rest]), edges_read + more

    def _converge_grid(self, queue, begin, end, lists, value, parent, rule, weights):
        """Run the push of the levels ``queue[begin:end]`` on the whole grid
        (``converge_grid``, kernels/relax.cu) until it converges or the queue
        reaches ``_FUSED_QUEUE_LIMIT``; returns ``(relaxed, end, edges_read)``
        as ``converge_block`` leaves them (one read)."""
        stamp, epoch = self._stamps(value.size, spare=queue.size)
        relaxed, end, edges_read, levels = self._grid_levels(
            self._relax_kernel("converge_grid", rule, weights),
            (queue, np.int64(begin), np.int64(end), np.int64(_FUSED_QUEUE_LIMIT), np.int64(_LARGE_DEGREE)) + lists,
            (value, parent, stamp, epoch))
        self._epoch += levels
        return relaxed, end, edges_read

    def _grid_levels(self, kernel, head, middle):
        """Launch ``kernel``, a level-synchronous expansion on the whole grid
        (``cgs::grid_levels``, kernels/common.cuh: one block per multiprocessor),
        with the arguments ``head + middle`` and then its hub scratch, control
        words and fault word; wait for it and return control[6:10]: the end of
        the expanded levels, the end of the queue, the edges read and the
        levels run."""
        xp = self.xp
        hubs = self._scratch("grid_hubs", _GRID_HUBS, xp.int64)
        control = xp.zeros(10, dtype=xp.uint64)
        kernel((_multiprocessors(xp.cuda.Device().id),), (_FUSED_THREADS,),
               head + middle + (hubs, np.int64(_GRID_HUBS), control, self._fault_word(), np.uint32(_GRID_SYNC_FAULT)))
        return self.read_counts(*control[6:])

    def relax_arcs(self, u, v, w, value, parent, rule):
        return self.read_counted(self.correction_frontier(value, parent, rule, self.xp.empty(0, dtype=self.xp.int64),
                                                          [(u, v, w)]))

    def relax_arcs_only(self, u, v, w, value, parent, rule):
        # relax_arcs' kernel without its byte map (a null one): nothing to collect or clear
        if u.size:
            self._relax_kernel("relax_arcs", rule, w)((_blocks(u.size),), (_THREADS,),
                                                      (u, v, w, np.int64(u.size), value, parent, np.uint64(0))
                                                      + self._unreachable(rule))

    def correction_frontier(self, value, parent, rule, invalidated, arcs):
        # the reached invalidated vertices and the arcs' improved targets set one
        # byte map, from which each is collected once, the count left on the
        # device (converge reads it there).  Few candidates: all of it in one
        # block, one launch (correction_block, kernels/relax.cu); else a launch
        # to flag the reached, one a group of arcs, and take_flagged_among
        xp = self.xp
        arcs = [(u, v, w) for u, v, w in arcs if u.size]
        candidates = int(invalidated.size) + sum(int(u.size) for u, _, _ in arcs)
        if candidates == 0:
            return Counted(xp.empty(0, dtype=xp.int64), 0)
        improved = self._flag("improved", value.size)
        unreachable, check = self._unreachable(rule)
        if (candidates <= _ONE_BLOCK_CORRECTION and len(arcs) <= _CORRECTION_GROUPS
                and len({w.dtype for _, _, w in arcs}) <= 1):
            stamp, epoch = self._stamps(value.size)
            out, kept = _carved(xp, (candidates, np.int64), (1, np.uint64))
            unused = (np.uint64(0),) * 3 + (np.int64(0),)
            groups = sum(((u, v, w, np.int64(u.size)) for u, v, w in arcs), ())
            groups += unused * (_CORRECTION_GROUPS - len(arcs))
            self._relax_kernel("correction_block", rule, arcs[0][2] if arcs else _NO_WEIGHTS)(
                (1,), (_FUSED_THREADS,),
                (invalidated, np.int64(invalidated.size)) + groups
                + (value, parent, improved, unreachable, check, stamp, epoch, out, kept))
            return Counted(out, kept)
        if invalidated.size:
            cuda_kernels.get_kernel("sets", f"flag_reached<{cuda_kernels.VALUE_TYPES[value.dtype]}>")(
                (_blocks(invalidated.size),), (_THREADS,),
                (value, invalidated, np.int64(invalidated.size), unreachable, check, improved))
        for u, v, w in arcs:
            self._relax_kernel("relax_arcs", rule, w)((_blocks(u.size),), (_THREADS,),
                                                      (u, v, w, np.int64(u.size), value, parent, improved,
                                                       unreachable, check))
        candidates = [invalidated] * bool(invalidated.size) + [v for _, v, _ in arcs]
        candidates = candidates[0] if len(candidates) == 1 else self.join(candidates)
        return self._take_flagged_among(improved, candidates, value.size)

    def pull(self, adjs, targets, value, parent, rule):
        # few targets: a block each, one launch per adjacency, the entries read
        # counted on the device and read with the next wait (none of its own,
        # as relax's one-launch frontier); more: a warp per target, a block per
        # hub (binned by degree, as relax does), every adjacency binned before
        # the one read of their sizes
        n = int(targets.size)
        if n == 0:
            return Known(0)
        if n <= _ONE_LAUNCH_FRONTIER:
            edges = self.xp.zeros(1, dtype=self.xp.uint64)
            for adj in adjs:
                self._relax_kernel("pull_block", rule, adj.wgt)(
                    (n,), (_THREADS,), (targets, np.int64(n)) + self._lists(adj) + (adj.degree, value, parent)
                    + self._unreachable(rule) + (edges,))
            return self._read_later(edges, _first_int)
        DEVICE_CALLS.syncs += 1                 # (the bins' sizes, read below)
        edges_read = 0
        for adj, (bins, (small, medium, large), edges) in zip(adjs, self._bins_by_degree(adjs, targets)):
            edges_read += edges
            tail = (self._lists(adj) + (adj.degree, value, parent) + self._unreachable(rule))
            for row, count in ((0, small), (1, medium)):
                if count:
                    self._relax_kernel("pull_warp", rule, adj.wgt)(
                        (_blocks(32 * count),), (_THREADS,), (bins[row], np.int64(count)) + tail)
            if large:
                self._relax_kernel("pull_block", rule, adj.wgt)((large,), (_HUB_THREADS,),
                                                                (bins[2], np.int64(large)) + tail + (np.uint64(0),))
        return Known(edges_read)

    def invalidate(self, adjs, seeds, parent):
        bound = parent.size
        invalid = self._flag("invalid", bound)
        seeds, count = self._seeds_and_count(seeds)
        if self._block_takes(seeds, count):         # the block dedupes and marks them (reading a device count)
            invalidated, edges_read = self._mark_below(adjs, seeds, parent, invalid, marked=False, count=count)
        else:
            frontier = self._distinct(seeds, bound, count)
            DEVICE_CALLS.syncs += 1                 # (its read: the closure's comes after)
            self.put(invalid, frontier, 1)
            invalidated, edges_read = self._mark_below(adjs, frontier, parent, invalid)
        self.put(invalid, invalidated, 0)
        return invalidated, edges_read

    @staticmethod
    def _block_takes(seeds, count):
        """Whether the one-block invalidations start from ``seeds`` themselves: a level
        the block takes, or a count still on the device (the block hands a first
        level wider than it takes to the grid; the array is only an upper bound:
        most deleted arcs were no tree arcs)."""
        return seeds.size <= (_FUSED_LEVEL_LIMIT if count is None else _COUNTED_SEEDS_LIMIT)

    @staticmethod
    def _seeds_and_count(seeds):
        """``(array, count)`` of seeds given as an array or a :class:`Counted`: ``count``
        the device scalar saying how many of ``array`` are seeds, or None where
        all of them are (a host count has cut the array to it)."""
        if not isinstance(seeds, Counted):
            return seeds, None
        if isinstance(seeds.count, (int, np.integer)):
            return seeds.array[:int(seeds.count)], None
        return seeds.array, seeds.count

    def _mark_below(self, adjs, frontier, parent, invalid, marked=True, count=None):
        """Mark in ``invalid`` every vertex below the ``frontier`` in the parent
        forest (``marked``: distinct and marked already; else a level of up to
        ``_FUSED_LEVEL_LIMIT`` that the block deduplicates and marks, of which
        ``count``, a device scalar, says how many are used, if given); returns
        ``(frontier and everything marked, edges read)``.  Levels that stay
        narrow run in one block; from the first wider one on, the whole grid
        expands them (one more read).  With ``count`` the block always starts
        (the frontier's size is only a bound; :meth:`_block_takes`)."""
        xp = self.xp
        bound = parent.size
        log = self._scratch("found", bound, xp.int64)
        first, last = adjs[0], adjs[-1]
        lists = (self._lists(first)[0], first.degree, self._lists(last)[0], last.degree, np.int32(len(adjs)))
        if frontier.size <= _FUSED_LEVEL_LIMIT or count is not None:      # (see _block_takes)
            edges = xp.zeros(3, dtype=xp.uint64)
            cuda_kernels.get_kernel("invalidate", "invalidate_block")(
                (1,), (_FUSED_THREADS,),
                (_int64(frontier), np.int64(frontier.size),
                 np.uint64(0) if count is None else count, np.int32(not marked), log,
                 np.int64(_FUSED_LEVEL_LIMIT), np.int64(_LARGE_DEGREE)) + lists + (parent, invalid, edges))
            expanded, end, edges_read = (int(c) for c in edges.get())
            if expanded == end:          # the usual batch: one launch, one copy
                return self.join([log[:end]]), edges_read
            DEVICE_CALLS.syncs += 1         # (the grid's read below is a second wait)
        else:
            self._copy_into(log, [_int64(frontier)])
            expanded, end, edges_read = 0, int(frontier.size), 0
        _, end, more, _ = self._grid_levels(cuda_kernels.get_kernel("invalidate", "invalidate_grid"),
                                            (log, np.int64(expanded), np.int64(end), np.int64(_LARGE_DEGREE)) + lists,
                                            (parent, invalid))
        return self.join([log[:end]]), edges_read + more

    def invalidate_keeping_ties(self, adjs, pull_adj, seeds, value, parent, rule, levels):
        # few seeds: keep_ties_block runs the levels (searching ties, then the plain
        # closure) while they stay narrow, one read for all; from a wider level
        # on, a level per round (one read each): keep_ties_warp keeps candidates
        # (clearing their mark), invalidate_children marks the children of the
        # candidates still marked (invalid, and in `following`: the next
        # candidates); past `levels`, the plain closure (_mark_below); the marks
        # left are the answer
        xp = self.xp
        bound = parent.size
        invalid = self._flag("invalid", bound)
        examined, searched, below, reads = [], 0, 0, 0
        seeds, count = self._seeds_and_count(seeds)     # (a device count: the block or _distinct reads it)
        if self._block_takes(seeds, count):
            found = self._scratch("tie_found", bound + levels * _FUSED_LEVEL_LIMIT, xp.int64)
            first, last = adjs[0], adjs[-1]
            out = xp.empty(5, dtype=xp.uint64)
            self._relax_kernel("keep_ties_block", rule, pull_adj.wgt)(
                (1,), (_FUSED_THREADS,),
                (_int64(seeds), np.int64(seeds.size), np.uint64(0) if count is None else count, found,
                 np.int32(levels),
                 np.int64(_FUSED_LEVEL_LIMIT), np.int64(_LARGE_DEGREE)) + self._lists(pull_adj)
                + (pull_adj.degree, self._lists(first)[0], first.degree, self._lists(last)[0], last.degree,
                   np.int32(len(adjs)), value, parent) + self._unreachable(rule) + (invalid, out))
            searched_end, expanded, end, below, searched = (int(c) for c in out.get())   # (the decorator's count)
            examined.append(found[:searched_end])
            candidates = found[expanded:end]            # (marked, each once)
        else:
            candidates = self._distinct(seeds, bound, count)        # (the decorator's count)
            self.put(invalid, candidates, 1)
        if candidates.size and searched < levels:       # a level too wide for the block
            following, edges = self._flag("next", bound), xp.zeros(1, dtype=xp.uint64)
            keep = self._relax_kernel("keep_ties_warp", rule, pull_adj.wgt)
            children = cuda_kernels.get_kernel("invalidate", "invalidate_children")
            while candidates.size and searched < levels:
                searched += 1
                reads += 1
                n = np.int64(candidates.size)
                examined.append(candidates)
                keep((_blocks(32 * n),), (_THREADS,),
                     (candidates, n) + self._lists(pull_adj) + (pull_adj.degree, value, parent)
                     + self._unreachable(rule) + (invalid, edges))
                for adj in adjs:
                    children((_blocks(32 * n),), (_THREADS,),
                             (candidates, n, self._lists(adj)[0], adj.degree, parent, invalid, following, edges))
                candidates = self._take_flagged(following, bound)
            reads += 1                                  # (the edges read by those levels)
            below += int(edges.get()[0])
        if candidates.size:                             # past `levels`: the plain closure
            reads += 1
            _, more = self._mark_below(adjs, candidates, parent, invalid)
            below += more
        invalidated = self._take_flagged(invalid, bound)
        DEVICE_CALLS.syncs += reads + 1
        return invalidated, self.join(examined), below

    def _bfs_start(self, out_adj, in_adj, source, bound, value, parent, rule):
        # the kernels of kernels/bfs.cu; the level loop is the base class's
        xp = self.xp
        if value.dtype != xp.int32:
            raise ValueError(f"value must hold BFS's int32 hop counts, got {value.dtype}")
        value[:bound] = int(rule.unreachable)
        parent[:bound] = -1
        value[source] = 0
        queue = self._scratch("bfs_queue", bound, xp.int64)       # the levels, one after another
        queue[0] = source
        counters = xp.zeros(4, dtype=xp.uint64)                   # see kernels/bfs.cu
        counters[0] = 1
        in_edges, in_source, out_source = self.host_ints(in_adj.degree[:bound].sum(), in_adj.degree[source],
                                                         out_adj.degree[source])
        state = {"out": out_adj, "in": in_adj, "out_at": self._lists(out_adj)[0], "in_at": self._lists(in_adj)[0],
                 "bound": bound, "value": value, "parent": parent, "unreachable": np.int32(rule.unreachable),
                 "queue": queue, "bits": self._scratch("bfs_bits", (bound + 31) // 32, xp.uint32),
                 "counters": counters, "held": [1, 0, 0, 0], "begin": 0}
        return state, in_edges - in_source, out_source

    def _bfs_step(self, state, level, bottom_up):
        begin, end, bound = state["begin"], state["held"][0], state["bound"]
        count = end - begin
        out, inn, queue, counters = state["out"], state["in"], state["queue"], state["counters"]
        tail = (np.int32(level), state["unreachable"], state["value"], state["parent"])
        if bottom_up:
            bits = state["bits"]
            bits[: (bound + 31) // 32] = 0
            cuda_kernels.get_kernel("bfs", "bfs_mark_frontier")(
                (_blocks(count),), (_THREADS,), (queue, np.int64(begin), np.int64(count), bits))
            cuda_kernels.get_kernel("bfs", "bfs_bottom_up")(
                (_blocks(bound),), (_THREADS,),
                (np.int64(bound), state["in_at"], inn.degree, out.degree, bits) + tail + (queue, counters))
        else:
            # a block per frontier vertex while the frontier is small (hub sources), else a warp
            lanes = _THREADS if count <= _ONE_LAUNCH_FRONTIER else 32
            cuda_kernels.get_kernel("bfs", "bfs_top_down")(
                (_blocks(lanes * count),), (_THREADS,),
                (queue, np.int64(begin), np.int64(count), np.int32(lanes), state["out_at"], out.degree, inn.degree)
                + tail + (counters,))
        now = [int(c) for c in counters.get()]            # the level's one synchronisation
        found, found_out, found_in, read = (a - b for a, b in zip(now, state["held"]))
        state["held"], state["begin"] = now, end
        return found, found_out, found_in, read

    def _bfs_visited(self, state):
        return self.join([state["queue"][: state["held"][0]]])

    def gather_plan(self, adj, vertices, weighted=False):
        # positions binned once per plan: a thread per short list in GPU memory (cached, or
        # device placement), a warp per other list, a block per hub list; one copy to the host
        xp = self.xp
        n = int(vertices.size)
        bins = [xp.empty(n, dtype=xp.int64) for _ in range(3)]
        counters = xp.zeros(4, dtype=xp.uint64)
        if n:
            cache = adj.cache
            in_cache = xp.zeros(1, dtype=bool) if cache is None else cache.in_cache
            cached = np.int64(0 if cache is None else in_cache.size)
            cuda_kernels.get_kernel("pagerank", "bin_gather_lists")(
                (_blocks(n),), (_THREADS,),
                (vertices, np.int64(n), adj.degree, in_cache, cached, np.int32(adj.memory == "device"),
                 np.int64(_SMALL_DEGREE), np.int64(_LARGE_DEGREE), *bins, counters))
        sizes = [int(c) for c in counters.get()]
        small, medium, large = (b[:size] for b, size in zip(bins, sizes[:3]))
        return adj, vertices, sizes[3], small, medium, large, bool(weighted)

    def gather_sum(self, plan, values):
        sums = self.xp.empty(plan[1].size, dtype=values.dtype)
        return sums, self._gather(plan, values, sums)

    def _gather(self, plan, values, sums, into=None):
        """:meth:`gather_sum` into ``sums`` or, given ``into``, ``into[vertices[k]] +=
        sum`` (kernels/pagerank.cu); returns the edges read."""
        adj, vertices, edges_read, small, medium, large, weighted = plan
        if vertices.size == 0:
            return edges_read
        nbr_at, wgt_at = self._lists(adj)
        weight_type = cuda_kernels.WEIGHT_TYPES[np.dtype(adj.wgt.dtype)]

        def kernel(name):
            return cuda_kernels.get_kernel("pagerank", cuda_kernels.pagerank_name(name, weight_type, weighted))

        null = np.uint64(0)
        tail = (vertices, nbr_at, wgt_at, adj.degree, values, null if sums is None else sums,
                null if into is None else into)
        if small.size:
            kernel("gather_sum_thread")((_blocks(small.size),), (_THREADS,), (small, np.int64(small.size)) + tail)
        if medium.size:
            kernel("gather_sum_warp")((_blocks(32 * medium.size),), (_THREADS,),
                                      (medium, np.int64(medium.size)) + tail)
        if large.size:
            kernel("gather_sum_block")((int(large.size),), (_HUB_THREADS,), (large,) + tail)
        return edges_read

    def pagerank_spread(self, plan, shift, teleport, factor, dangling, rank, residual, share, index, rounds=1,
                        alpha=0.0, divisor=1.0):
        # a round: one launch for the amounts (and their per-block sums), the gather adding into
        # the residual; the next round's shift made on the device from the round's record; all
        # the records read with the next wait (the error bound's)
        count = int(factor.size)
        if count == 0 or rounds == 0:
            return Known([0.0, 0.0]), 0
        first, at = _slice_or_index(self.xp, index, rank.size)
        if at is None and first is None:
            return super().pagerank_spread(plan, shift, teleport, factor, dangling, rank, residual, share, index,
                                           rounds, alpha, divisor)
        parts = min(_blocks(count), _DEVIATION_BLOCKS)
        width = 1 + 2 * parts
        records = self.xp.empty(rounds * width, dtype=self.xp.float64)     # (its own: read at a later wait)
        null = np.uint64(0)
        spread_amounts = cuda_kernels.get_kernel("pagerank", "spread_amounts")
        read = 0
        for r in range(rounds):
            spread_amounts((parts,), (_THREADS,),
                           (np.float64(shift), records[(r - 1) * width:] if r else null, np.float64(alpha),
                            np.float64(divisor), null if teleport is None else teleport, factor, dangling,
                            null if at is None else at, np.int64(first or 0), np.int64(count), rank, residual, share,
                            records[r * width:]))
            read += self._gather(plan, share, None, into=residual)
        return self._read_later(records, functools.partial(_round_sums, parts, rounds)), read

    def pagerank_correct(self, rank, residual, sources, t_old, t_new, at, arc_v, gain, alpha):
        # two launches of kernels/pagerank.cu (the sources, then the arcs' atomic adds) and one
        # read of the sources' per-block sums
        count = int(sources.size)
        if count == 0:
            return [0.0, 0.0, 0.0]
        xp = self.xp
        parts = min(_blocks(count), _DEVIATION_BLOCKS)
        sums = self._scratch("correct_sums", 3 * _DEVIATION_BLOCKS, xp.float64)[:3 * parts]
        per_unit = self._scratch("per_unit", count, xp.float64)
        kernel = functools.partial(cuda_kernels.get_kernel, "pagerank")
        kernel("correct_sources")((parts,), (_THREADS,),
                                  (_int64(sources), np.int64(count), _float64(t_old), _float64(t_new),
                                   np.float64(alpha), rank, residual, per_unit, sums))
        if arc_v.size:
            kernel("correct_arcs")((_blocks(arc_v.size),), (_THREADS,),
                                   (_int64(at), _int64(arc_v), _float64(gain), np.int64(arc_v.size), per_unit,
                                    residual))
        return _block_sums(parts, 3, self._read_floats(sums))

    def pagerank_correct_arcs(self, rank, residual, degree, inserted_u, inserted_v, deleted_u, deleted_v,
                              alpha):
        # four launches of kernels/pagerank.cu over the arcs as they are (no concatenation, no
        # sort: a per-vertex tally, the sources found by the stamps), one read of the sums and
        # the number of sources
        xp = self.xp
        inserted, count = int(inserted_u.size), int(inserted_u.size) + int(deleted_u.size)
        if count == 0:
            return xp.empty(0, dtype=xp.int64), [0.0, 0.0, 0.0]
        bound = int(rank.size)
        stamp, epoch = self._stamps(bound)
        change = self._scratch("pagerank_tally", bound, xp.float64, zeroed=True)
        sources, kept = xp.empty(count, dtype=xp.int64), xp.zeros(1, dtype=xp.uint64)
        parts = min(_blocks(count), _DEVIATION_BLOCKS)
        sums = xp.empty(3 * parts, dtype=xp.float64)
        arcs = (_int64(inserted_u), _int64(inserted_v), np.int64(inserted), _int64(deleted_u), _int64(deleted_v),
                np.int64(count))
        kernel = functools.partial(cuda_kernels.get_kernel, "pagerank")
        kernel("tally_arcs")((_blocks(count),), (_THREADS,), arcs + (change, stamp, epoch, sources, kept))
        kernel("correct_tallied")((parts,), (_THREADS,),
                                  (sources, kept, degree, np.float64(alpha), rank, residual, change, sums))
        kernel("spread_tallied")((_blocks(count),), (_THREADS,), arcs + (change, residual))
        kernel("clear_tallied")((parts,), (_THREADS,), (sources, kept, change))
        host, (at_sums, at_kept) = self._wait_for_copies([sums, kept])
        return sources[:int(host[at_kept])], _block_sums(parts, 3, host[at_sums:])

    def masked_sums(self, values, index, mask=None):
        # one launch of kernels/pagerank.cu over the entries in place, one read of its per-block sums
        entries = self._entries(values, index)
        if entries is None:
            return super().masked_sums(values, index, mask)
        if entries[2] == 0:
            return [0.0, 0.0]
        parts, sums = self._launch_masked_sums(values, entries, mask, "masked_sums")
        return _block_sums(parts, 2, self._read_floats(sums))

    def l1_deviation(self, values, index, weights=None, divisor=None):
        # two launches of kernels/pagerank.cu over the entries in place (no gathered copy,
        # no temporaries), a fixed grid, and one read of the last pass's partial sums
        entries = self._entries(values, index)
        if entries is None:
            return super().l1_deviation(values, index, weights, divisor)
        if entries[2] == 0:
            return 0.0
        return float(self._read_floats(self._launch_deviations(values, entries, weights, divisor)).sum())

    def deviation_and_sums(self, values, sums_of, index, mask=None, weights=None, divisor=None):
        # l1_deviation's two launches, masked_sums' one, one read of both's per-block sums
        entries = self._entries(values, index)
        if entries is None:
            return super().deviation_and_sums(values, sums_of, index, mask, weights, divisor)
        if entries[2] == 0:
            return [0.0, 0.0, 0.0]
        deviations = self._launch_deviations(values, entries, weights, divisor)
        parts, sums = self._launch_masked_sums(sums_of, entries, mask, "deviation_sums")
        host, (at_deviations, at_sums) = self._wait_for_copies([deviations, sums])
        return ([float(_copied_from(host, at_deviations, deviations).sum())]
                + _block_sums(parts, 2, _copied_from(host, at_sums, sums)))

    def _entries(self, values, index):
        """``(first, at, count)`` of :func:`_slice_or_index` for ``index`` into ``values``
        with the entries' count; None for a slice of another step."""
        first, at = _slice_or_index(self.xp, index, values.size)
        if at is None and first is None:
            return None
        return first, at, int(at.size) if at is not None else len(range(*index.indices(values.size)))

    def _launch_masked_sums(self, values, entries, mask, scratch):
        """Launch kernels/pagerank.cu's masked_sums over ``entries`` (:meth:`_entries`, not
        empty) into the scratch named ``scratch``: ``(parts, its per-block sums)``."""
        first, at, count = entries
        parts = min(_blocks(count), _DEVIATION_BLOCKS)
        sums = self._scratch(scratch, 2 * _DEVIATION_BLOCKS, self.xp.float64)[:2 * parts]
        cuda_kernels.get_kernel("pagerank", "masked_sums")(
            (parts,), (_THREADS,), (values, np.uint64(0) if at is None else at, np.int64(first or 0), np.int64(count),
                                    np.uint64(0) if mask is None else mask, sums))
        return parts, sums

    def _launch_deviations(self, values, entries, weights, divisor):
        """Launch kernels/pagerank.cu's block_sums and block_deviations over ``entries``
        (:meth:`_entries`, not empty): the per-block deviations, which add up to
        :meth:`l1_deviation`."""
        first, at, count = entries
        if at is None:                  # (a slice: the entries from first on)
            values, weights = values[first:], None if weights is None else weights[first:]
        parts = min(_blocks(count), _DEVIATION_BLOCKS)
        partial = self._scratch("l1_deviation", 2 * _DEVIATION_BLOCKS, self.xp.float64)
        sums, deviations = partial[:parts], partial[_DEVIATION_BLOCKS:_DEVIATION_BLOCKS + parts]
        at = np.uint64(0) if at is None else at
        kernel = functools.partial(cuda_kernels.get_kernel, "pagerank")
        kernel("block_sums")((parts,), (_THREADS,), (values, at, np.int64(count), sums))
        kernel("block_deviations")((parts,), (_THREADS,),
                                   (values, at, np.int64(count), sums, np.int32(parts),
                                    np.uint64(0) if weights is None else weights,
                                    np.float64(count if weights is None else divisor), deviations))
        return deviations

    def _read_floats(self, array):
        """A short float64 device array copied into pinned host memory and waited for
        (one queued copy; no CuPy ``get``).  The result is valid until the next read."""
        host, _ = self._wait_for_copies([array])
        return host.view(np.float64)[:array.size]

    def pagerank_push(self, adj, active, amount, rank, residual, alpha, out_weight=None):
        if active.size == 0:
            return active, 0
        xp = self.xp
        received = self._flag("received", residual.size)
        # a warp per segment of at most _PUSH_SEGMENT entries: hub lists spread over many warps
        degree = adj.degree[active]
        pieces = xp.maximum(-(-degree // _PUSH_SEGMENT), 1)
        ends = xp.cumsum(pieces)
        segments, edges_read = (int(x) for x in xp.stack((ends[-1], degree.sum())).get())
        nbr_at, wgt_at = self._lists(adj)
        weighted = out_weight is not None
        name = cuda_kernels.pagerank_name("pagerank_push", cuda_kernels.WEIGHT_TYPES[np.dtype(adj.wgt.dtype)],
                                          weighted)
        kernel = cuda_kernels.get_kernel("pagerank", name)
        kernel((_blocks(32 * segments),), (_THREADS,),
               (active, amount, np.int64(active.size), ends - pieces, np.int64(segments), np.int64(_PUSH_SEGMENT),
                nbr_at, wgt_at, adj.degree, out_weight if weighted else rank, rank, residual, np.float64(alpha),
                received))
        return self._take_flagged(received, residual.size), edges_read
