"""Which project a file belongs to, and which reference a project is validated against.

Kept small and free of LSP types so the reference lookup can be swapped for the one
`ascend_tools` grows (the `binding` work) without touching the server."""

from __future__ import annotations

import re
from pathlib import Path

import tomllib

CONFIG_FILE = "kernelgen.toml"
DEFAULT_REFERENCE = "ref.py"
_REFERENCE_LINE = re.compile(r"(?m)^\s*reference\s*=.*$")


def find_root(file: Path) -> tuple[Path, bool]:
    """(project root, whether it is a real project): the nearest folder above `file` with
    `op_kernel/` or `op_host/` (msopgen layout) or a `kernelgen.toml`; a lone kernel file is
    its own project (its folder, False)."""
    for folder in file.parents:
        if (folder / "op_kernel").is_dir() or (folder / "op_host").is_dir() or (
                folder / CONFIG_FILE).is_file():
            return folder, True
    return file.parent, False


def find_reference(root: Path) -> Path | None:
    """`reference = "..."` in the root's kernelgen.toml (relative to the root), else `ref.py`
    at the root, else None (validation then only compiles). The explicit setting wins, so the
    `kernelgen.setReference` command takes effect even when a ref.py exists."""
    config = root / CONFIG_FILE
    if config.is_file():
        try:
            data = tomllib.loads(config.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            data = {}
        ref = data.get("reference")
        if isinstance(ref, str) and ref.strip():
            path = (root / ref).expanduser()
            if path.is_file():
                return path.resolve()
    default = root / DEFAULT_REFERENCE
    return default.resolve() if default.is_file() else None


def set_reference(root: Path, reference: Path) -> Path:
    """Writes `reference = "..."` into the root's kernelgen.toml (created when missing; other
    content kept) and returns the file. The path is stored relative to the root when inside it."""
    reference = reference.expanduser().resolve()
    try:
        value = reference.relative_to(root.resolve()).as_posix()
    except ValueError:
        value = reference.as_posix()
    line = f"reference = {_toml_string(value)}"
    config = root / CONFIG_FILE
    text = config.read_text(encoding="utf-8") if config.is_file() else ""
    if _REFERENCE_LINE.search(_top_level(text)):
        head = _top_level(text)
        text = _REFERENCE_LINE.sub(line.replace("\\", "\\\\"), head, count=1) + text[len(head):]
    else:
        text = f"{line}\n{text}"
    tomllib.loads(text)  # never write a file the next read cannot parse
    config.write_text(text, encoding="utf-8")
    return config


def _top_level(text: str) -> str:
    """The part of a TOML text before its first table header (where top-level keys live)."""
    m = re.search(r"(?m)^\s*\[", text)
    return text[: m.start()] if m else text


def _toml_string(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
