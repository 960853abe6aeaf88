"""An array module whose allocations fail on demand, for the all-or-nothing tests."""
import numpy as np


class FailingZeros:
    """NumPy, but the ``fail_at``-th call of ``zeros`` raises ``MemoryError``."""

    def __init__(self, fail_at):
        self.calls, self.fail_at = 0, fail_at

    def zeros(self, *args, **kwargs):
        self.calls += 1
        if self.calls == self.fail_at:
            raise MemoryError("injected")
        return np.zeros(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(np, name)
