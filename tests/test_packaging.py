"""Packaging: one version, conda recipe in step with pyproject, a wheel that carries the CUDA sources."""
import email.parser
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

try:
    import tomllib
except ImportError:  # Python 3.10
    tomllib = pytest.importorskip("tomli")
yaml = pytest.importorskip("yaml")
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

import cugraph_stream

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
RECIPE = yaml.safe_load((ROOT / "conda" / "recipe.yaml").read_text())
#: PyPI name -> conda-forge name, where they differ
CONDA_NAMES = {}


def _version_file():
    text = (ROOT / "cugraph_stream" / "_version.py").read_text()
    return re.search(r'^__version__ = "([^"]+)"$', text, re.MULTILINE).group(1)


def _conda_requirement(spec):
    """``"numpy >=1.24"`` -> ``("numpy", SpecifierSet(">=1.24"))``."""
    name, _, version = str(spec).strip().partition(" ")
    return name, SpecifierSet(version.replace(" ", ""))


def test_one_version():
    version = _version_file()
    assert cugraph_stream.__version__ == version
    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == \
        {"attr": "cugraph_stream._version.__version__"}
    assert str(RECIPE["context"]["version"]) == version, \
        "conda/recipe.yaml context.version differs from cugraph_stream/_version.py"
    assert RECIPE["package"]["version"] == "${{ version }}"


def test_recipe_run_requirements_match_pyproject():
    expected = {"python": SpecifierSet(PYPROJECT["project"]["requires-python"])}
    for dependency in PYPROJECT["project"]["dependencies"]:
        requirement = Requirement(dependency)
        assert not requirement.marker and not requirement.extras, dependency
        expected[CONDA_NAMES.get(requirement.name, requirement.name)] = requirement.specifier
    run = dict(_conda_requirement(spec) for spec in RECIPE["requirements"]["run"])
    assert run == expected


def test_recipe_builds_a_noarch_python_package_with_the_entry_point():
    assert RECIPE["build"]["noarch"] == "python"
    scripts = PYPROJECT["project"]["scripts"]
    entry_points = RECIPE["build"]["python"]["entry_points"]
    assert entry_points == [f"{name} = {target}" for name, target in scripts.items()]
    host = dict(_conda_requirement(spec) for spec in RECIPE["requirements"]["host"])
    for spec in PYPROJECT["build-system"]["requires"]:      # the build backend, same versions
        requirement = Requirement(spec)
        assert host.get(requirement.name) == requirement.specifier, spec


def test_extras_install_what_the_optional_code_imports():
    extras = PYPROJECT["project"]["optional-dependencies"]
    names = {key: {Requirement(r).name for r in reqs} for key, reqs in extras.items()}
    assert {"dask", "distributed"} <= names["dask"]
    assert {"dask", "distributed", "tqdm"} <= names["test"]    # CI runs tests/dask/
    for cuda in ("cu12", "cu13"):
        assert any(n.startswith("cupy-cuda") for n in names[cuda])
        assert {"dask-cuda"} <= names[cuda]
    assert "cugraph_stream.dask" in PYPROJECT["tool"]["setuptools"]["packages"]


def _packages_on_disk():
    return sorted(str(p.parent.relative_to(ROOT)).replace(os.sep, ".")
                  for p in (ROOT / "cugraph_stream").rglob("__init__.py")
                  if "__pycache__" not in p.parts)


def test_every_subpackage_is_listed():
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    assert set(_packages_on_disk()) <= listed


def test_wheel_carries_the_cuda_sources(tmp_path):
    setuptools = pytest.importorskip("setuptools")
    if Version(setuptools.__version__) < Version("70.1"):     # bdist_wheel moved into setuptools
        pytest.importorskip("wheel", reason="setuptools < 70.1 builds wheels with 'wheel'")
    if subprocess.run([sys.executable, "-m", "pip", "--version"], check=False, capture_output=True).returncode:
        pytest.skip("pip is not available")
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "cugraph_stream", source / "cugraph_stream", ignore=ignore)
    shutil.copytree(ROOT / "kernels", source / "kernels", ignore=ignore)
    out = tmp_path / "dist"
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                            "--no-build-isolation", "--no-index", "-q", "-w", str(out),
                            str(source)], check=False, capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stdout + build.stderr
    [wheel] = out.glob("cugraph_stream-*.whl")
    assert wheel.name.startswith(f"cugraph_stream-{cugraph_stream.__version__}-py3-none-any")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        [metadata] = [n for n in names if n.endswith(".dist-info/METADATA")]
        meta = email.parser.Parser().parsestr(archive.read(metadata).decode())
    sources = sorted(p.name for p in (ROOT / "kernels").iterdir() if p.suffix in (".cu", ".cuh"))
    assert sources, "no CUDA sources in kernels/"
    for name in sources:
        assert f"cugraph_stream/kernels/{name}" in names
    for package in _packages_on_disk():
        assert package.replace(".", "/") + "/__init__.py" in names
    assert "cugraph_stream/doctor.py" in names
    assert meta["Version"] == cugraph_stream.__version__
    requires = meta.get_all("Requires-Dist")
    for dependency in PYPROJECT["project"]["dependencies"]:
        assert Requirement(dependency).name in {Requirement(r).name for r in requires}
    assert {"dask", "cu12", "cu13", "test"} <= set(meta.get_all("Provides-Extra"))
