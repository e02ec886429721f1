"""The emulator's per-API dtype table is generated from the catalog and kept in step with it."""

from __future__ import annotations

from ascend_tools.catalog import load_catalog
from ascend_tools.catalog.dtype_tables import HEADER, dtype_rows, render_header


def test_checked_in_header_equals_the_catalog_rendering() -> None:
    assert HEADER.read_text() == render_header(), (
        "kernelgen/dtype_tables.h is stale: run `python -m ascend_tools.catalog.dtype_tables`"
    )


def test_rows_name_only_operands_typed_t() -> None:
    rows = {(api, aicore): (types, ops) for api, aicore, types, ops in dtype_rows(load_catalog())}
    types, ops = rows[("Compare", 0)]
    assert "dst" not in ops and "src0" in ops  # Compare's dst is a uint8_t bit mask
    types, ops = rows[("Exp", 0)]
    assert "int32_t" not in types and "bfloat16_t" not in types
