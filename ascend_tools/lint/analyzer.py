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
from ascend_tools.lint.rules import PROJECT_RULES, UNIT_RULES, Rule
from ascend_tools.lint.rules.api import check_vendor_constants, check_vendor_internal
from ascend_tools.lint.suppress import suppressed
from ascend_tools.parse.document import Document, SourceEdit
from ascend_tools.parse.evaluate import Evaluator
from ascend_tools.parse.model import KernelModel
from ascend_tools.project import QUOTED_INCLUDE, ProjectError, load_project

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
        self._unit_cache: dict[str, tuple[tuple, list[Diagnostic]]] = {}
        self.units_relinted = 0

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
        """Project rules run every time; unit rules only for units whose chunks changed (or
        moved to other lines) since the last lint, or when anything outside methods changed."""
        model = self.model = KernelModel(self.documents, defines=self.config.defines)
        ev = Evaluator(model, self.chip, self.config.shapes)
        catalog = load_catalog()

        def line(c) -> int:
            return self.documents[c.file].lines.line_of(c.base)

        units: dict[str, list] = {}
        shared = []
        for c in model.chunks:
            if c.kind == "function" and c.class_name and c.file in model.kernel_files:
                units.setdefault(c.class_name, []).append(c)
            else:
                shared.append(c)
        shared_key = tuple((id(c), line(c)) for c in shared)
        found: list[Diagnostic] = []
        fresh: dict[str, tuple[tuple, list[Diagnostic]]] = {}
        self.units_relinted = 0
        free_units = {model.unit_of(c) for c in shared if c.kind == "function"
                      and c.file in model.kernel_files}
        for name, chunks in [*units.items(), ("", [])]:
            key = (shared_key, tuple((id(c), line(c)) for c in chunks))
            cached = self._unit_cache.get(name)
            if cached is not None and cached[0] == key:
                diags = cached[1]
            else:
                scope = {name} if name else free_units
                ctx = LintContext(model, ev, self.chip, catalog, scope,
                                  auto_sync=self.config.auto_sync)
                diags = self._run(UNIT_RULES, ctx)
                self.units_relinted += 1
            fresh[name] = (key, diags)
            found += diags
        self._unit_cache = fresh
        found += self._run(PROJECT_RULES, LintContext(model, ev, self.chip, catalog,
                                                      auto_sync=self.config.auto_sync))
        return self.finish(found)

    @staticmethod
    def _run(rules: tuple[Rule, ...], ctx: LintContext) -> list[Diagnostic]:
        return [d for rule in rules for d in rule(ctx)]

    def finish(self, found: list[Diagnostic]) -> list[Diagnostic]:
        """Drops ignored codes, repeats and suppressed lines; sorts by place."""
        ignored = set(self.config.ignore)
        out: list[Diagnostic] = []
        seen: set[tuple] = set()
        for d in found:
            key = (d.file, d.line, d.column, d.code, d.message)
            if d.code in ignored or key in seen:
                continue
            seen.add(key)
            if not suppressed(d, self.documents[d.file].lines.line_text):
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
    """(root, files) of the kernel project at `path`: the kernel plus host sources, tiling
    header and the kernel's own headers for an OpDef project (msopgen or flat layout), or the
    single kernel file."""
    path = path.expanduser()
    if path.is_file():
        return path.parent, [path, *_local_includes(path, {path.resolve()})]
    try:
        project = load_project(path)
    except ProjectError as exc:
        raise LintError(str(exc)) from exc
    files = [project.kernel_file, *project.host_files]
    if project.tiling_header is not None:
        files.append(project.tiling_header)
    if project.has_opdef:  # the kernel's own headers (helpers, constants)
        files += [s for s in project.sources if project.kernel_dir in s.parents
                  and s not in files and s.suffix in (".h", ".hpp")]
    out = [project.abs(f) for f in files]
    return project.root, out + _local_includes(out[0], set(out))


def _local_includes(kernel: Path, known: set[Path], depth: int = 2) -> list[Path]:
    """Headers the kernel includes with quotes that exist next to it (and theirs, two levels):
    the macros, helpers and structs they define are the project's own, not unknown APIs."""
    out: list[Path] = []
    try:
        text = kernel.read_text(errors="replace")
    except OSError:
        return out
    for name in QUOTED_INCLUDE.findall(text):
        path = (kernel.parent / name).resolve()
        if path.suffix not in (".h", ".hpp") or not path.is_file() or path in known or any(
                path.samefile(k) for k in known if k.exists()):
            continue
        known.add(path)
        out.append(path)
        if depth > 1:
            out += _local_includes(path, known, depth - 1)
    return out


def _analyzer(path: Path, chip: str | None, config: LintConfig | None,
              shapes: list[list[int]] | None) -> Analyzer:
    """An Analyzer holding the files of the kernel file or project at `path`."""
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
    return analyzer


def lint_path(path: Path, chip: str | None = None, config: LintConfig | None = None,
              shapes: list[list[int]] | None = None) -> list[Diagnostic]:
    """Lints a kernel file or a kernel project directory."""
    return _analyzer(path, chip, config, shapes).lint()


def vendor_internal_uses(path: Path, chip: str | None = None) -> list[Diagnostic]:
    """The `vendor-internal` findings alone (calls to CANN's undocumented helpers) for the kernel
    file or project at `path`: validate notes them next to a build that uses them."""
    analyzer = _analyzer(path, chip, None, None)
    model = KernelModel(analyzer.documents)
    ctx = LintContext(model, Evaluator(model, analyzer.chip, analyzer.config.shapes),
                      analyzer.chip, load_catalog())
    found = [d for rule in (check_vendor_internal, check_vendor_constants) for d in rule(ctx)
             if d.file in model.kernel_files]
    return analyzer.finish(found)
