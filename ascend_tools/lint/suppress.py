"""Per-line suppression: `// kernelgen: ignore[ub-overflow]` on the line, or alone on the line
above; `// kernelgen: ignore` without a list silences every rule there."""

from __future__ import annotations

import re

from ascend_tools.diagnostics import Diagnostic

_IGNORE = re.compile(r"//\s*kernelgen:\s*ignore(?:\[([\w\-,\s]*)\])?")


def _codes_on(line: str) -> set[str] | None:
    m = _IGNORE.search(line)
    if m is None:
        return None
    if m.group(1) is None:
        return {"*"}
    return {c.strip() for c in m.group(1).split(",") if c.strip()}


def suppressed(diag: Diagnostic, lines: list[str]) -> bool:
    idx = diag.line - 1
    candidates = []
    if 0 <= idx < len(lines):
        candidates.append(lines[idx])
    if 1 <= idx <= len(lines) and lines[idx - 1].strip().startswith("//"):
        candidates.append(lines[idx - 1])
    for line in candidates:
        codes = _codes_on(line)
        if codes is not None and ("*" in codes or diag.code in codes):
            return True
    return False
