"""Named configurations: ``cpu-small`` (a 2-core CPU machine, under 5 minutes),
``h100`` (the lent H100/H200, one call of under 10 minutes) and ``oom`` (issue
4's out-of-GPU-memory workload).  Every value can be overridden on the
command line."""

from __future__ import annotations

from .systems import KINDS

#: values every preset starts from
DEFAULTS = {
    "scale": 16, "edge_factor": 16, "batches": 10, "batch_size": 10_000, "delete_fraction": 0.5,
    "seed": 0, "queries": list(KINDS), "systems": "auto", "alpha": 0.85, "tol": 1e-6,
    "contract_checks": "every", "generate": "cpu", "cache_budget_fraction": 0.125,
    "networkit_threads": 1, "sweep_batches": 3, "warmup_batches": 0,
}

PRESETS = {
    "cpu-small": {
        "description": "R-MAT scale 18 (3.9M edges), 10 batches of 10,000, every CPU system "
                       "(and the GPU ones where CuPy sees a GPU); under 5 minutes on 2 cores "
                       "(2.3 minutes measured); its sweeps run at scale 16",
        "runs": [{"label": "cpu-small", "scale": 18}],
        "sweep_config": {"scale": 16},
        "sweeps": {"batch-size": [1, 10, 100, 1_000, 10_000, 100_000],
                   "delete-ratio": [0.0, 0.25, 0.5, 0.75, 1.0]},
    },
    "h100": {
        "description": "two runs on the lent GPU: `gpu` = R-MAT scale 22 (2^26 drawn edges), "
                       "10 batches of 10,000, the GPU engine (incremental and recompute) and "
                       "pylibcugraph; `cpu` = the CPU engine and SciPy beside the GPU engine and "
                       "pylibcugraph at scale 20 (the CPU engine's build and SciPy's recomputation "
                       "of 65M edges would not fit the 10 minutes of one call)",
        "runs": [
            {"label": "h100-gpu", "part": "gpu", "scale": 22, "generate": "gpu",
             "systems": ["gpu", "gpu-recompute", "pylibcugraph"], "contract_checks": "ends"},
            {"label": "h100-cpu", "part": "cpu", "scale": 20, "generate": "gpu",
             "systems": ["cpu", "scipy", "gpu", "pylibcugraph"], "contract_checks": "ends"},
        ],
        "sweeps": {"batch-size": [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000],
                   "delete-ratio": [0.0, 0.25, 0.5, 0.75, 1.0]},
    },
    "oom": {
        "description": "issue 4's workload: R-MAT scale 24 (2^28 drawn edges), 10 batches of "
                       "10,000, SSSP and PageRank, placements host and cached (cache budget 1/8 "
                       "of the adjacency bytes), host in recompute mode, pylibcugraph with the "
                       "whole graph in GPU memory; 3 untimed warm-up batches first (CuPy "
                       "compiles some reduction kernels per size class, on first use: 1-2 s each, "
                       "inside batches 1-2 of a run without them)",
        "runs": [
            {"label": "oom", "scale": 24, "generate": "gpu", "queries": ["sssp", "pagerank"],
             "systems": ["gpu-host", "gpu-cached", "gpu-host-recompute", "pylibcugraph"],
             "cache_budget_fraction": 0.125, "contract_checks": "ends", "warmup_batches": 3},
        ],
        "sweeps": {"batch-size": [1_000, 10_000, 100_000, 1_000_000],
                   "delete-ratio": [0.0, 0.5, 1.0]},
    },
}


def preset_runs(name, part=None, sweep=False):
    """The complete run configurations of preset ``name`` (only ``part``'s when given;
    with the preset's sweep settings when ``sweep``)."""
    preset = PRESETS[name]
    extra = preset.get("sweep_config", {}) if sweep else {}
    runs = [{**DEFAULTS, **run, **extra} for run in preset["runs"]]
    if part is not None:
        runs = [r for r in runs if r.get("part") == part]
        if not runs:
            parts = [r.get("part") for r in preset["runs"] if r.get("part")]
            raise ValueError(f"--part: preset {name!r} has "
                             + (f"the parts {', '.join(parts)}" if parts else "a single run")
                             + f", not {part!r}")
    return runs
