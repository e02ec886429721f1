"""The answer format the model is asked for, and a tolerant parser for what it really writes.

The model reasons first, then writes each file of the operator project in a tagged block:

    <reasoning>
    why the tiling is what it is, which APIs, the tail ...
    </reasoning>
    <file path="op_kernel/add_custom.cpp">
    ...source...
    </file>

Tolerated: single quotes or no quotes around the path, `name=` for `path=`, any tag case, a
Markdown fence wrapped around a file's text, text outside the blocks, and (when no `<file>`
block exists) fenced code blocks whose info string or first-line comment names the path.
Rejected with a clear message: no files, an unclosed block, paths that are absolute or leave
the project, and files that are not C++ sources or headers.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from pydantic import BaseModel

from ascend_tools.project import SOURCE_SUFFIXES

FORMAT_EXAMPLE = """<reasoning>
(your analysis: shapes, tiling, UB budget, alignment and tail handling, APIs used)
</reasoning>
<file path="op_kernel/OPNAME.cpp">
(complete file text)
</file>"""

_OPEN = re.compile(
    r"<file\s+(?:path|name)\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))\s*/?>", re.IGNORECASE
)
_CLOSE = re.compile(r"</file\s*>", re.IGNORECASE)
_REASONING = re.compile(r"<(reasoning|think)>(.*?)</\1\s*>", re.IGNORECASE | re.S)
_FENCE_WRAP = re.compile(r"^\s*```[\w+.-]*[^\n]*\n(.*?)\n?```\s*$", re.S)
_FENCED_BLOCK = re.compile(r"```([^\n`]*)\n(.*?)```", re.S)
_PATH_COMMENT = re.compile(
    r"^\s*(?://|/\*)\s*(?:file(?:name)?|path)\s*:\s*(\S+?)\s*(?:\*/)?\s*$", re.I
)


class AnswerFormatError(ValueError):
    """The answer holds no usable project; the message is fed back to the model."""


class ParsedAnswer(BaseModel):
    reasoning: str
    files: dict[str, str]


def safe_relative_path(raw: str) -> str:
    """A normalised project-relative path, or AnswerFormatError if it could escape or is odd."""
    text = raw.strip().replace("\\", "/")
    while text.startswith("./"):
        text = text[2:]
    if not text:
        raise AnswerFormatError("a <file> block has an empty path")
    if text.startswith("/") or re.match(r"^[A-Za-z]:", text) or text.startswith("~"):
        raise AnswerFormatError(f"file path {raw!r} is absolute; use a path inside the project")
    parts = PurePosixPath(text).parts
    if any(p in ("..", "") for p in parts):
        raise AnswerFormatError(f"file path {raw!r} leaves the project directory")
    if PurePosixPath(text).suffix not in SOURCE_SUFFIXES:
        raise AnswerFormatError(
            f"file path {raw!r} is not a C++ source or header ({', '.join(SOURCE_SUFFIXES)})"
        )
    return str(PurePosixPath(*parts))


def _body(text: str) -> str:
    """File text without the newline after the tag, a wrapping fence, or trailing blank lines."""
    wrapped = _FENCE_WRAP.match(text)
    if wrapped:
        text = wrapped.group(1)
    return text.strip("\n").rstrip() + "\n"


def _tagged_files(answer: str) -> dict[str, str] | None:
    opens = list(_OPEN.finditer(answer))
    if not opens:
        return None
    files: dict[str, str] = {}
    for i, m in enumerate(opens):
        raw = next(g for g in m.groups() if g is not None)
        path = safe_relative_path(raw)
        end = opens[i + 1].start() if i + 1 < len(opens) else len(answer)
        close = _CLOSE.search(answer, m.end(), end)
        if close is None:
            raise AnswerFormatError(
                f'the <file path="{raw}"> block is not closed with </file> '
                "(answer cut short or blocks nested)"
            )
        files[path] = _body(answer[m.end() : close.start()])
    return files


def _fenced_files(answer: str) -> dict[str, str]:
    files: dict[str, str] = {}
    for info, body in _FENCED_BLOCK.findall(answer):
        candidates = [w for w in info.split() if "/" in w or "." in w]
        lines = body.split("\n", 1)
        named = _PATH_COMMENT.match(lines[0])
        if named:
            candidates.append(named.group(1))
        for raw in candidates:
            try:
                path = safe_relative_path(raw.removeprefix("path=").strip("\"'"))
            except AnswerFormatError:
                continue
            files[path] = _body(body)
            break
    return files


def parse_answer(answer: str) -> ParsedAnswer:
    """Files and reasoning from a model answer (see the module docstring for the format)."""
    text = answer.replace("\r\n", "\n")
    reasoning_match = _REASONING.search(text)
    reasoning = ""
    if reasoning_match:  # a closed reasoning block may mention tags; files come after it
        reasoning = reasoning_match.group(2).strip()
        text = text[: reasoning_match.start()] + text[reasoning_match.end() :]
    files = _tagged_files(text)
    if files is None:
        files = _fenced_files(text)
    if not files:
        raise AnswerFormatError(
            'the answer contains no <file path="...">...</file> block; write every file of the '
            "project in that form"
        )
    return ParsedAnswer(reasoning=reasoning, files=files)


def render_files(files: dict[str, str]) -> str:
    """Files in the tagged format (used for examples in prompts)."""
    return "\n".join(f'<file path="{p}">\n{t.rstrip()}\n</file>' for p, t in files.items())
