"""The cube path's rules and counters in the emulator (tests/emu/cpp/cube_rules.cpp): operands
off their memory's start alignment and Matmul tilings off the fractal layout are
`fractal-align` at the call, Mmad sizes past the 12-bit fields are `param-range`, the Matmul
API's own L1/L0 share counts with the user's InitBuffer, and a low-level product reports its
GM -> L1, L1 -> L0, cube MAC and L0C -> GM counters for the cost model."""

from __future__ import annotations

import pytest
from emu_device_support import marker_line

# cases that fail inside the low-level product cube_product.h shares with bugs.cpp
SHARED_PRODUCT = {"load_data_l0a_unaligned", "mmad_l0c_unaligned"}
# case -> (rule code, texts the message must hold)
BUGS = {
    "load_data_l0a_unaligned": ("fractal-align", "dst starts at L0A offset 32, not 512-byte"),
    "load_data_l1_src_unaligned": ("fractal-align", "src starts at L1 offset 16, not 32-byte"),
    "mmad_l0c_unaligned": ("fractal-align", "dst (CO1) starts at L0C offset 32, not 64-byte"),
    "mmad_k_range": ("param-range", "k=4096"),
    "matmul_base_k_unaligned": ("fractal-align", "baseK = 40 is not a multiple of 16"),
    "matmul_l0c_share_overflow": ("l0-overflow", "Matmul L0C (baseM x baseN = 256 x 256 x 4 B)"),
    # the user's 800 KB first, then A1 128 KB fits and B1 128 KB does not: both parts named
    "matmul_share_after_user_l1_910": (
        "l1-overflow",
        "the share of Matmul B1 (depthB1 x baseN x baseK = 4 x 128 x 128 x 2 B) needs 1 x 131072",
        "TBuf<B1> 1 x 819200 B",
    ),
}


@pytest.mark.parametrize(("case", "expect"), sorted(BUGS.items()))
def test_cube_rule_is_reported_at_the_call(emu_build, run_program, case: str, expect) -> None:
    code, *texts = expect
    res = run_program(emu_build("cube_rules"), [case, "{report}"])
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == code, err
    source = "cube_product.h" if case in SHARED_PRODUCT else "cube_rules.cpp"
    assert err["line"] == marker_line(source, f"BUG: {case}"), err
    assert err["file"].endswith(source), err
    assert all(text in err["message"] for text in texts), err


def test_matmul_share_and_user_l1_buffers_overflow_together(emu_build, run_program) -> None:
    res = run_program(emu_build("cube_rules"), ["matmul_l1_share_overflow", "{report}"])
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == "l1-overflow", err
    assert err["line"] == marker_line("cube_rules.cpp", "BUG: matmul_l1_share_overflow"), err
    msg = err["message"]
    # both parts: the user's buffer and the Matmul's depthA1/depthB1 blocks, 128 KB each
    assert "InitBuffer of TBuf<A1> needs 1 x 294912" in msg, msg
    assert "Matmul A1 (depthA1 x baseM x baseK = 4 x 128 x 128 x 2 B) 1 x 131072 B" in msg, msg
    assert "Matmul B1 (depthB1 x baseN x baseK = 4 x 128 x 128 x 2 B) 1 x 131072 B" in msg, msg
    assert "L1 has 262144 B of 524288 B left" in msg, msg


def test_matmul_share_and_user_l1_filling_l1_exactly_run(emu_build, run_program) -> None:
    res = run_program(emu_build("cube_rules"), ["ok_matmul_share_and_user_l1_fit", "{report}"])
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == []


def test_low_level_product_counts_cube_traffic_and_macs(emu_build, run_program) -> None:
    res = run_program(emu_build("cube_rules"), ["ok_cube_product", "{report}"])
    assert res.returncode == 0, res.stderr
    total = res.report["counters"]["total"]
    assert total["gm_to_l1_bytes"] == 2 * 16 * 16 * 2  # A and B, Nd2Nz into A1/B1
    assert total["l1_to_l0_bytes"] == 2 * 512  # one fractal each into L0A and L0B
    assert total["cube_macs"] == 16 * 16 * 16 and total["cube_macs_fp32"] == 0
    assert total["l0c_to_gm_bytes"] == 16 * 16 * 4  # Fixpipe of the float result
    assert total["gm_to_ub_bytes"] == 0 and total["ub_to_gm_bytes"] == 0


def test_matmul_objects_of_one_pipe_share_their_l0_reservation(emu_build, run_program) -> None:
    # Additive, four 64 KB L0C shares would overflow the 128 KB L0C that one 256 x 256 block
    # already overflows alone (matmul_l0c_share_overflow).
    res = run_program(emu_build("cube_rules"), ["ok_four_matmuls_share_l0", "{report}"])
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == []
