"""Backends: the operator layer, the only code that knows the device.

``get_backend(name)`` returns the operators for ``"cpu"`` (NumPy, with numba
kernels for the hottest operators where numba is installed: the ``fast-cpu``
extra), ``"gpu"`` (CuPy with the CUDA sources in ``kernels/``, where
installed) or ``"auto"`` (the GPU when CuPy sees one, else the CPU).
"""
from __future__ import annotations

import importlib

from .base import Backend
from .cpu import CPUBackend

__all__ = ["Backend", "CPUBackend", "get_backend", "available_backends"]

# (relative: a copy of the package under another name finds its own modules, as
# benchmarks/ab_revisions.py needs)
_MODULES = {"cpu": (".cpu", "CPUBackend"), "gpu": (".gpu", "GPUBackend")}


def _load(name):
    module_name, class_name = _MODULES[name]
    try:
        module = importlib.import_module(module_name, __package__)
    except ImportError as error:
        return None, f"{__package__}{module_name} could not be imported: {error}"
    backend_class = getattr(module, class_name)
    reason = backend_class.unavailable_reason() if hasattr(backend_class, "unavailable_reason") else None
    if reason:
        return None, reason
    return backend_class, None


def available_backends():
    """Map each backend name to ``None`` when usable, else the reason it is not.

    >>> available_backends()["cpu"] is None
    True
    """
    return {name: _load(name)[1] for name in _MODULES}


def get_backend(name="cpu", compiled=None):
    """Return the operators for backend ``name`` (``"cpu"``, ``"gpu"`` or ``"auto"``).

    ``compiled`` concerns the CPU backend only: ``None`` (default) runs its
    numba kernels where numba is importable, unless the environment variable
    ``CUGRAPH_STREAM_CPU_KERNELS`` is ``0``; ``False`` forces the NumPy
    operators; ``True`` requires the kernels (``ValueError`` without numba).
    Results are the same either way (see
    :mod:`cugraph_stream.backends.cpu_kernels`).

    >>> get_backend("cpu").name
    'cpu'
    >>> get_backend("cpu", compiled=False).compiled
    False
    """
    if isinstance(name, Backend):
        return name
    if name == "auto":
        backend_class, _ = _load("gpu")
        return backend_class() if backend_class is not None else CPUBackend(compiled)
    if name not in _MODULES:
        raise ValueError(f"backend must be one of 'cpu', 'gpu' or 'auto', got {name!r}")
    backend_class, reason = _load(name)
    if backend_class is None:
        raise ValueError(f"backend={name!r} is not available here: {reason}")
    return backend_class(compiled) if name == "cpu" else backend_class()
