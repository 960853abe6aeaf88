"""The rule codes and the GPU's rule instances, tied to their one source.

* ``kernels/common.cuh`` numbers ``extend`` and ``order`` as
  :data:`cugraph_stream.algorithms.rule.EXTENDS` / ``ORDERS`` do (C++ cannot
  import them, so this test reads the header);
* every rule a query kind of :data:`cugraph_stream.queries.KINDS` can ask for
  (every weight dtype, directed or not) has a compiled relax kernel instance,
  and every compiled instance is asked for by some kind.

These read names, they compile and launch nothing; but for
:meth:`~cugraph_stream.algorithms.rule.Rule.improves`, the host's reading of a
rule, which must decide as each backend's ``relax_arcs`` does.
"""
import itertools
import re

import numpy as np
import pytest

from cugraph_stream.algorithms import Rule, every_rule
from cugraph_stream.algorithms import rule as rule_module
from cugraph_stream.backends import cuda_kernels
from cugraph_stream.queries import KINDS, MonotonicQuery

MONOTONIC = [cls for cls in KINDS.values() if issubclass(cls, MonotonicQuery)]
WEIGHT_DTYPES = list(cuda_kernels.WEIGHT_TYPES)


def header_enum(name, prefix):
    """``{lower-case member without prefix: value}`` of ``enum name`` in common.cuh."""
    text = (cuda_kernels.kernels_dir() / "common.cuh").read_text()
    body = re.search(rf"enum\s+{name}\s*\{{([^}}]*)\}}", text)
    assert body, f"enum {name} not found in common.cuh"
    members = re.findall(rf"\b{prefix}_(\w+)\s*=\s*(\d+)", body.group(1))
    return {member.lower(): int(value) for member, value in members}


def instance_name(kernel, rule, weight_dtype):
    """The name GPUOps._relax_kernel asks the relax module for."""
    return cuda_kernels.relax_name(kernel, cuda_kernels.VALUE_TYPES[np.dtype(rule.value_dtype)],
                                   cuda_kernels.WEIGHT_TYPES[np.dtype(weight_dtype)], rule.extend, rule.order)


def kind_rules():
    """``(kind, weight dtype, directed, rule)`` of every rule a query kind can ask for."""
    return [(cls.kind, w, directed, cls.rule(w, directed))
            for cls in MONOTONIC for w in WEIGHT_DTYPES for directed in (True, False)]


def test_common_cuh_numbers_the_rule_codes_as_python_does():
    assert header_enum("Extend", "EXTEND") == rule_module.EXTENDS
    assert header_enum("Order", "ORDER") == rule_module.ORDERS


def test_the_launcher_uses_the_rule_codes_of_the_algorithms():
    assert cuda_kernels.EXTENDS is rule_module.EXTENDS
    assert cuda_kernels.ORDERS is rule_module.ORDERS


def test_rule_codes_are_distinct():
    for codes in (rule_module.EXTENDS, rule_module.ORDERS):
        assert sorted(codes.values()) == list(range(len(codes)))


def test_rule_rejects_unknown_codes_listing_the_known_ones():
    with pytest.raises(ValueError, match=r"extend must be one of \('add', 'add_one', 'min', 'copy'\)"):
        Rule("mul", "min", np.dtype(np.float32), None, True)
    with pytest.raises(ValueError, match=r"order must be one of \('min', 'max'\)"):
        Rule("add", "median", np.dtype(np.float32), None, True)


@pytest.mark.parametrize("kind, weight_dtype, directed, rule", kind_rules(),
                         ids=[f"{k}-{w}-{'directed' if d else 'undirected'}" for k, w, d, _ in kind_rules()])
def test_every_rule_of_every_kind_has_a_compiled_instance(kind, weight_dtype, directed, rule):
    compiled = set(cuda_kernels.relax_name_expressions())
    for kernel in cuda_kernels.RELAX_KERNELS:
        assert instance_name(kernel, rule, weight_dtype) in compiled, (kind, kernel)


def test_every_rule_of_every_kind_is_a_rule_of_the_specs():
    specs = every_rule(WEIGHT_DTYPES)
    for kind, w, directed, rule in kind_rules():
        assert rule in specs, (kind, w, directed)


def test_every_compiled_rule_instance_is_asked_for_by_a_kind():
    asked = {(cuda_kernels.VALUE_TYPES[np.dtype(r.value_dtype)], r.extend, r.order) for *_, r in kind_rules()}
    assert set(cuda_kernels.RULE_INSTANCES) == asked


def test_instances_are_named_once():
    assert len(set(cuda_kernels.RULE_INSTANCES)) == len(cuda_kernels.RULE_INSTANCES)
    names = cuda_kernels.relax_name_expressions()
    assert len(set(names)) == len(names)
    assert len(names) == 1 + len(cuda_kernels.RULE_INSTANCES) * len(WEIGHT_DTYPES) * len(cuda_kernels.RELAX_KERNELS)


def test_uses_weights_of_a_kind_matches_its_rule():
    for kind, w, directed, rule in kind_rules():
        assert rule.uses_weights == KINDS[kind].weighted, kind


def _values_of(rule):
    """Values of ``rule``'s dtype where sums and comparisons go wrong if anywhere:
    zero, subnormals, ties, the largest values and the unreachable one."""
    dtype = np.dtype(rule.value_dtype)
    if dtype.kind == "f":
        info = np.finfo(dtype)
        values = [0.0, -0.0, info.smallest_subnormal, 2 * info.smallest_subnormal, info.tiny, 1.0, 1.5, 2.5,
                  info.max / 2, info.max, -np.inf]
    else:
        info = np.iinfo(dtype)
        values = [0, 1, 2, 7, info.max - 1, info.max]
    if rule.unreachable is not None:
        values.append(rule.unreachable)
    return np.array(values, dtype=dtype)


@pytest.mark.parametrize("rule", every_rule(WEIGHT_DTYPES), ids=lambda r: f"{r.extend}-{r.order}-{r.value_dtype}")
def test_improves_decides_as_the_backends_relax_an_arc(ops, rule):
    """For every pair of values (source, target) and weight among the awkward
    ones, ``rule.improves`` says whether the backend's ``relax_arcs`` improves
    the target (the host's decision that spares a one-row insert its
    correction, engine/monotonic.py)."""
    values = _values_of(rule)
    weight_dtype = rule.value_dtype if rule.uses_weights else np.float32
    weights = np.array([0.0, np.finfo(np.float32).smallest_subnormal, 1.0, 1.5, 1e30], dtype=weight_dtype)
    triples = list(itertools.product(values, weights, values))
    n = len(triples)
    value = np.empty(2 * n, dtype=rule.value_dtype)
    value[0::2] = [s for s, _, _ in triples]
    value[1::2] = [t for _, _, t in triples]
    u, v = np.arange(0, 2 * n, 2), np.arange(1, 2 * n, 2)
    w = np.array([x for _, x, _ in triples], dtype=weight_dtype)
    improved = ops.relax_arcs(*(ops.asarray(a) for a in (u, v, w, value)), ops.asarray(np.full(2 * n, -1)), rule)
    improved = set(ops.to_host(improved).tolist())
    for k, (source, weight, target) in enumerate(triples):
        assert rule.improves(source, weight, target) == (2 * k + 1 in improved), (source, weight, target)
