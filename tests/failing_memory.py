"""Allocations that fail on demand, for the all-or-nothing tests."""
import numpy as np


#: the allocating functions (of NumPy and CuPy alike) that AllocationFaults fails
#: (fancy indexing and arithmetic allocate too, but cannot be intercepted)
ALLOCATING = ("empty", "zeros", "ones", "full", "empty_like", "zeros_like", "full_like", "concatenate", "arange",
              "flatnonzero", "nonzero", "argsort", "sort", "unique", "cumsum", "where", "repeat", "bincount",
              "searchsorted", "diff", "append", "ascontiguousarray")


class AllocationFaults:
    """Context manager: the ``at``-th call (0-based) of an allocating function
    (:data:`ALLOCATING`) of array module ``xp`` (NumPy, or CuPy) made by the
    package's own code raises ``error``, once; ``at=None`` only counts.
    ``calls`` counts the package's calls, ``fired`` says whether the fault was
    raised, ``where`` names the call that raised."""

    def __init__(self, at=None, error=MemoryError, xp=np):
        self.at, self.error, self.xp = at, error, xp
        self.calls, self.fired, self.where = 0, False, None
        self._saved = {}

    def __enter__(self):
        import sys

        np = self.xp                    # (the module whose functions are wrapped)
        for name in ALLOCATING:
            real = getattr(np, name)
            self._saved[name] = real

            def wrapped(*args, _real=real, _name=name, **kwargs):
                caller = sys._getframe(1)
                if caller.f_globals.get("__name__", "").startswith("cugraph_stream"):
                    index = self.calls
                    self.calls += 1
                    if index == self.at:
                        self.fired = True
                        self.where = (f"{self.xp.__name__}.{_name} at "
                                      f"{caller.f_code.co_filename.split('cugraph_stream/')[-1]}:{caller.f_lineno}")
                        raise self.error(f"injected at {self.where}")
                return _real(*args, **kwargs)
            setattr(np, name, wrapped)
        return self

    def __exit__(self, *exc):
        for name, real in self._saved.items():
            setattr(self.xp, name, real)
        return False
