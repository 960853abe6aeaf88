"""cugraph_stream itself: one ``StreamGraph`` tracking every query of the run.

Variants by backend (``cpu``/``gpu``), placement (``device``, ``host``,
``cached``) and mode (``incremental`` or the same engine's ``recompute``).  A batch's wall time is the whole ``apply``; a
query's ``time_s`` is the shared phases of the batch (validate, reduce,
store, and any other phase not named after a query) plus its own correct and
compute phases, as if it were tracked alone.
"""

from __future__ import annotations

import functools

import numpy as np

import cugraph_stream as cgs
from cugraph_stream.backends import available_backends
from cugraph_stream.verify import to_pandas

from ...common import make_query, timed
from .base import System, query_record

@functools.cache
def _warm_up_gpu():
    """Compile the GPU kernels (once per process) before anything is timed."""
    from ...pylibcugraph_baseline import warm_up_gpu_engine

    warm_up_gpu_engine(cgs)


def placement_unsupported(placement, backend="gpu", cache_budget=None):
    """Why ``placement`` cannot run on ``backend`` here (no such backend), or None."""
    reason = available_backends().get(backend)
    if reason:
        return f"placement {placement!r} needs backend {backend!r}, which is not available here: {reason}"
    extra = {} if cache_budget is None else {"cache_budget": int(cache_budget)}
    try:
        cgs.StreamGraph(backend=backend, placement=placement, **extra)
    except (TypeError, ValueError) as error:
        return f"StreamGraph(placement={placement!r}) was refused: {error}"
    return None


class EngineSystem(System):
    """``StreamGraph`` with one backend, placement and mode.

    Parameters
    ----------
    name : str
        System name (``cpu``, ``cpu-recompute``, ``gpu``, ``gpu-host``...).
    backend : {"cpu", "gpu"}
    mode : {"incremental", "recompute"}
    placement : str or None
        ``None``: the backend's default (device memory); otherwise passed to
        ``StreamGraph.from_edgelist`` when it takes the keyword.
    cache_budget_fraction : float or None
        ``cached`` placement: the GPU cache budget as a fraction of the
        adjacency bytes (estimated as 2 lists x (4-byte id + weight) per edge).
    """

    has_contract = True

    def __init__(self, name, backend, mode="incremental", placement=None,
                 cache_budget_fraction=None):
        self.name = name
        self.backend = backend
        self.mode = mode
        self.placement = placement
        self.cache_budget_fraction = cache_budget_fraction
        self.is_baseline = mode == "recompute"
        where = backend if placement in (None, "device") else f"{backend}, placement {placement}"
        self.description = f"cugraph_stream ({where}), {mode}"
        self.graph = None
        self.queries = {}
        self._frames = {}

    def unavailable(self):
        """Why this variant cannot run here, or None."""
        if self.placement not in (None, "device"):  # first: does the engine have it at all?
            return placement_unsupported(self.placement, self.backend,
                                         cache_budget=1 << 20 if self.placement == "cached" else None)
        reason = available_backends().get(self.backend)
        return f"backend {self.backend!r} is not available: {reason}" if reason else None

    # ----------------------------------------------------------------- frames
    def _device_frame(self, frame):
        """The batch as the backend's users hold it: pandas on the CPU, cuDF (or CuPy
        columns) on the GPU."""
        if self.backend != "gpu":
            return frame
        import cupy

        from ...pylibcugraph_baseline import to_device_frame

        return to_device_frame({c: cupy.asarray(frame[c].to_numpy()) for c in frame.columns})

    def _graph_options(self, workload):
        options = {"backend": self.backend}
        if self.placement is None:
            return options
        if self.placement == "device" and placement_unsupported("device", self.backend):
            return options  # only device placement exists: the backend's default
        options["placement"] = self.placement
        if self.placement == "cached":
            weight_bytes = 4  # float32 weights
            adjacency = workload.figures["g0_edges"] * 2 * (4 + weight_bytes)
            options["cache_budget"] = int(self.cache_budget_fraction * adjacency)
        return options

    # ------------------------------------------------------------- life cycle
    def build(self, workload, kinds, params):
        self.require_available()
        if self.backend == "gpu":
            _warm_up_gpu()
        options = self._graph_options(workload)
        initial = self._device_frame(workload.stream.initial)  # on the device: not timed
        self.graph, build_s = timed(lambda: cgs.StreamGraph.from_edgelist(
            initial, source="src", destination="dst", weight="weight", **options))
        track_s = {}
        for kind in kinds:
            query = make_query(kind, workload.source, self.mode, params["alpha"], params["tol"])
            self.queries[kind], track_s[kind] = timed(lambda q=query: self.graph.track(q))
        self._frames = {}
        return {"build_s": build_s, "track_s": track_s, "options": options}

    def step(self, b, batch, snapshot):
        frame = self._device_frame(batch)
        report, wall = timed(lambda: self.graph.apply(frame, source="src", destination="dst",
                                                      weight="weight", op="op"))
        self._frames = {}
        times = dict(report.times)
        names = {kind: q.name for kind, q in self.queries.items()}
        own_keys = {f"{name}:{part}" for name in names.values() for part in ("correct", "compute")}
        shared = {k: v for k, v in times.items() if k not in own_keys}
        shared_s = float(sum(shared.values()))
        own_reports = {qr.name: qr for qr in report.queries}
        host_bytes, hit_ratio, host_edges = report.host_bytes, report.cache_hit_ratio, report.host_edges_read
        queries = {}
        for kind, name in names.items():
            own = {part: times.get(f"{name}:{part}", 0.0) for part in ("correct", "compute")}
            compute_s = own["correct"] + own["compute"]
            queries[kind] = query_record(shared_s + compute_s, compute_s, phases={**shared, **own},
                                         edges_read=own_reports[name].edges_scanned,
                                         **self._query_reads(own_reports[name], host_bytes, hit_ratio))
        return {"total_s": wall, "phases": times, "queries": queries,
                "edges_read": report.edges_scanned, "host_edges": host_edges, "host_bytes": host_bytes,
                "cache_hit_ratio": hit_ratio, "report": report.to_dict()}

    def _query_reads(self, query_report, host_bytes, hit_ratio):
        """One query's host bytes and cache hit ratio (its ``QueryReport``'s share);
        the batch's figures in device placement, where there are none to share."""
        if self.placement in (None, "device"):
            return {"host_bytes": host_bytes, "cache_hit_ratio": hit_ratio}
        read = query_report.host_edges_read + query_report.cache_hits
        return {"host_bytes": query_report.host_bytes,
                "cache_hit_ratio": query_report.cache_hits / read if read else 0.0}

    def frame(self, kind):
        if kind not in self._frames:
            self._frames[kind] = to_pandas(self.queries[kind].result())
        return self._frames[kind]

    def values(self, kind, snapshot):
        frame = self.frame(kind)
        if kind == "sssp":
            d = frame["distance"].to_numpy()
            return {"distance": np.where(d == np.finfo(d.dtype).max, np.inf, d.astype(np.float64))}
        if kind == "bfs":
            d = frame["distance"].to_numpy()
            return {"distance": np.where(d == np.iinfo(d.dtype).max, -1, d.astype(np.int64))}
        if kind == "wcc":
            return {"labels": frame["labels"].to_numpy().astype(np.int64)}
        return {"pagerank": frame["pagerank"].to_numpy(np.float64),
                "error": float(self.queries[kind].tol)}

    def memory(self):
        return int(self.graph.memory_bytes()) if self.graph is not None else None

    def close(self):
        self.graph, self.queries, self._frames = None, {}, {}
