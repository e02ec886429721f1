"""Applying fixes to texts (tests, `kernelgen lint --fix`, and the language server's preview)."""

from __future__ import annotations

from ascend_tools.diagnostics import Fix
from ascend_tools.parse.source import LineIndex


def apply_fix(texts: dict[str, str], fix: Fix) -> dict[str, str]:
    """Returns new texts with the fix's edits applied (edits of one file applied bottom-up)."""
    out = dict(texts)
    by_file: dict[str, list] = {}
    for edit in fix.edits:
        by_file.setdefault(edit.file, []).append(edit)
    for file, edits in by_file.items():
        if file not in out:
            raise KeyError(f"fix edits {file}, which is not among the given texts")
        data = out[file].encode("utf-8")
        index = LineIndex(data)
        spans = []
        for e in edits:
            start = index.offset(e.range.line, e.range.column)
            end = index.offset(e.range.end_line, e.range.end_column)
            spans.append((start, end, e.new_text.encode("utf-8")))
        for start, end, new in sorted(spans, key=lambda s: s[0], reverse=True):
            data = data[:start] + new + data[end:]
        out[file] = data.decode("utf-8")
    return out
