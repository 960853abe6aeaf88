"""Every example in examples/ runs to completion (each in its own process).

CPU examples run everywhere (CI included); the GPU ones need cuGraph and a
GPU and carry the ``gpu`` marker.  The examples check their own results
against from-scratch computations (SciPy, cuGraph) and fail loudly if they
disagree, so a zero exit status means correct results, not just no crash.
"""
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

#: example -> (extra arguments that keep it quick, a line its output must contain,
#:             modules it needs)
CPU_EXAMPLES = {
    "quickstart.py": ([], "changed by the batch:", ()),
    "dask_sssp_many_sources.py": (["--scale", "9", "--sources", "16", "--batches", "4",
                                   "--batch-size", "300", "--check", "4"],
                                  "checked 4 sources against SciPy: OK",
                                  ("dask.dataframe", "distributed")),
}
GPU_EXAMPLES = {
    "cugraph_recompute_to_incremental.py": (["--scale", "12", "--batches", "3",
                                             "--batch-size", "1000"],
                                            "final distances agree with cugraph.sssp: OK",
                                            ("cudf", "cugraph")),
}


def _run(name, args, expected, modules):
    for module in modules:
        if importlib.util.find_spec(module.split(".")[0]) is None:
            pytest.skip(f"{name} needs {module}")
        pytest.importorskip(module)
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run([sys.executable, str(EXAMPLES / name), *args], cwd=ROOT, env=env,
                         check=False, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, f"{name} failed:\n{run.stdout}\n{run.stderr}"
    assert expected in run.stdout, run.stdout


def test_every_example_is_listed():
    listed = set(CPU_EXAMPLES) | set(GPU_EXAMPLES)
    assert {p.name for p in EXAMPLES.glob("*.py")} == listed


@pytest.mark.parametrize("name", sorted(CPU_EXAMPLES))
def test_cpu_example_runs(name):
    _run(name, *CPU_EXAMPLES[name])


@pytest.mark.parametrize("name", sorted(GPU_EXAMPLES))
def test_gpu_example_without_its_packages_says_how_to_install_them(name):
    missing = [m for m in GPU_EXAMPLES[name][2] if importlib.util.find_spec(m.split(".")[0]) is None]
    if not missing:
        pytest.skip(f"{name}'s packages are installed")
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run([sys.executable, str(EXAMPLES / name)], cwd=ROOT, env=env,
                         check=False, capture_output=True, text=True, timeout=300)
    assert run.returncode == 1
    assert "Traceback" not in run.stderr, run.stderr
    assert f"No module named '{missing[0]}'" in run.stderr and "[cu12]" in run.stderr, run.stderr


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(GPU_EXAMPLES))
def test_gpu_example_runs(name):
    from cugraph_stream.backends import available_backends

    reason = available_backends()["gpu"]
    if reason:
        pytest.skip(f"no GPU backend: {reason}")
    _run(name, *GPU_EXAMPLES[name])
