"""``python -m cugraph_stream.doctor`` and ``cugraph-stream doctor``."""
import json
import os
import subprocess
import sys

import pytest

import cugraph_stream
from cugraph_stream import doctor
from cugraph_stream.backends import available_backends
from cugraph_stream.cli import main as cli_main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_collect_reports_backends_packages_and_version():
    info = doctor.collect()
    assert info["cugraph_stream"]["version"] == cugraph_stream.__version__
    assert info["backends"] == available_backends()
    assert info["backends"]["cpu"] is None
    assert set(info["packages"]) == set(doctor.OPTIONAL_PACKAGES)
    import networkx
    assert info["packages"]["networkx"] == {"installed": True, "version": networkx.__version__,
                                            "error": None}
    assert info["python"]["version"] == ".".join(map(str, sys.version_info[:3]))
    # the CUDA sources ship with the package (kernels/ in a checkout)
    assert info["kernels"]["error"] is None
    assert "relax.cu" in info["kernels"]["files"]
    json.dumps(info)          # JSON-ready


def test_missing_and_broken_packages_are_reported_not_raised(tmp_path, monkeypatch):
    broken = tmp_path / "cgs_doctor_broken_pkg"
    broken.mkdir()
    (broken / "__init__.py").write_text("raise ImportError('libcudart.so.12: cannot open')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    info = doctor.collect(packages=("cgs_doctor_broken_pkg", "cgs_doctor_absent_pkg"))
    assert info["packages"]["cgs_doctor_absent_pkg"] == {"installed": False, "version": None,
                                                         "error": None}
    found = info["packages"]["cgs_doctor_broken_pkg"]
    assert found["installed"] is True
    assert "libcudart.so.12: cannot open" in found["error"]
    text = doctor.format_report(info)
    assert "  cgs_doctor_absent_pkg not installed\n" in text
    assert "import fails: ImportError: libcudart.so.12" in text


def test_gpu_backend_reason_matches_what_is_installed():
    info = doctor.collect(packages=("cupy",))
    reason = info["backends"]["gpu"]
    if not info["packages"]["cupy"]["installed"]:
        assert reason is not None and "CuPy is not installed" in reason
        assert info["cuda"]["devices"] == []
        assert "CuPy is not installed" in info["cuda"]["error"]
    text = doctor.format_report(info)
    expected = "available" if reason is None else f"unavailable: {reason}"
    assert f"  gpu          {expected}\n" in text


@pytest.mark.gpu
def test_devices_listed_where_the_gpu_backend_runs():
    if available_backends()["gpu"] is not None:
        pytest.skip("no GPU backend here")
    info = doctor.collect(packages=("cupy",))
    devices = info["cuda"]["devices"]
    assert devices and info["cuda"]["error"] is None
    for device in devices:
        assert device["name"] and device["total_memory_bytes"] > 0
        assert 0 < device["free_memory_bytes"] <= device["total_memory_bytes"]
    assert f"0: {devices[0]['name']}" in doctor.format_report(info)


def test_cli_subcommand_and_require(capsys):
    assert cli_main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"cugraph_stream {cugraph_stream.__version__}")
    assert "backends" in out and "optional packages" in out and "CUDA devices" in out
    assert cli_main(["doctor", "--json", "--require", "cpu"]) == 0
    assert json.loads(capsys.readouterr().out)["backends"]["cpu"] is None
    gpu_missing = available_backends()["gpu"] is not None
    assert cli_main(["doctor", "--require", "gpu"]) == (1 if gpu_missing else 0)
    if gpu_missing:
        assert "required backend 'gpu' is unavailable" in capsys.readouterr().err


def test_python_dash_m_entry_point():
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    run = subprocess.run([sys.executable, "-m", "cugraph_stream.doctor", "--json"],
                         check=False, capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    info = json.loads(run.stdout)
    assert info["cugraph_stream"]["version"] == cugraph_stream.__version__
    assert info["backends"]["cpu"] is None
