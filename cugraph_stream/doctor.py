"""``python -m cugraph_stream.doctor`` (or ``cugraph-stream doctor``): what this install can use.

Reports Python and the platform, the package version and where it is
installed, whether the CUDA sources shipped with it, which backends can run
(and why one cannot), which optional packages are installed (with their
versions, or why they fail to import) and the CUDA devices CuPy sees.  Every
optional package is imported here, lazily and one by one; a missing or
broken one is reported, never raised.

Examples
--------
>>> from cugraph_stream.doctor import collect, format_report
>>> info = collect(packages=("networkx",))
>>> info["backends"]["cpu"] is None
True
>>> "cugraph_stream" in format_report(info)
True
"""
from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import importlib.util
import json
import os
import platform
import sys

from .pipes import run_command

__all__ = ["OPTIONAL_PACKAGES", "collect", "format_report", "main"]

#: import name -> what the package is for here
OPTIONAL_PACKAGES = {
    "cupy": "GPU backend (arrays and CUDA kernels)",
    "rmm": "GPU memory pools",
    "cudf": "GPU dataframes in and out",
    "pylibcugraph": "GPU baselines and initial fixpoints",
    "cugraph": "StreamGraph.from_cugraph / to_cugraph",
    "dask": "apply_stream and cugraph_stream.dask",
    "distributed": "cugraph_stream.dask (one engine per worker)",
    "dask_cuda": "one engine per GPU (LocalCUDACluster)",
    "dask_cudf": "dask-cudf streams and results",
    "numba": "the CPU backend's compiled kernels (fast-cpu)",
    "networkx": "tests and references",
    "pyarrow": "Arrow tables in",
    "tqdm": "progress bars",
}


def _package_version(name, module=None):
    version = getattr(module, "__version__", None) if module is not None else None
    if version is None:
        try:
            version = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            version = None
    return None if version is None else str(version)


