"""Device code as real kernels write it (issue #8, classes 3 and 4) compiles against the emulator
headers and does what the API reference documents (tests/emu/cpp/real_world.cpp): system
functions called unqualified without `using namespace AscendC`, the CCE block built-ins,
`__forceinline__`, ASSERT as a rule failure at its line, and Scatter, ArithProgression,
DataCopyEnhancedParams, DataCacheCleanAndInvalid, TOTAL_VEC_LOCAL_SIZE and the 310P
region-proposal sort (also under early CANN's names Concat / Extract)."""

from __future__ import annotations

import pytest
import torch
from emu_device_support import from_bytes, marker_line

N = 64


def _run(emu_build, run_program, case: str, x: torch.Tensor):
    return run_program(emu_build("real_world"), [case, "{x}", "{out:y}", "{report}"], {"x": x})


def test_scatter_arith_progression_plain_enhanced_copy_and_adl_call(emu_build, run_program) -> None:
    x = torch.randn(N, generator=torch.Generator().manual_seed(5))
    res = _run(emu_build, run_program, "scatter_progression", x)
    assert res.returncode == 0, res.stderr
    y = from_bytes(res.outputs["y"], "float32")
    torch.testing.assert_close(y[:N], x.flip(0), rtol=0, atol=0)
    torch.testing.assert_close(y[N:], 1.5 + 0.25 * torch.arange(N, dtype=torch.float32))


def test_assert_failure_stops_the_kernel_at_its_line(emu_build, run_program) -> None:
    res = _run(emu_build, run_program, "assert_false", torch.zeros(N))
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == "assert-failed"
    assert err["line"] == marker_line("real_world.cpp", "ASSERT: assert_false")
    assert "ASSERT(share % 8 == 0) failed" in err["message"]
    assert "share 21 is not a multiple of 8" in err["message"]


def test_enhanced_copy_with_relu_is_reported_not_emulated(emu_build, run_program) -> None:
    res = _run(emu_build, run_program, "enhanced_relu", torch.zeros(N))
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == "param-range" and "not emulated" in err["message"]
    assert err["line"] == marker_line("real_world.cpp", "ENHANCED: enhanced_relu")


@pytest.mark.parametrize("case", ["proposal_sort", "proposal_sort_early"])
def test_proposal_sort_orders_scores_like_a_stable_descending_sort(
    emu_build, run_program, case: str
) -> None:
    # proposal_sort_early: Concat's 310P form and early CANN's 4-argument Concat / Extract
    # (Ascend/samples' 2023 TopK), the same sort.
    x = torch.randn(N, generator=torch.Generator().manual_seed(6)).round(decimals=1)  # ties
    res = _run(emu_build, run_program, case, x)
    assert res.returncode == 0, res.stderr
    y = from_bytes(res.outputs["y"], "float32")
    values, indices = torch.sort(x, descending=True, stable=True)
    torch.testing.assert_close(y[:N], values, rtol=0, atol=0)
    torch.testing.assert_close(y[N:], indices.float(), rtol=0, atol=0)


def test_proposal_sort_is_refused_on_chips_without_it(emu_build, run_program) -> None:
    res = _run(emu_build, run_program, "proposal_chip", torch.zeros(N))
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == "chip-support"
    assert err["line"] == marker_line("real_world.cpp", "CHIP: proposal_chip")


def test_cce_block_builtins_read_the_calling_core(emu_build, run_program) -> None:
    res = _run(emu_build, run_program, "cce_builtins", torch.zeros(N))
    assert res.returncode == 0, res.stderr
    y = from_bytes(res.outputs["y"], "float32")
    assert y[:12].tolist() == [0, 1, 2, 3, 4, 4, 4, 4, 0, 4, 8, 12]
