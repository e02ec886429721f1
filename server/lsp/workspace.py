"""Projects the server keeps: one `Analyzer` per project (its kernel, host and tiling files,
the open ones with the editor's text, the others as on disk), the diagnostics last published
for each of its files, and its validation state.

Analyzers are not thread-safe, so every use of one goes through `Workspace.analysis`, a
single worker thread: the event loop never parses or lints, and analysis never races."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types as lsp

from ascend_tools.project import SOURCE_SUFFIXES
from server.lsp.project import find_reference, find_root

if TYPE_CHECKING:  # the analysis core loads on the analysis thread, after `initialize`
    from ascend_tools.diagnostics import Diagnostic
    from ascend_tools.lint import Analyzer

T = TypeVar("T")


def unlintable(text: str) -> str | None:
    """Why a text is not linted (binary or too big), or None."""
    from ascend_tools.lint.analyzer import MAX_FILE_BYTES

    if "\0" in text[:8192]:
        return "a binary file, not C++ source"
    size = len(text.encode("utf-8", errors="replace"))
    if size > MAX_FILE_BYTES:
        return f"{size} bytes; files above {MAX_FILE_BYTES} bytes are not analysed"
    return None


@dataclass
class ProjectState:
    key: str
    root: Path
    is_project: bool
    analyzer: Analyzer
    open_files: dict[str, int] = field(default_factory=dict)
    """Open documents of the project and the version last linted."""
    disk_files: set[str] = field(default_factory=set)
    lint: dict[str, list[lsp.Diagnostic]] = field(default_factory=dict)
    fixes: list[tuple[str, lsp.Diagnostic, lsp.WorkspaceEdit, str]] = field(default_factory=list)
    """(uri, diagnostic, edit, title) of every quick fix of the last lint."""
    validation: dict[str, list[lsp.Diagnostic]] = field(default_factory=dict)
    notices: dict[str, list[lsp.Diagnostic]] = field(default_factory=dict)
    published: set[str] = field(default_factory=set)
    lint_task: asyncio.Task[None] | None = None
    validate_task: asyncio.Task[Any] | None = None
    last_validation: dict[str, Any] | None = None
    core_diagnostics: list[Diagnostic] = field(default_factory=list)

    @property
    def reference(self) -> Path | None:
        return find_reference(self.root) if self.is_project else _lone_reference(self.root)

    def files(self) -> list[str]:
        return list(self.analyzer.documents)


def _lone_reference(folder: Path) -> Path | None:
    ref = folder / "ref.py"
    return ref.resolve() if ref.is_file() else None


class Workspace:
    """Projects by key (project root, or the file itself for a lone kernel file)."""

    def __init__(self, chip: str) -> None:
        self.chip = chip
        self.projects: dict[str, ProjectState] = {}
        self.analysis = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kernelgen-analysis")

    def warm_up(self) -> None:
        """Loads the analysis core and the catalog on the analysis thread while the editor is
        still starting, so the first keystroke does not pay for them."""

        def load() -> None:
            from ascend_tools.catalog import load_catalog
            from ascend_tools.lint import Analyzer

            load_catalog()
            Analyzer  # noqa: B018 - imported for its side effect of loading the rules

        self.analysis.submit(load)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Runs `fn` on the analysis thread."""
        return await asyncio.get_running_loop().run_in_executor(self.analysis, fn, *args)

    def project_of(self, path: str) -> ProjectState:
        """The project a file belongs to (created, with its other files read from disk, on the
        first use). Creating it touches the disk, so call it on the analysis thread."""
        file = Path(path)
        root, is_project = find_root(file)
        key = str(root) if is_project else str(file)
        state = self.projects.get(key)
        if state is None:
            state = self.projects[key] = ProjectState(key, root, is_project, self._analyzer(root))
            if is_project:
                self._load_disk_files(state)
        return state

    def known_project_of(self, path: str) -> ProjectState | None:
        """The project of a file when one is already loaded (no disk access)."""
        file = Path(path)
        for state in self.projects.values():
            if path in state.analyzer.documents or path in state.open_files:
                return state
        key = str(file)
        if key in self.projects:
            return self.projects[key]
        for folder in file.parents:
            if str(folder) in self.projects:
                return self.projects[str(folder)]
        return None

    def set_chip(self, chip: str) -> None:
        """A new chip: every analyzer is rebuilt with it (documents kept)."""
        self.chip = chip
        for state in self.projects.values():
            docs = state.analyzer.documents
            state.analyzer = self._analyzer(state.root)
            state.analyzer.documents = docs

    def _analyzer(self, root: Path) -> Analyzer:
        from ascend_tools.lint import Analyzer, LintConfig, LintConfigError, load_config

        try:
            config = load_config(root) or LintConfig()
        except LintConfigError:
            config = LintConfig()
        return Analyzer(config.model_copy(update={"chip": self.chip}))

    def _load_disk_files(self, state: ProjectState) -> None:
        from ascend_tools.lint import LintError
        from ascend_tools.lint.analyzer import project_files

        try:
            _, files = project_files(state.root)
        except LintError:
            return  # not a complete project yet (a file being written): open files only
        for f in files:
            self.load_from_disk(state, str(f))

    def load_from_disk(self, state: ProjectState, path: str) -> bool:
        """(Re)reads a project file that is not open in the editor; False when unreadable."""
        if path in state.open_files:
            return False
        try:
            data = Path(path).read_bytes()
        except OSError:
            if path in state.disk_files:
                state.disk_files.discard(path)
                state.analyzer.remove(path)
            return False
        text = data.decode("utf-8", errors="replace")
        if unlintable(text):
            return False
        set_text(state.analyzer, path, text)
        state.disk_files.add(path)
        return True

    def close(self, path: str) -> ProjectState | None:
        """A document closed: back to its disk text when the project reads it, else dropped."""
        state = self.known_project_of(path)
        if state is None:
            return None
        state.open_files.pop(path, None)
        if not state.is_project or not self.load_from_disk(state, path):
            state.analyzer.remove(path)
            state.disk_files.discard(path)
        return state


def set_text(analyzer: Analyzer, path: str, text: str) -> None:
    """A file's new text without linting (several files change, then one lint)."""
    from ascend_tools.parse.document import Document

    doc = analyzer.documents.get(path)
    if doc is None:
        analyzer.documents[path] = Document(path, text)
    else:
        doc.update(text)


def is_source(path: str) -> bool:
    return path.endswith(SOURCE_SUFFIXES)
