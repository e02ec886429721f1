"""Per-line suppression: `// kernelgen: ignore[ub-overflow]` on the line, or alone on the line
above; `// kernelgen: ignore` without a list silences every rule there."""

from __future__ import annotations

import re
from collections.abc import Callable

from ascend_tools.diagnostics import Diagnostic

_IGNORE = re.compile(r"//\s*kernelgen:\s*ignore(?:\[([\w\-,\s]*)\])?")


def _codes_on(line: str) -> set[str] | None:
    m = _IGNORE.search(line)
    if m is None:
        return None
    if m.group(1) is None:
        return {"*"}
    return {c.strip() for c in m.group(1).split(",") if c.strip()}


def suppressed(diag: Diagnostic, line_text: Callable[[int], str]) -> bool:
    """`line_text(n)` gives the 1-based line n of the diagnostic's file."""
    candidates = [line_text(diag.line)]
    if diag.line > 1:
        above = line_text(diag.line - 1)
        if above.strip().startswith("//"):
            candidates.append(above)
    for line in candidates:
        codes = _codes_on(line)
        if codes is not None and ("*" in codes or diag.code in codes):
            return True
    return False
