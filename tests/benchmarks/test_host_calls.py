import sys

import pytest

from benchmarks import host_calls
from cugraph_stream.backends import get_backend


class _Lists:
    def grow(self, items, item):
        return self.extend(items, [item])

    def extend(self, items, more):
        return items + more


def test_host_timer_counts_outermost_calls_by_line_and_restores():
    timer = host_calls.HostTimer()
    timer.wrap(_Lists, "grow", "grow")
    timer.wrap(_Lists, "extend", "extend")
    lists = _Lists()
    for _ in range(3):
        assert lists.grow([1], 2) == [1, 2]          # extend runs inside grow: not counted
    assert lists.extend([], [0]) == [0]
    table = timer.table()
    assert [(label, calls) for (label, _), (_, calls) in table.items()] in (
        [("grow", 3), ("extend", 1)], [("extend", 1), ("grow", 3)])
    assert all(seconds >= 0 for seconds, _ in table.values())
    timer.restore()
    assert _Lists.grow.__qualname__ == "_Lists.grow" and not hasattr(_Lists.extend, "__wrapped__")


def test_inherited_methods_are_unwrapped_from_the_subclass_only():
    class Base:
        def name(self):
            return "base"

    class Derived(Base):
        pass

    timer = host_calls.HostTimer()
    timer.wrap(Derived, "name", "name")
    assert Derived().name() == "base" and "name" in vars(Derived)
    timer.restore()
    assert "name" not in vars(Derived) and Derived().name() == "base"


def test_a_cpu_run_lists_the_operators_and_leaves_the_backend_as_it_was(capsys):
    cls = type(get_backend("cpu"))
    before = dict(vars(cls))
    assert host_calls.main(["--backend", "cpu", "--scale", "10", "--rows", "1", "--batches", "20"]) == 0
    out = capsys.readouterr().out
    assert "20 batches of 1 rows" in out and "`apply_single_row` | engine/single_row.py" in out
    assert dict(vars(cls)) == before
    assert "CuPy calls" not in out


def test_engine_line_finds_the_package_frame():
    def inner():
        return host_calls.engine_line(sys._getframe())
    assert inner() == "?"          # (this file is outside the package)


@pytest.mark.gpu
def test_a_gpu_run_lists_cupy_calls_and_unwraps_cupy(capsys):
    from cugraph_stream.backends import available_backends

    reason = available_backends().get("gpu")
    if reason:
        pytest.skip(f"backend 'gpu' unavailable: {reason}")
    import cupy

    functions = {name: getattr(cupy, name) for name in host_calls.CUPY_FUNCTIONS}
    members = dict(vars(cupy.ndarray))
    assert host_calls.main(["--scale", "10", "--rows", "100", "--batches", "5", "--micro"]) == 0
    out = capsys.readouterr().out
    assert "RawKernel launch" in out and "CuPy calls" in out and "`ndarray" in out
    assert {name: getattr(cupy, name) for name in host_calls.CUPY_FUNCTIONS} == functions
    assert dict(vars(cupy.ndarray)) == members