def _optional_package(name):
    """``{"installed": bool, "version": str|None, "error": str|None}`` for one package."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError) as error:
        return {"installed": False, "version": None, "error": f"{type(error).__name__}: {error}"}
    if spec is None:
        return {"installed": False, "version": None, "error": None}
    try:
        module = importlib.import_module(name)
    except Exception as error:  # noqa: BLE001 - a broken install (CUDA libraries missing...) is a finding
        return {"installed": True, "version": _package_version(name),
                "error": f"import fails: {type(error).__name__}: {error}"}
    return {"installed": True, "version": _package_version(name, module), "error": None}


def _cuda_devices():
    """``(devices, error)``: the CUDA devices CuPy sees, or why it sees none."""
    if importlib.util.find_spec("cupy") is None:
        return [], "CuPy is not installed"
    try:
        import cupy

        runtime = cupy.cuda.runtime
        count = runtime.getDeviceCount()
    except Exception as error:  # noqa: BLE001 - reported, never raised
        return [], f"{type(error).__name__}: {error}"
    devices = []
    for index in range(count):
        device = {"index": index}
        try:
            props = runtime.getDeviceProperties(index)
            name = props.get("name", b"")
            device["name"] = name.decode() if isinstance(name, bytes) else str(name)
            device["compute_capability"] = f"{props.get('major')}.{props.get('minor')}"
            device["total_memory_bytes"] = int(props.get("totalGlobalMem", 0))
            with cupy.cuda.Device(index):
                free, _ = runtime.memGetInfo()
            device["free_memory_bytes"] = int(free)
        except Exception as error:  # noqa: BLE001 - reported, never raised
            device["error"] = f"{type(error).__name__}: {error}"
        devices.append(device)
    return devices, None


def _cuda_versions():
    try:
        import cupy

        runtime = cupy.cuda.runtime
        return {"driver": runtime.driverGetVersion(), "runtime": runtime.runtimeGetVersion()}
    except Exception:  # noqa: BLE001 - reported, never raised
        return None


def _kernel_sources():
    """Names of the CUDA sources found beside the package, or the error."""
    try:
        from .backends.cuda_kernels import kernels_dir

        folder = kernels_dir()
    except Exception as error:  # noqa: BLE001 - reported, never raised
        return {"path": None, "files": [], "error": f"{type(error).__name__}: {error}"}
    files = sorted(p.name for p in folder.iterdir() if p.suffix in (".cu", ".cuh"))
    return {"path": str(folder), "files": files, "error": None}


def collect(packages=None):
    """Gather the report as a JSON-ready dict.

    Parameters
    ----------
    packages : iterable of str, optional
        Import names of the optional packages to look for (default: every
        name in :data:`OPTIONAL_PACKAGES`).

    Returns
    -------
    dict
        Keys ``python``, ``platform``, ``cugraph_stream`` (version, path),
        ``kernels`` (the CUDA sources found), ``backends`` (name -> None when
        usable, else the reason it is not), ``packages`` (name -> installed,
        version, error), ``cuda`` (driver and runtime versions, devices, error).
    """
    from . import __file__ as package_file
    from ._version import __version__
    from .backends import available_backends

    names = tuple(OPTIONAL_PACKAGES if packages is None else packages)
    devices, device_error = _cuda_devices()
    return {
        "python": {"version": platform.python_version(),
                   "implementation": platform.python_implementation(),
                   "executable": sys.executable},
        "platform": {"system": platform.system(), "release": platform.release(),
                     "machine": platform.machine(), "platform": platform.platform()},
        "cugraph_stream": {"version": __version__, "path": os.path.dirname(package_file)},
        "kernels": _kernel_sources(),
        "backends": available_backends(),
        "packages": {name: _optional_package(name) for name in names},
        "cuda": {"versions": _cuda_versions(), "devices": devices, "error": device_error},
    }


def _gib(nbytes):
    return f"{nbytes / 2 ** 30:.1f} GiB"


def format_report(info):
    """The report of :func:`collect` as text, one finding a line."""
    py, plat, pkg = info["python"], info["platform"], info["cugraph_stream"]
    lines = [f"cugraph_stream {pkg['version']} ({pkg['path']})",
             f"python         {py['version']} ({py['implementation']}, {py['executable']})",
             f"platform       {plat['platform']}"]
    kernels = info["kernels"]
    if kernels["error"]:
        lines.append(f"CUDA sources   missing: {kernels['error']}")
    else:
        lines.append(f"CUDA sources   {len(kernels['files'])} files in {kernels['path']}")
    lines.append("")
    lines.append("backends")
    for name, reason in info["backends"].items():
        lines.append(f"  {name:<12} {'available' if reason is None else 'unavailable: ' + reason}")
    lines.append("")
    lines.append("optional packages")
    for name, found in info["packages"].items():
        if not found["installed"]:
            state = "not installed" + (f" ({found['error']})" if found["error"] else "")
        else:
            state = found["version"] or "installed (version unknown)"
            if found["error"]:
                state += f", {found['error']}"
        purpose = OPTIONAL_PACKAGES.get(name)
        lines.append(f"  {name:<12} {state}" + (f"  [{purpose}]" if purpose else ""))
    lines.append("")
    cuda = info["cuda"]
    versions = cuda["versions"]
    header = "CUDA devices"
    if versions:
        header += f" (driver {versions['driver']}, runtime {versions['runtime']})"
    lines.append(header)
    if cuda["error"]:
        lines.append(f"  none: {cuda['error']}")
    elif not cuda["devices"]:
        lines.append("  none")
    for device in cuda["devices"]:
        if "error" in device and "name" not in device:
            lines.append(f"  {device['index']}: {device['error']}")
            continue
        text = (f"  {device['index']}: {device['name']}, compute capability "
                f"{device['compute_capability']}, {_gib(device['total_memory_bytes'])}")
        if "free_memory_bytes" in device:
            text += f" ({_gib(device['free_memory_bytes'])} free)"
        if "error" in device:
            text += f"; {device['error']}"
        lines.append(text)
    return "\n".join(lines)


def add_arguments(parser):
    """Add the doctor's options to an argparse parser (shared with ``cugraph-stream doctor``)."""
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--require", action="append", choices=("cpu", "gpu"), default=[],
                        metavar="BACKEND",
                        help="exit with status 1 unless this backend (cpu or gpu) is "
                             "available (repeat for several)")
    return parser


def run(args):
    """Print the report for parsed ``args``; return the exit status."""
    info = collect()
    print(json.dumps(info, indent=2) if args.json else format_report(info))
    missing = [name for name in args.require if info["backends"].get(name) is not None]
    for name in missing:
        print(f"doctor: required backend {name!r} is unavailable: {info['backends'][name]}",
              file=sys.stderr)
    return 1 if missing else 0


def main(argv=None):
    """Entry point of ``python -m cugraph_stream.doctor``; returns the exit status."""
    parser = add_arguments(argparse.ArgumentParser(
        prog="python -m cugraph_stream.doctor",
        description="Report the backends, GPU packages and devices cugraph_stream finds."))
    return run_command(lambda: run(parser.parse_args(argv)))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
