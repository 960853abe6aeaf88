"""Packaging: one version, one license, conda recipe in step with pyproject, an sdist
and a wheel that carry the CUDA sources and the license."""
import email.parser
import os
import re
import shutil
import subprocess
import sys
import tarfile
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
#: PyPI name -> conda name, where they differ (RAPIDS wheels carry the CUDA major version)
CONDA_NAMES = {"cupy-cuda12x": "cupy", "cupy-cuda13x": "cupy"}
CUDA_EXTRAS = ("cu12", "cu13")


def _conda_name(pypi_name):
    """``"cudf-cu12"`` -> ``"cudf"``: the conda package of a PyPI requirement name."""
    if pypi_name in CONDA_NAMES:
        return CONDA_NAMES[pypi_name]
    return re.sub(r"-cu1[0-9]$", "", pypi_name)


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
        expected[_conda_name(requirement.name)] = requirement.specifier
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
    assert names["fast-cpu"] == {"numba"} and "numba" in names["test"]    # CI tests the compiled CPU kernels
    for cuda in ("cu12", "cu13"):
        assert any(n.startswith("cupy-cuda") for n in names[cuda])
        assert {"dask-cuda"} <= names[cuda]
    assert "cugraph_stream.dask" in PYPROJECT["tool"]["setuptools"]["packages"]


def test_cuda_extras_install_cugraph():
    """``from_cugraph``/``to_cugraph`` and the migration example import cugraph."""
    extras = PYPROJECT["project"]["optional-dependencies"]
    for cuda in CUDA_EXTRAS:
        names = {Requirement(r).name for r in extras[cuda]}
        assert {f"cugraph-{cuda}", f"cudf-{cuda}", f"rmm-{cuda}", f"pylibcugraph-{cuda}"} <= names


def test_license_is_apache_2_as_an_spdx_expression():
    text = (ROOT / "LICENSE").read_text()
    assert text.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    assert "END OF TERMS AND CONDITIONS" in text
    project = PYPROJECT["project"]
    assert project["license"] == "Apache-2.0"        # a string (PEP 639), not a table
    assert project["license-files"] == ["LICENSE"]
    assert not [c for c in project.get("classifiers", []) if c.startswith("License ::")]
    setuptools = [Requirement(r) for r in PYPROJECT["build-system"]["requires"]
                  if Requirement(r).name == "setuptools"]
    assert setuptools and Version("76.1") not in setuptools[0].specifier   # PEP 639 needs 77


def _gpu_constraints():
    """conda name -> the lowest lower bound that the ``cu12``/``cu13`` (and ``fast-cpu``) extras ask for."""
    bounds = {}
    for cuda in (*CUDA_EXTRAS, "fast-cpu"):
        for spec in PYPROJECT["project"]["optional-dependencies"][cuda]:
            requirement = Requirement(spec)
            [low] = [Version(s.version) for s in requirement.specifier if s.operator == ">="]
            name = _conda_name(requirement.name)
            bounds[name] = min(bounds.get(name, low), low)
    return {name: SpecifierSet(f">={low}") for name, low in bounds.items()}


def test_recipe_run_constraints_match_the_cuda_extras():
    constraints = dict(_conda_requirement(spec) for spec in RECIPE["requirements"]["run_constraints"])
    assert {"cudf", "cugraph", "rmm", "cupy", "numba"} <= set(constraints)
    assert constraints == _gpu_constraints()


def test_recipe_about_matches_pyproject():
    about = RECIPE["about"]
    assert about["license"] == PYPROJECT["project"]["license"]
    assert about["license_file"] == "LICENSE" and (ROOT / about["license_file"]).is_file()
    urls = PYPROJECT["project"]["urls"]
    assert {key: about[key] for key in ("homepage", "repository", "documentation")} == \
        {"homepage": urls["Homepage"], "repository": urls["Repository"],
         "documentation": urls["Documentation"]}


def test_rattler_build_renders_the_recipe_as_pyproject_says():
    """rattler-build itself (its Python API) evaluates the recipe to pyproject's requirements."""
    rattler_build = pytest.importorskip("rattler_build")
    [variant] = rattler_build.Stage0Recipe.from_file(ROOT / "conda" / "recipe.yaml").render()
    recipe = variant.recipe
    assert (recipe.package.name, str(recipe.package.version)) == \
        (PYPROJECT["project"]["name"], cugraph_stream.__version__)
    requirements = recipe.requirements.to_dict()
    expected_run = {"python": SpecifierSet(PYPROJECT["project"]["requires-python"])}
    for dependency in PYPROJECT["project"]["dependencies"]:
        requirement = Requirement(dependency)
        expected_run[_conda_name(requirement.name)] = requirement.specifier
    assert dict(map(_conda_requirement, requirements["run"])) == expected_run
    assert dict(map(_conda_requirement, requirements["run_constraints"])) == _gpu_constraints()
    host = dict(map(_conda_requirement, requirements["host"]))
    for spec in PYPROJECT["build-system"]["requires"]:
        requirement = Requirement(spec)
        assert host[requirement.name] == requirement.specifier, spec
    about = recipe.about.to_dict()
    assert about["license"] == "Apache-2.0" and about["license_file"] == ["LICENSE"]
    assert about["homepage"] == PYPROJECT["project"]["urls"]["Homepage"]


