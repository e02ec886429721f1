"""Core models (1-based lines, character columns) <-> LSP types (0-based, in the negotiated
position encoding). The only place where the two coordinate systems meet."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path

from lsprotocol import types as lsp
from pygls.uris import from_fs_path, to_fs_path

from ascend_tools.diagnostics import Diagnostic, Fix, Severity, TextRange

SEVERITY = {
    Severity.ERROR: lsp.DiagnosticSeverity.Error,
    Severity.WARNING: lsp.DiagnosticSeverity.Warning,
    Severity.INFO: lsp.DiagnosticSeverity.Information,
    Severity.HINT: lsp.DiagnosticSeverity.Hint,
}
# `... from op_host/add_custom.cpp:12` or `(add_custom.cpp:40)` inside a lint message.
_WHERE = re.compile(r"([\w./-]+\.(?:cpp|cc|cxx|h|hpp)):(\d+)")

LineText = Callable[[str, int], str]
"""(file, 1-based line) -> that line's text ("" when unknown)."""


def uri_of(path: str | Path) -> str:
    return from_fs_path(str(path)) or f"file://{path}"


def path_of(uri: str) -> str | None:
    return to_fs_path(uri) if uri.startswith("file:") else None


def _units(text: str, encoding: str) -> int:
    if encoding == lsp.PositionEncodingKind.Utf8:
        return len(text.encode("utf-8"))
    if encoding == lsp.PositionEncodingKind.Utf32:
        return len(text)
    return len(text.encode("utf-16-le")) // 2


def to_units(line_text: str, column: int, encoding: str) -> int:
    """Client units of a 1-based character column."""
    return _units(line_text[: max(column - 1, 0)], encoding)


def from_units(line_text: str, units: int, encoding: str) -> int:
    """The 0-based character index of a client-unit column, clamped to the line."""
    if encoding == lsp.PositionEncodingKind.Utf32:
        return min(max(units, 0), len(line_text))
    count = 0
    for i, ch in enumerate(line_text):
        if count >= units:
            return i
        count += _units(ch, encoding)
    return len(line_text)


def to_range(r: TextRange, line_text: Callable[[int], str], encoding: str) -> lsp.Range:
    start_line, end_line = max(r.line - 1, 0), max(r.end_line - 1, 0)
    return lsp.Range(
        start=lsp.Position(start_line, to_units(line_text(r.line), r.column, encoding)),
        end=lsp.Position(end_line, to_units(line_text(r.end_line), r.end_column, encoding)),
    )


def line_range(line: int, text: str) -> lsp.Range:
    """A whole source line without its indentation (0-based LSP range) for facts that only
    know their line."""
    indent = len(text) - len(text.lstrip())
    return lsp.Range(start=lsp.Position(max(line - 1, 0), indent),
                     end=lsp.Position(max(line - 1, 0), max(len(text.rstrip()), indent)))


def to_diagnostic(d: Diagnostic, line_text: LineText, encoding: str,
                  related: Iterable[lsp.DiagnosticRelatedInformation] = ()) -> lsp.Diagnostic:
    return lsp.Diagnostic(
        range=to_range(d.range, lambda n: line_text(d.file, n), encoding),
        message=d.message,
        severity=SEVERITY.get(d.severity, lsp.DiagnosticSeverity.Warning),
        code=d.code,
        source=d.source,
        related_information=list(related) or None,
        data={"fix": d.fix is not None},
    )


def mentioned_locations(message: str, files: Iterable[str], line_text: LineText,
                        ) -> list[lsp.DiagnosticRelatedInformation]:
    """The `file:line` places a message names (where a number came from), resolved against the
    project's files by path suffix, as related information."""
    out: list[lsp.DiagnosticRelatedInformation] = []
    paths = [str(f) for f in files]
    seen: set[tuple[str, int]] = set()
    for m in _WHERE.finditer(message):
        short, line = m.group(1), int(m.group(2))
        hits = [p for p in paths if Path(p).as_posix().endswith("/" + short) or p == short]
        if not hits or (hits[0], line) in seen:
            continue
        seen.add((hits[0], line))
        text = line_text(hits[0], line)
        out.append(lsp.DiagnosticRelatedInformation(
            location=lsp.Location(uri=uri_of(hits[0]), range=line_range(line, text)),
            message=_context(message, m.start()),
        ))
    return out


def _context(message: str, at: int) -> str:
    """The clause of the message around a location (what the number there is)."""
    start = max(message.rfind(";", 0, at), message.rfind("(", 0, at), message.rfind(":", 0, at - 1))
    clause = message[start + 1: at].strip().removesuffix("from").strip()
    return clause or "referenced here"


def workspace_edit(fix: Fix, line_text: LineText, encoding: str) -> lsp.WorkspaceEdit:
    changes: dict[str, list[lsp.TextEdit]] = {}
    for e in fix.edits:
        changes.setdefault(uri_of(e.file), []).append(lsp.TextEdit(
            range=to_range(e.range, lambda n, f=e.file: line_text(f, n), encoding),
            new_text=e.new_text))
    return lsp.WorkspaceEdit(changes=changes)


def overlaps(a: lsp.Range, b: lsp.Range) -> bool:
    def key(p: lsp.Position) -> tuple[int, int]:
        return p.line, p.character
    return key(a.start) <= key(b.end) and key(b.start) <= key(a.end)
