"""Refresh the catalog's `emulated` flags from the emulator headers (the JSON files are the
source of truth; this only flips flags). Run after the emulator gains or loses an API:

    python -m ascend_tools.catalog.sync
"""

from __future__ import annotations

import json
from pathlib import Path

from ascend_tools.catalog.emulator_scan import scan_emulator

CATALOG_DIR = Path(__file__).resolve().parent


def update_emulated_flags(directory: Path = CATALOG_DIR) -> list[str]:
    """Rewrites the flags in place; returns the names whose flag changed."""
    api = scan_emulator()
    changed = []
    for path in sorted(directory.glob("*.json")):
        data = json.loads(path.read_text())
        dirty = False
        for ent in data["entries"]:
            if ent["kind"] == "member":
                has = any((o, ent["name"]) in api.members for o in ent["owners"])
            else:
                has = ent["name"] in api.names
            if ent.get("emulated", False) != has:
                ent["emulated"] = has
                changed.append(ent["name"])
                dirty = True
        if dirty:
            path.write_text(json.dumps(data, indent=1) + "\n")
    return changed


if __name__ == "__main__":
    names = update_emulated_flags()
    print(f"{len(names)} flag(s) changed" + (f": {', '.join(names)}" if names else ""))
