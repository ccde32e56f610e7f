"""The local judge's llama.cpp is built for any x86-64 machine with AVX2, not for this CPU.

A native build (GGML_NATIVE) on a Xeon that advertises AMX emitted tile instructions that the
VM trapped (SIGILL at the first chat request, issue 34), and a native build anywhere emits
AVX-512 on a CPU that has it. The built CPU backend must hold neither: no AMX tile instruction,
no zmm (AVX-512) register. Checked by disassembling the installed library with objdump.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

CACHE = Path(os.environ.get("RAGMETER_CACHE", Path.home() / ".cache" / "ragmeter"))


def _cpu_backend() -> Path:
    libs = sorted((CACHE / "llm-venv").glob("lib/python3*/site-packages/llama_cpp/lib/libggml-cpu.so"))
    if not libs:
        pytest.fail(f"no libggml-cpu.so under {CACHE / 'llm-venv'}: run scripts/setup_llm.sh")
    return libs[0]


@pytest.mark.skipif(os.environ.get("RAGMETER_SKIP_LLM") == "1", reason="RAGMETER_SKIP_LLM=1")
def test_cpu_backend_has_no_amx_and_no_avx512():
    assert shutil.which("objdump"), "objdump (binutils) is needed"
    listing = subprocess.run(["objdump", "-d", "--no-show-raw-insn", str(_cpu_backend())],
                             capture_output=True, text=True, check=True).stdout
    amx = re.findall(r"\b(tilezero|tileloadd\w*|tilestored|tdpb\w+|ldtilecfg)\b", listing)
    zmm = re.findall(r"%zmm\d+", listing)
    ymm = re.findall(r"%ymm\d+", listing)
    assert not amx, f"AMX instructions in the CPU backend: {sorted(set(amx))}"
    assert not zmm, f"{len(zmm)} AVX-512 (zmm) operands in the CPU backend"
    assert ymm, "no AVX2 (ymm) code at all: the build lost its SIMD kernels"
