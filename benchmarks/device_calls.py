"""Count the kernel launches and host synchronisations a process makes on its GPU (CUPTI).

``BatchReport.launches`` and ``.syncs`` are what the operator layer asked
for; this module measures what reached the CUDA driver, whoever made the
call (CuPy, CUB, NVRTC kernels, cuDF), with CUPTI's callback API loaded
through ``ctypes``.  Only the calls below are subscribed to, so counting
costs a few microseconds per launch.

* launches: ``cuLaunchKernel`` (and its ``_ptsz``, ``Ex`` and cooperative
  variants), ``cudaLaunchKernel`` and ``cudaLaunchKernelExC``, and graph
  launches; a driver call made inside a counted runtime call is not counted
  again.
* syncs: stream, context, device and event synchronisations, and the
  synchronous copies (``cudaMemcpy``, ``cuMemcpy``, ``cuMemcpyDtoH``).  A
  CuPy device-to-host read (``int(x)``, ``x.get()``) is an asynchronous copy
  followed by a stream synchronisation: one sync.

Only one CUPTI subscriber may exist per process: under ``nsys``, ``ncu``
or ``torch.profiler`` :class:`CuptiCounter` raises ``RuntimeError``.

Example (on a machine with a GPU)::

    with CuptiCounter() as counter:
        report = g.apply(batch)
    print(counter.launches, counter.syncs, report.launches, report.syncs)
"""
from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
import sys

# cupti_callbacks.h
_API_ENTER = 0
_DOMAIN_DRIVER = 1
_DOMAIN_RUNTIME = 2

# cupti_driver_cbid.h / cupti_runtime_cbid.h (CUDA 13.0)
_DRIVER_LAUNCHES = {307: "cuLaunchKernel", 442: "cuLaunchKernel_ptsz", 652: "cuLaunchKernelEx",
                    653: "cuLaunchKernelEx_ptsz", 477: "cuLaunchCooperativeKernel", 514: "cuGraphLaunch"}
_DRIVER_SYNCS = {17: "cuCtxSynchronize", 121: "cuEventSynchronize", 126: "cuStreamSynchronize",
                 440: "cuStreamSynchronize_ptsz", 278: "cuMemcpyDtoH_v2", 305: "cuMemcpy"}
_RUNTIME_LAUNCHES = {211: "cudaLaunchKernel", 214: "cudaLaunchKernel_ptsz", 430: "cudaLaunchKernelExC",
                     311: "cudaGraphLaunch"}
_RUNTIME_SYNCS = {131: "cudaStreamSynchronize", 239: "cudaStreamSynchronize_ptsz", 165: "cudaDeviceSynchronize",
                  137: "cudaEventSynchronize", 31: "cudaMemcpy", 215: "cudaMemcpy_ptds"}

_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32, ctypes.c_void_p)


def _load_cupti():
    """libcupti from CUDA_HOME, the nvidia wheels or the loader path; None when absent."""
    candidates = []
    for root in filter(None, (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda")):
        candidates += sorted(glob.glob(os.path.join(root, "lib*", "libcupti.so*")))
        candidates += sorted(glob.glob(os.path.join(root, "extras", "CUPTI", "lib*", "libcupti.so*")))
    for path in sys.path:
        candidates += sorted(glob.glob(os.path.join(path, "nvidia", "*", "lib", "libcupti.so*")))
        candidates += sorted(glob.glob(os.path.join(path, "nvidia", "cuda_cupti", "lib", "libcupti.so*")))
    found = ctypes.util.find_library("cupti")
    if found:
        candidates.append(found)
    for candidate in candidates:
        try:
            return ctypes.CDLL(candidate)
        except OSError:
            continue
    return None


class CuptiCounter:
    """Context manager counting this process's GPU kernel launches and host syncs.

    Attributes
    ----------
    launches, syncs : int
        Counts since the block began (read them after it ends, or inside it).
    by_name : dict
        Count per API call name.
    """

    def __init__(self):
        self.launches = 0
        self.syncs = 0
        self.by_name = {}
        self._depth = 0
        self._lib = None
        self._subscriber = ctypes.c_void_p()
        self._callback = _CALLBACK(self._on_call)     # kept referenced while subscribed

    @staticmethod
    def available():
        """Whether libcupti can be loaded here."""
        return _load_cupti() is not None

    def _on_call(self, _userdata, domain, cbid, data):
        site = ctypes.cast(data, ctypes.POINTER(ctypes.c_int))[0]
        if domain == _DOMAIN_RUNTIME:
            if site != _API_ENTER:
                self._depth -= 1
                return
            self._depth += 1
            self._count(cbid, _RUNTIME_LAUNCHES, _RUNTIME_SYNCS)
        elif site == _API_ENTER and self._depth == 0:
            self._count(cbid, _DRIVER_LAUNCHES, _DRIVER_SYNCS)

    def _count(self, cbid, launches, syncs):
        if cbid in launches:
            self.launches += 1
            name = launches[cbid]
        elif cbid in syncs:
            self.syncs += 1
            name = syncs[cbid]
        else:
            return
        self.by_name[name] = self.by_name.get(name, 0) + 1

    def __enter__(self):
        lib = _load_cupti()
        if lib is None:
            raise RuntimeError("libcupti was not found (CUDA_HOME, the nvidia-cuda-cupti wheel, the loader path)")
        result = lib.cuptiSubscribe(ctypes.byref(self._subscriber), self._callback, None)
        if result != 0:
            raise RuntimeError(f"cuptiSubscribe failed with CUPTI error {result} "
                               "(another profiler, such as nsys or torch.profiler, may hold the subscription)")
        self._lib = lib
        for domain, table in ((_DOMAIN_DRIVER, {**_DRIVER_LAUNCHES, **_DRIVER_SYNCS}),
                              (_DOMAIN_RUNTIME, {**_RUNTIME_LAUNCHES, **_RUNTIME_SYNCS})):
            for cbid in table:
                result = lib.cuptiEnableCallback(1, self._subscriber, domain, cbid)
                if result != 0:
                    self.__exit__(None, None, None)
                    raise RuntimeError(f"cuptiEnableCallback({domain}, {cbid}) failed with CUPTI error {result}")
        return self

    def __exit__(self, *exc):
        if self._lib is not None:
            self._lib.cuptiUnsubscribe(self._subscriber)
            self._lib = None
        return False
