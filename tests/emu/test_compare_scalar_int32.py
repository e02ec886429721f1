"""CompareScalar's int32_t form (tests/emu/cpp/compare_scalar_int32.cpp): the API reference
documents it on Atlas A2/A3 for CMPMODE::EQ only, so EQ computes and the other modes fail, in the
count form and the mask form alike."""

from __future__ import annotations

import pytest
from emu_device_support import marker_line


@pytest.mark.parametrize("case", ["eq", "eq_mask"])
def test_int32_equal_compare_sets_the_bits_of_equals(emu_build, run_program, case: str) -> None:
    res = run_program(emu_build("compare_scalar_int32"), [case, "{report}"])
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == [] and res.report["warnings"] == []
    # element 5 of every 8 equals 5: bit 5 of each mask byte
    assert res.stdout.split() == ["20"] * 8


@pytest.mark.parametrize("case", ["lt", "lt_mask"])
def test_int32_compare_in_another_mode_has_no_form(emu_build, run_program, case: str) -> None:
    res = run_program(emu_build("compare_scalar_int32"), [case, "{report}"])
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == "dtype-support"
    assert err["line"] == marker_line("compare_scalar_int32.cpp", f"BUG: {case}")
    assert "only for the modes EQ" in err["message"] and "LT is not one" in err["message"]
