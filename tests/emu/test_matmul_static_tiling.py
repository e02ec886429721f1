"""Matmul with a constant tiling (tests/emu/cpp/matmul_static_tiling.cpp): GetMMConfig and
GetMatmulApiTiling are constexpr (the program's static_asserts check the configs they build), the
Matmul takes the MatmulApiStaticTiling as its MM_CFG and computes with its shapes, and the two
documented misuses (constants that disagree with the run-time tiling, nullptr for a tiling that
is not fully constant) are reported at REGIST_MATMUL_OBJ."""

from __future__ import annotations

import pytest
import torch
from emu_device_support import from_bytes, marker_line

M, K, N = 128, 64, 96


def _operands() -> dict[str, torch.Tensor]:
    gen = torch.Generator().manual_seed(11)
    return {
        "a": torch.randint(-4, 5, (M, K), generator=gen).half(),
        "b": torch.randint(-4, 5, (K, N), generator=gen).half(),
        "bias": torch.randint(-4, 5, (N,), generator=gen).float(),
    }


@pytest.mark.parametrize(
    "case", ["ok_split_with_tiling", "ok_whole_without_tiling", "ok_base_only_with_tiling"]
)
def test_constant_tiling_computes_the_product(emu_build, run_program, case: str) -> None:
    ops = _operands()
    res = run_program(
        emu_build("matmul_static_tiling"),
        [case, "{report}", "{a}", "{b}", "{bias}", "{out:c}"],
        ops,
    )
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == []
    c = from_bytes(res.outputs["c"], "float32").view(M, N)
    torch.testing.assert_close(c, ops["a"].float() @ ops["b"].float() + ops["bias"])


MISUSES = {
    # GetMatmulApiTiling: the values set in the MatmulConfig must equal the host tiling's
    "tiling_disagrees": ("tiling-mismatch", "baseK 32 vs 64"),
    # only full constants may pass nullptr for REGIST_MATMUL_OBJ's tiling
    "partial_without_tiling": ("param-range", "leaves singleCoreM, singleCoreN, singleCoreK"),
}


@pytest.mark.parametrize(("case", "expect"), sorted(MISUSES.items()))
def test_constant_tiling_misuse_is_reported_at_regist(emu_build, run_program, case, expect):
    code, text = expect
    res = run_program(emu_build("matmul_static_tiling"), [case, "{report}"])
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == code, err
    assert err["line"] == marker_line("matmul_static_tiling.cpp", f"BUG: {case}"), err
    assert text in err["message"], err
