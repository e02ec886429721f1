"""The emulator's Cast table is generated from the documented per-chip data and kept in step."""

from __future__ import annotations

from ascend_tools.catalog.cast_table import HEADER, cast_modes, cast_problem, render_header
from ascend_tools.chips import all_chips


def test_checked_in_header_equals_the_data_rendering() -> None:
    assert HEADER.read_text() == render_header(), (
        "kernelgen/cast_table.h is stale: run `python -m ascend_tools.catalog.cast_table`"
    )


def test_every_modelled_chip_has_a_table() -> None:
    for chip in all_chips().values():
        assert cast_modes(chip.arch), chip.name


def test_documented_facts_per_chip() -> None:
    a2 = cast_modes("dav-c220")
    assert a2 is not None
    assert a2[("half", "float")] == ("CAST_NONE",)
    assert "CAST_NONE" not in a2[("float", "bfloat16_t")]  # bf16 narrowing names its rounding
    assert "CAST_ODD" in a2[("float", "half")]
    assert ("half", "bfloat16_t") not in a2 and ("uint8_t", "float") not in a2
    # no bfloat16 on 910
    assert cast_problem("dav-c100", "float", "bfloat16_t", "CAST_RINT") is not None
    assert cast_problem("dav-m200", "float", "half", "CAST_RINT", "ascend310p") == (
        "Cast float -> half on ascend310p supports RoundMode CAST_NONE, CAST_ODD, not CAST_RINT"
    )
    assert cast_problem("no-such-arch", "float", "half", "CAST_RINT") is None
