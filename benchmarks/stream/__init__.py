"""Streaming benchmark: every system on the same snapshots, cross-checked, timed.

    python -m benchmarks.stream --preset cpu-small
    python -m benchmarks.stream --preset h100
    python -m benchmarks.stream --preset oom
    python -m benchmarks.stream --preset cpu-small --sweep batch-size
    python -m benchmarks.stream --preset cpu-small --sweep delete-ratio

An R-MAT graph is cut by Grapin's protocol into G0 and batches of mixed
insertions and deletions (:mod:`.workload`); the systems of :mod:`.systems`
(cugraph_stream incremental and recompute on each backend and placement,
SciPy, NetworKit, pylibcugraph) are built on G0 and fed every batch; after
each batch every system's results are compared with every other's and with a
reference (:mod:`.crosscheck`), and a mismatch makes the run exit with status
1 after its files are written (:mod:`.report`, :mod:`.plots`): one JSON file
per run, a markdown table, PNG plots of time and work per batch.
"""

from .cli import main, parse_args
from .run import run_benchmark, summarize

__all__ = ["main", "parse_args", "run_benchmark", "summarize"]
