"""The undocumented helpers of CANN's kernel headers (`tables/vendor_internal.json`): the emulator
provides them, lint and validate report their use, compile errors about them get a hint."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

TABLE = "tables/vendor_internal.json"


@cache
def vendor_internal() -> dict[str, dict]:
    """The table's entries by name."""
    text = resources.files("ascend_tools.catalog").joinpath(TABLE).read_text()
    return {e["name"]: e for e in json.loads(text)["entries"]}


def vendor_constants() -> dict[str, dict]:
    """The named constants of the table (`form` `constant`): declared by CANN's headers, not by
    the emulator's, and supplied to a build only after it fails without them."""
    return {n: e for n, e in vendor_internal().items() if e["form"] == "constant"}


def vendor_internal_names() -> set[str]:
    """Every name the table puts in the emulator's public namespace: helpers and the vendor
    classes that own `static-member` helpers (the catalog-emulator sync accepts them)."""
    table = vendor_internal()
    return set(table) | {e["owner"] for e in table.values() if "owner" in e}


def vendor_call_matches(entry: dict, qualifier: str, nargs: int) -> bool:
    """Whether a call with this `qualifier` (the scopes before the name) and argument count is
    the helper of `entry`: a `static-member` helper only through its class (`owner::` or
    `AscendC::owner::`), any other unqualified or `AscendC::`, a `scalar-call` only with the
    table's argument count (the documented vector API of that name takes more)."""
    if entry["form"] == "constant":
        return False  # a constant is never called
    owner = entry.get("owner")
    if owner is not None:
        return qualifier in (owner, f"AscendC::{owner}")
    if qualifier not in ("", "AscendC"):
        return False
    return entry["form"] != "scalar-call" or nargs == entry["args"]


def vendor_internal_source() -> str:
    """Where the table says the API reference was searched (for rule documentation)."""
    text = resources.files("ascend_tools.catalog").joinpath(TABLE).read_text()
    return "; ".join(json.loads(text)["checked"])


def vendor_use_message(entry: dict) -> str:
    """What a use of `entry`'s helper is told: the kernel builds (CANN and the emulator define it)
    but depends on an undocumented header, and the local definition that removes that."""
    owner = f"{entry['owner']}::" if "owner" in entry else ""
    what = owner + entry["name"] + (" on scalars" if entry["form"] == "scalar-call" else "")
    if entry["form"] == "constant":
        return (
            f"{what} is not declared by the project and is not in the AscendC API reference: "
            f"CANN's {entry['header']} declares it ({entry['vendor_file']}), so this builds "
            "there, and the emulator supplies it to a build that fails without it, but a CANN "
            f"release may change or drop it. A local definition removes the dependency: "
            f"{entry['replacement']}"
        )
    return (
        f"{what} is not in the AscendC API reference: CANN's {entry['header']} brings it in "
        f"from {entry['vendor_file']}, so this builds (the emulator provides it too), but a "
        f"CANN release may change or drop it. A local definition removes the dependency: "
        f"{entry['replacement']}"
    )


HEADERS_TABLE = "tables/vendor_headers.json"


@cache
def vendor_headers() -> dict[str, dict]:
    """CANN's internal headers that kernel_operator.h already includes, by the name a kernel
    includes them with (`tables/vendor_headers.json`): the emulator resolves each to an empty
    stand-in."""
    text = resources.files("ascend_tools.catalog").joinpath(HEADERS_TABLE).read_text()
    return {e["header"]: e for e in json.loads(text)["entries"]}


def vendor_header_message(entry: dict) -> str:
    """What an #include of `entry`'s header is told: it builds, and how to drop the dependency."""
    return (
        f"#include \"{entry['header']}\" names an internal header of CANN's kernel library "
        f"({entry['vendor_file']}), not part of the AscendC API reference: kernel_operator.h "
        "already brings what it declares, so this builds (the emulator resolves it to an empty "
        "stand-in), but a CANN release may move or drop the file. Including kernel_operator.h "
        "alone removes the dependency"
    )
