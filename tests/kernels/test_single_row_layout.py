"""The one-row record's layout is written twice: the enums of kernels/single_row.cu and
the constants of backends/base.py that the engine and the CPU backend read.  They must
name the same words (a CI check: no GPU needed)."""
import re

from cugraph_stream.backends import base
from cugraph_stream.backends.cuda_kernels import kernels_dir


def test_the_kernels_record_layout_is_the_engines():
    source = (kernels_dir() / "single_row.cu").read_text()
    enums = dict(re.findall(r"\b((?:SR|SINGLE)_[A-Z_]+) = (\d+)", source))
    assert len(enums) == 6 + 20 + 3 + 1        # statuses, record words, weights, SINGLE_ROW_TREES
    for name, value in enums.items():
        assert getattr(base, name) == int(value), name