def _packages_on_disk():
    return sorted(str(p.parent.relative_to(ROOT)).replace(os.sep, ".")
                  for p in (ROOT / "cugraph_stream").rglob("__init__.py")
                  if "__pycache__" not in p.parts)


def test_every_subpackage_is_listed():
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    assert set(_packages_on_disk()) <= listed


def _require_build_tools():
    """Skip unless this interpreter can build the package without build isolation
    (the ``test`` extra installs what it needs: setuptools >= 77 reads SPDX licenses)."""
    setuptools = pytest.importorskip("setuptools")
    needed = Requirement(next(r for r in PYPROJECT["build-system"]["requires"]
                              if Requirement(r).name == "setuptools"))
    if Version(setuptools.__version__) not in needed.specifier:
        pytest.skip(f"setuptools {setuptools.__version__} is not {needed}")
    pytest.importorskip("wheel")        # setuptools < 70.1 builds wheels with it


def _source_tree(tmp_path):
    """A copy of what a checkout builds from (no build/ or egg-info of earlier builds)."""
    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "cugraph_stream", source / "cugraph_stream", ignore=ignore)
    shutil.copytree(ROOT / "kernels", source / "kernels", ignore=ignore)
    return source


def _build(kind, source, out):
    """Build an ``sdist`` or ``wheel`` of ``source`` into ``out`` with setuptools'
    PEP 517 backend (no isolation: this interpreter's setuptools); its path."""
    build = subprocess.run(
        [sys.executable, "-W", "always", "-c",
         f"import sys; from setuptools import build_meta; print(build_meta.build_{kind}(sys.argv[1]))",
         str(out)], cwd=source, check=False, capture_output=True, text=True, timeout=300)
    log = build.stdout + build.stderr
    assert build.returncode == 0, log
    # an SPDX license string: no "License classifiers / project.license as a TOML table are
    # deprecated" banner on every build and install
    assert "Deprecat" not in log, log
    return out / build.stdout.strip().splitlines()[-1]


def _check_wheel(wheel):
    """The wheel holds every subpackage, the CUDA sources, the license and the metadata."""
    assert wheel.name.startswith(f"cugraph_stream-{cugraph_stream.__version__}-py3-none-any")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        [metadata] = [n for n in names if n.endswith(".dist-info/METADATA")]
        meta = email.parser.Parser().parsestr(archive.read(metadata).decode())
        [license_file] = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
        assert archive.read(license_file) == (ROOT / "LICENSE").read_bytes()
    sources = sorted(p.name for p in (ROOT / "kernels").iterdir() if p.suffix in (".cu", ".cuh"))
    assert sources, "no CUDA sources in kernels/"
    for name in sources:
        assert f"cugraph_stream/kernels/{name}" in names
    for package in _packages_on_disk():
        assert package.replace(".", "/") + "/__init__.py" in names
    assert "cugraph_stream/doctor.py" in names
    assert meta["Version"] == cugraph_stream.__version__
    assert meta["License-Expression"] == "Apache-2.0"
    assert meta.get_all("License-File") == ["LICENSE"]
    assert not [c for c in meta.get_all("Classifier") or [] if c.startswith("License ::")]
    requires = meta.get_all("Requires-Dist")
    for dependency in PYPROJECT["project"]["dependencies"]:
        assert Requirement(dependency).name in {Requirement(r).name for r in requires}
    assert {"dask", "cu12", "cu13", "test", "fast-cpu"} <= set(meta.get_all("Provides-Extra"))
    for cuda in CUDA_EXTRAS:
        assert any(Requirement(r).name == f"cugraph-{cuda}" and Requirement(r).marker is not None
                   and Requirement(r).marker.evaluate({"extra": cuda}) for r in requires), cuda
    urls = dict(url.split(", ", 1) for url in meta.get_all("Project-URL"))
    assert urls == PYPROJECT["project"]["urls"]


def test_wheel_carries_the_cuda_sources(tmp_path):
    _require_build_tools()
    _check_wheel(_build("wheel", _source_tree(tmp_path), tmp_path / "dist"))


def test_sdist_builds_the_same_wheel(tmp_path):
    """The sdist holds the license and the CUDA sources, and a wheel built from it is complete."""
    _require_build_tools()
    sdist = _build("sdist", _source_tree(tmp_path), tmp_path / "sdist")
    assert sdist.name == f"cugraph_stream-{cugraph_stream.__version__}.tar.gz"
    top = f"cugraph_stream-{cugraph_stream.__version__}"
    with tarfile.open(sdist) as archive:
        names = set(archive.getnames())
        if hasattr(tarfile, "data_filter"):       # Python >= 3.10.12
            archive.extractall(tmp_path / "unpacked", filter="data")
        else:
            archive.extractall(tmp_path / "unpacked")
    for name in ("LICENSE", "README.md", "pyproject.toml", "PKG-INFO"):
        assert f"{top}/{name}" in names, name
    for kernel in (ROOT / "kernels").glob("*.cu*"):
        assert f"{top}/kernels/{kernel.name}" in names, kernel.name
    _check_wheel(_build("wheel", tmp_path / "unpacked" / top, tmp_path / "dist"))
