"""Source text as tree-sitter sees it: AscendC qualifiers blanked, offsets kept."""

from __future__ import annotations

import re
from bisect import bisect_right

# Qualifiers tree-sitter-cpp does not know; each turns into an ERROR node unless blanked.
_QUALIFIERS = re.compile(
    rb"\b(?:__global__|__aicore__|__gm__|__ubuf__|__inline__|__vector__|__cube__"
    rb"|__local_mem__|__simt_vf__|__simt_callee__|__simd_vf__"
    rb"|__mix__\s*\([^)]*\)|LAUNCH_BOUND\s*\([^)]*\))"
    # `q.template EnQue(t)`: the template keyword of a member call with no template argument
    # list (valid in a dependent context) cuts the call in two for tree-sitter-cpp; without
    # it the call reads as `q.EnQue(t)`. With a list (`q.template DeQue<T>()`) it parses.
    rb"|(?<=\.)[ \t]*template\b(?=[ \t]*[A-Za-z_]\w*[ \t]*\()"
    rb"|(?<=->)[ \t]*template\b(?=[ \t]*[A-Za-z_]\w*[ \t]*\()"
)

# `if ASCEND_IS_AIV {`: the documented spelling of a core-type branch, whose macro brings its own
# parentheses. Without them tree-sitter-cpp reads no if statement, and the error spreads: a class
# whose inline method has one loses its methods to the recovery.
_CORE_BRANCH = re.compile(rb"\bif([ \t]+)(ASCEND_IS_(?:NOT_)?AI[CV])([ \t]*)(?=\{)")


# `kernel<<<blocks, l2ctrl, stream>>>(args)`, the launch a kernel file's host wrapper makes: its
# configuration blanked, it reads as the call `kernel(args)`.
_LAUNCH = re.compile(rb"<<[ \t]*<[^;{}<>\n]*>>[ \t]*>")


def blank_qualifiers(data: bytes) -> bytes:
    """Replaces the AscendC qualifiers, a member call's bare `template` keyword and a launch's
    `<<<...>>>` by spaces and parenthesises core-type branches, all in place, so every byte
    offset and line/column of the original text stays valid in the tree."""
    data = _QUALIFIERS.sub(_spaces, data)
    data = _LAUNCH.sub(_spaces, data)
    return _CORE_BRANCH.sub(_parenthesised, data)


def _spaces(m: re.Match[bytes]) -> bytes:
    return b" " * (m.end() - m.start())


def _parenthesised(m: re.Match[bytes]) -> bytes:
    """`if NAME {` as `if(NAME){`, the same length (the last letter of the name gives way to the
    closing parenthesis when no blank is left for it)."""
    name = m[2] if len(m[1]) + len(m[3]) >= 2 else m[2][:-1]
    return b"if(" + name + b")" + b" " * (len(m[0]) - len(name) - 4)


class LineIndex:
    """Byte offset <-> 1-based line/column conversion for one text."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.starts = [0] + [m.end() for m in re.finditer(rb"\n", data)]

    def line_of(self, offset: int) -> int:
        return bisect_right(self.starts, offset)

    def position(self, offset: int) -> tuple[int, int]:
        """1-based (line, column); columns count characters of the line."""
        line = bisect_right(self.starts, offset) - 1
        start = self.starts[line]
        column = len(self.data[start:offset].decode("utf-8", errors="replace")) + 1
        return line + 1, column

    def offset(self, line: int, column: int) -> int:
        """Byte offset of a 1-based line and character column."""
        line = min(max(line, 1), len(self.starts))
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.data)
        text = self.data[start:end].decode("utf-8", errors="replace")
        return start + len(text[: column - 1].encode("utf-8"))

    def line_text(self, line: int) -> str:
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.data)
        return self.data[start:end].decode("utf-8", errors="replace").rstrip("\r\n")
