"""The device headers are self-contained (each one compiles on its own, as a precompiled header
needs) and warning-free, so user compiles report only the user's own warnings."""

from __future__ import annotations

import subprocess

import pytest

from ascend_tools.toolchain.flags import EMU_INCLUDE as INCLUDE

TOPIC_HEADERS = sorted(
    str(p.relative_to(INCLUDE))
    for p in INCLUDE.glob("kernelgen/*.h")
    if not p.name.startswith("host_")
)
LIB_HEADERS = sorted(str(p.relative_to(INCLUDE)) for p in INCLUDE.glob("lib/**/*.h"))


def syntax_check(source: str, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["g++", "-std=c++17", "-fsyntax-only", "-x", "c++", f"-I{INCLUDE}", *flags, "-"],
        input=source,
        capture_output=True,
        text=True,
    )


def test_entry_and_library_headers_compile_warning_free() -> None:
    source = "".join(f'#include "{h}"\n' for h in ["kernel_operator.h", *LIB_HEADERS])
    res = syntax_check(source, "-Wall", "-Wextra", "-Werror")
    assert res.returncode == 0, res.stderr[-3000:]


@pytest.mark.slow
@pytest.mark.parametrize("header", TOPIC_HEADERS)
def test_topic_header_compiles_on_its_own(header: str) -> None:
    res = syntax_check(f'#include "{header}"\n', "-Wall", "-Wextra", "-Werror")
    assert res.returncode == 0, res.stderr[-3000:]


@pytest.mark.parametrize("aicore", ["100", "220"])
def test_kernel_operator_needs_no_macros_but_keeps_the_chip_ones(aicore: str) -> None:
    source = (
        '#include "kernel_operator.h"\n'
        f"#if __CCE_AICORE__ != {aicore}\n#error chip macro lost\n#endif\n"
        'extern "C" __global__ __aicore__ void k(GM_ADDR x) { AscendC::GlobalTensor<half> g;'
        " g.SetGlobalBuffer((__gm__ half*)x, 16); }\n"
    )
    res = syntax_check(source, f"-D__CCE_AICORE__={aicore}", "-D__CCE_KT_TEST__=1")
    assert res.returncode == 0, res.stderr[-3000:]


def test_list_tensor_desc_is_reachable_through_its_documented_header() -> None:
    # The API reference names kernel_operator_list_tensor_intf.h for ListTensorDesc; kernels
    # of the DYNAMIC-input samples (AddN) include it alone.
    source = (
        '#include "kernel_operator_list_tensor_intf.h"\n'
        'extern "C" __global__ __aicore__ void k(GM_ADDR xs) { AscendC::ListTensorDesc d(xs);'
        " (void)d.GetDataPtr<half>(0); }\n"
    )
    res = syntax_check(source, "-D__CCE_AICORE__=220", "-D__CCE_KT_TEST__=1")
    assert res.returncode == 0, res.stderr[-3000:]


def test_high_level_apis_take_only_their_tiling_types() -> None:
    # A struct with SoftMaxTiling's fields is not a SoftMaxTiling: the NPU build rejects it.
    source = (
        '#include "kernel_operator.h"\n#include "kernel_tiling/kernel_tiling.h"\n'
        "struct MyTiling { uint32_t srcM, srcK, splitM; };\n"
        "void k(AscendC::LocalTensor<float> t) { MyTiling m{8, 64, 8};"
        " AscendC::SoftMax<float>(t, t, t, t, m); }\n"
    )
    res = syntax_check(source, "-D__CCE_AICORE__=220", "-D__CCE_KT_TEST__=1")
    assert res.returncode != 0 and "take a SoftMaxTiling" in res.stderr, res.stderr[-2000:]
