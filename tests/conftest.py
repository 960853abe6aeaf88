"""Shared test configuration.

* ``tests/`` and the repository root go on ``sys.path`` so that test modules
  (collected with ``--import-mode=importlib``) can ``import reference`` and
  ``import cugraph_stream`` without an install.
* Hypothesis profiles: ``ci`` (default: few examples, quick), ``thorough``
  (20x the examples) and ``dev`` (a handful); pick one with
  ``HYPOTHESIS_PROFILE=thorough``.  ``CUGRAPH_STREAM_TEST_CALL_DEADLINE``
  (seconds, default 30) turns a package call that hangs into a failure.
  ``CUGRAPH_STREAM_TEST_NO_SHRINK=1`` reports a hypothesis failure as found,
  without shrinking it (on the lent GPU, shrinking can outlast the call).
* ``backend`` fixture: the backends to run against, from
  ``CUGRAPH_STREAM_TEST_BACKENDS`` (comma separated, default ``cpu,gpu``); the
  CPU backend is the reference for the others.  GPU cases carry the ``gpu``
  marker (``pytest -m gpu`` runs them) and are skipped where no GPU backend is
  available.
* ``ops`` fixture: the operators of each of those backends.
* ``Journal.verify_distinct`` is on: a journaled write that vouches for
  distinct positions (and so keeps the pre-image ``exchange`` reads) is
  checked for repeats.
* ``placement`` fixture: where the adjacency lives (``device``; ``host`` on
  the GPU backend: pinned host memory read in place; ``cached``: a tiny
  hot-list cache, checked against the store after every batch).
"""
import os
import sys

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.dirname(_HERE)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
if _ROOT not in sys.path:          # last: an installed cugraph_stream wins
    sys.path.append(_ROOT)

from cugraph_stream.engine.journal import Journal  # noqa: E402  (after the path is set)

Journal.verify_distinct = True

try:
    from hypothesis import HealthCheck, Phase, settings
except ImportError:  # pragma: no cover - hypothesis is a test dependency
    settings = None

if settings is not None:
    _common = dict(deadline=None, print_blob=True,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                          HealthCheck.filter_too_much])
    if os.environ.get("CUGRAPH_STREAM_TEST_NO_SHRINK", "") not in ("", "0"):
        _common["phases"] = [Phase.explicit, Phase.reuse, Phase.generate]
    settings.register_profile("ci", max_examples=25, **_common)
    settings.register_profile("thorough", max_examples=500, **_common)
    settings.register_profile("dev", max_examples=5, **_common)
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


BACKENDS = [b.strip() for b in os.environ.get("CUGRAPH_STREAM_TEST_BACKENDS", "cpu,gpu").split(",")
            if b.strip()]


def _backend_param(name):
    if name == "cpu":
        return pytest.param(name)
    return pytest.param(name, marks=pytest.mark.gpu)


@pytest.fixture(params=[_backend_param(b) for b in BACKENDS], scope="session")
def backend(request):
    from cugraph_stream.backends import available_backends

    reason = available_backends().get(request.param)
    if reason:
        pytest.skip(f"backend {request.param!r} unavailable: {reason}")
    return request.param


@pytest.fixture(params=[_backend_param(b) for b in BACKENDS])
def ops(request):
    """The operators of each backend (for operator-level tests)."""
    from cugraph_stream.backends import available_backends, get_backend

    reason = available_backends().get(request.param)
    if reason:
        pytest.skip(f"backend {request.param!r} unavailable: {reason}")
    return get_backend(request.param)


@pytest.fixture(params=["device", pytest.param("host", marks=pytest.mark.gpu), "cached"], scope="session")
def placement(request, backend):
    if request.param == "host" and backend == "cpu":
        pytest.skip("on the CPU backend placement='host' is the same memory as 'device'")
    return request.param


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: long-running differential tests")
