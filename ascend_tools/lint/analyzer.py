"""The static analyzer's entry points: `Analyzer` keeps a project's documents parsed and re-lints
after each change (the language server calls `update` on every keystroke); `lint_path` lints a
kernel file or project on disk (the CLI)."""

from __future__ import annotations

from pathlib import Path

from ascend_tools.catalog import load_catalog
from ascend_tools.chips import Chip, get_chip
from ascend_tools.diagnostics import Diagnostic
from ascend_tools.lint.config import LintConfig, load_config
from ascend_tools.lint.context import LintContext
from ascend_tools.lint.rules import ALL_RULES
from ascend_tools.lint.suppress import suppressed
from ascend_tools.parse.document import Document, SourceEdit
from ascend_tools.parse.evaluate import Evaluator
from ascend_tools.parse.model import KernelModel
from ascend_tools.project import ProjectError, load_project

MAX_FILE_BYTES = 4 * 1024 * 1024


class LintError(ValueError):
    """The input cannot be linted (missing, binary or huge file); the message says why."""


class Analyzer:
    """Documents of one kernel project and the diagnostics over them. Pure: no I/O, no LSP."""

    def __init__(self, config: LintConfig | None = None, chip: Chip | str | None = None) -> None:
        self.config = config or LintConfig()
        self.chip = chip if isinstance(chip, Chip) else get_chip(chip or self.config.chip)
        self.documents: dict[str, Document] = {}
        self.model: KernelModel | None = None

    def update(self, path: str, text: str, edit: SourceEdit | None = None) -> list[Diagnostic]:
        """Sets a file's new text (with the edit when known, else it is found by diffing) and
        returns the project's diagnostics."""
        doc = self.documents.get(path)
        if doc is None:
            self.documents[path] = Document(path, text)
        else:
            doc.update(text, edit)
        return self.lint()

    def remove(self, path: str) -> None:
        self.documents.pop(path, None)

    def lint(self) -> list[Diagnostic]:
        self.model = KernelModel(self.documents)
        ev = Evaluator(self.model, self.chip, self.config.shapes)
        ctx = LintContext(self.model, ev, self.chip, load_catalog())
        ignored = set(self.config.ignore)
        out: list[Diagnostic] = []
        seen: set[tuple] = set()
        lines_of: dict[str, list[str]] = {}
        for rule in ALL_RULES:
            for d in rule(ctx):
                key = (d.file, d.line, d.column, d.code, d.message)
                if d.code in ignored or key in seen:
                    continue
                seen.add(key)
                if d.file not in lines_of:
                    lines_of[d.file] = self.documents[d.file].text.splitlines()
                if suppressed(d, lines_of[d.file]):
                    continue
                out.append(d)
        out.sort(key=lambda d: (d.file, d.line, d.column, d.code))
        return out


def _read(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LintError(f"cannot read {path}: {exc.strerror}") from exc
    if len(data) > MAX_FILE_BYTES:
        raise LintError(f"{path} is {len(data)} bytes; files above {MAX_FILE_BYTES} are not linted")
    if b"\0" in data[:8192]:
        raise LintError(f"{path} is a binary file, not C++ source")
    return data.decode("utf-8", errors="replace")


def project_files(path: Path) -> tuple[Path, list[Path]]:
    """(root, files) of the kernel project at `path`: the kernel plus host sources and tiling
    header for the msopgen layout, or the single kernel file."""
    path = path.expanduser()
    if path.is_file():
        return path.parent, [path]
    try:
        project = load_project(path)
    except ProjectError as exc:
        raise LintError(str(exc)) from exc
    files = [project.kernel_file, *project.host_files]
    if project.tiling_header is not None:
        files.append(project.tiling_header)
    return project.root, [project.abs(f) for f in files]


def lint_path(path: Path, chip: str | None = None, config: LintConfig | None = None,
              shapes: list[list[int]] | None = None) -> list[Diagnostic]:
    """Lints a kernel file or a kernel project directory."""
    if not path.exists():
        raise LintError(f"no such file or directory: {path}")
    root, files = project_files(path)
    cfg = config or load_config(root.resolve()) or LintConfig()
    updates = {}
    if chip is not None:
        updates["chip"] = chip
    if shapes is not None:
        updates["shapes"] = shapes
    cfg = cfg.model_copy(update=updates)
    analyzer = Analyzer(cfg)
    for f in files:
        analyzer.documents[str(f)] = Document(str(f), _read(f))
    return analyzer.lint()
