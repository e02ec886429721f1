"""The catalog and the emulator stay in step: every public API name the emulator headers define
is in the catalog, and the catalog's `emulated` flags say exactly what the emulator has."""

from __future__ import annotations

import re

from ascend_tools.catalog import load_catalog
from ascend_tools.catalog.emulator_scan import scan_emulator
from ascend_tools.catalog.vendor import vendor_internal_names

# The emulator's own helpers are not AscendC API. They follow its naming, which AscendC never
# uses: snake_case (check_access, ub_used, data_type_by_name), a KG_/KERNELGEN_ macro prefix,
# or a k-prefixed table (kDataTypeTable).
_INTERNAL_NAME = re.compile(
    r"^(?:[a-z][a-z0-9]*_[a-z0-9_]*|[a-z]+|KG_\w+|KERNELGEN_\w+|k[A-Z]\w*)$")
# CamelCase internals, named one by one.
INTERNAL_HELPERS = {
    "DataTypeFacts", "FormatFacts",  # dtype/format tables behind ge::TypeUtils
    "ElementwiseTmpFacts",  # table behind the Get*MaxMinTmpSize host helpers
    "KernelgenOpKey",  # key type of the emulator's tiling-struct registry
    "DtypeSupport", "ModeLimit",  # dtype tables (dtype_tables.h)
    "PipeModel", "GmModel", "Pipe", "EventPipes",  # emulator check machinery
    "OperandFrame", "OverlapCheckedByEngine", "DeqScaleRegister",
    "NodeData", "TensorSlot",  # storage behind gert contexts
}
# Names that are real AscendC but written lower-case by the vendor (so the rule above would
# wrongly call them internal).
LOWERCASE_API = {"printf", "half", "bfloat16_t", "event_t", "pipe_t", "int4b_t"}


def _internal(name: str) -> bool:
    return name not in LOWERCASE_API and (
        bool(_INTERNAL_NAME.match(name)) or name in INTERNAL_HELPERS)


def _vendor_internal(name: str) -> bool:
    """CANN's undocumented helpers and their classes: catalogued in vendor_internal.json."""
    return name in vendor_internal_names()


def test_every_emulator_api_is_in_the_catalog() -> None:
    api, cat = scan_emulator(), load_catalog()
    missing = sorted(f"{n} ({h})" for n, h in api.names.items()
                     if not _internal(n) and not _vendor_internal(n) and not cat.lookup(n))
    assert not missing, "emulator APIs missing from the catalog: " + ", ".join(missing)


def test_every_emulator_member_is_in_the_catalog() -> None:
    api, cat = scan_emulator(), load_catalog()
    missing = sorted(f"{o}::{n} ({h})" for (o, n), h in api.members.items()
                     if not _internal(n) and not _internal(o) and not _vendor_internal(o)
                     and not cat.has_member(o, n))
    assert not missing, "emulator members missing from the catalog: " + ", ".join(missing)


def test_emulated_flags_match_the_emulator() -> None:
    api, cat = scan_emulator(), load_catalog()
    wrong = []
    for e in cat.entries:
        if e.kind.value == "member":
            has = any((o, e.name) in api.members for o in e.owners)
        else:
            has = e.name in api.names
        if has != e.emulated:
            wrong.append(f"{e.qualified_name}: catalog says emulated={e.emulated}")
    assert not wrong, "; ".join(wrong) + " (run python -m ascend_tools.catalog.sync)"


def test_the_emulator_scan_finds_core_apis() -> None:
    api = scan_emulator()
    for name in ("DataCopy", "Add", "TPipe", "TQue", "GetBlockIdx", "GET_TILING_DATA"):
        assert name in api.names
    assert ("TPipe", "InitBuffer") in api.members and ("TQue", "AllocTensor") in api.members
