"""Every CUDA source compiles with nvcc for sm_80 and sm_90, with every template
instance the launcher names (skipped where nvcc is not on the PATH)."""
import shutil
import subprocess

import pytest

from cugraph_stream.backends import cuda_kernels

NVCC = shutil.which("nvcc")
pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc is not on the PATH")


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("source", sorted(cuda_kernels.SOURCES))
def test_source_compiles_with_every_instance(tmp_path, arch, source):
    # taking each instance's address forces nvcc to instantiate it, as NVRTC's
    # name_expressions do at run time
    names = cuda_kernels.SOURCES[source]()
    unit = tmp_path / f"{source}_instances.cu"
    lines = [f'#include "{cuda_kernels.kernels_dir() / (source + ".cu")}"', "void* cgs_instances[] = {"]
    lines += [f"  (void*)&{name}," for name in names]
    lines += ["};"]
    unit.write_text("\n".join(lines) + "\n")
    result = subprocess.run([NVCC, "-std=c++17", f"-arch={arch}", f"-I{cuda_kernels.kernels_dir()}", "-c",
                             str(unit), "-o", str(tmp_path / "out.o")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_sources_are_found():
    assert sorted(p.stem for p in cuda_kernels.kernels_dir().glob("*.cu")) == sorted(cuda_kernels.SOURCES)
