"""The rule codes and the GPU's rule instances, tied to their one source.

* ``kernels/common.cuh`` numbers ``extend`` and ``order`` as
  :data:`cugraph_stream.algorithms.rule.EXTENDS` / ``ORDERS`` do (C++ cannot
  import them, so this test reads the header);
* every rule a query kind of :data:`cugraph_stream.queries.KINDS` can ask for
  (every weight dtype, directed or not) has a compiled relax kernel instance,
  and every compiled instance is asked for by some kind.

CPU only: these read names, they compile and launch nothing.
"""
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
