"""The enhanced DataCopy's CO1 -> CO2 (L0C -> UB) path in BLOCK_MODE_MATRIX
(tests/emu/cpp/co1_to_co2.cpp): blockLen and srcStride count 16 x 16 fractals (1024 B of
float), dstStride 32-byte blocks, as the enhanced DataCopy reference's unit table gives them
(CANN 8.5.0, atlasascendc_api_07_0104); a split-core chip has no such path."""

from __future__ import annotations

import pytest
import torch
from emu_device_support import from_bytes, marker_line


def _inputs() -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(0)
    a = torch.randint(-4, 5, (32, 16), generator=gen).half()
    b = torch.randint(-4, 5, (16, 16), generator=gen).half()
    return a, b


# coupled_co2: the product in a CO2 buffer, filled and read by vector APIs (UB on this chip:
# API reference, general restrictions; mindnlp's 910A grouped_matmul Casts its result there)
@pytest.mark.parametrize("case", ["coupled", "coupled_co2"])
def test_matrix_mode_moves_whole_fractals_with_a_32_byte_dst_gap(
    emu_build, run_program, case: str
) -> None:
    a, b = _inputs()
    res = run_program(
        emu_build("co1_to_co2"),
        [case, "{x}", "{out:y}", "{report}"],
        {"x": torch.cat([a.reshape(-1), b.reshape(-1)])},
    )
    assert res.returncode == 0, res.stderr
    y = from_bytes(res.outputs["y"], "float32")
    c = a.float() @ b.float()
    # L0C holds C as fractals of 16 rows x 16 columns; block i lands 256 + 16 floats after block i-1
    assert torch.equal(y[:256], c[:16].reshape(-1))
    assert torch.equal(y[256:272], torch.full((16,), -1.0))
    assert torch.equal(y[272:528], c[16:].reshape(-1))


def test_split_core_chip_has_no_l0c_to_ub_path(emu_build, run_program) -> None:
    a, b = _inputs()
    res = run_program(
        emu_build("co1_to_co2"),
        ["split", "{x}", "{out:y}", "{report}"],
        {"x": torch.cat([a.reshape(-1), b.reshape(-1)])},
    )
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == "chip-support", err
    assert err["line"] == marker_line("co1_to_co2.cpp", "BUG: split"), err
    assert "no L0C -> UB path" in err["message"], err
