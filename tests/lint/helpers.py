"""Shared helpers for the lint tests: corpus paths, linting texts, applying fixes."""

from __future__ import annotations

from pathlib import Path

from ascend_tools.diagnostics import Diagnostic, Severity
from ascend_tools.lint import Analyzer, LintConfig, apply_fix, project_files

CORPUS = Path(__file__).resolve().parents[1] / "data" / "corpus"


def corpus_texts(name: str) -> dict[str, str]:
    """Files of a corpus kernel (a single file or a project) by path."""
    path = CORPUS / name
    _, files = project_files(path if path.exists() else path.with_suffix(".cpp"))
    return {str(f): f.read_text() for f in files}


def kernel_path(texts: dict[str, str]) -> str:
    return next(p for p in texts if "op_host" not in p)


def lint_texts(texts: dict[str, str], chip: str = "ascend910b2",
               shapes: list[list[int]] | None = None, *,
               auto_sync: bool = True) -> list[Diagnostic]:
    analyzer = Analyzer(LintConfig(chip=chip, shapes=shapes, auto_sync=auto_sync))
    out: list[Diagnostic] = []
    for path, text in texts.items():
        out = analyzer.update(path, text)
    return out


def mutate(texts: dict[str, str], old: str, new: str) -> dict[str, str]:
    """The texts with `old` replaced once in whichever file holds it (it must be there)."""
    hits = [p for p, t in texts.items() if old in t]
    assert hits, f"{old!r} not found in the corpus kernel"
    out = dict(texts)
    out[hits[0]] = out[hits[0]].replace(old, new, 1)
    return out


def codes(diags: list[Diagnostic], severity: Severity | None = None) -> list[str]:
    return [d.code for d in diags if severity is None or d.severity == severity]


def errors(diags: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diags if d.severity == Severity.ERROR]


def fix_and_relint(
    texts: dict[str, str], code: str, chip: str = "ascend910b2",
    shapes: list[list[int]] | None = None,
) -> tuple[dict[str, str], list[Diagnostic]]:
    """Applies the fix of every `code` diagnostic, one at a time, re-linting in between."""
    for _ in range(10):
        diags = [d for d in lint_texts(texts, chip, shapes) if d.code == code]
        if not diags:
            break
        fix = diags[0].fix
        assert fix is not None, f"{code} diagnostic has no fix: {diags[0].message}"
        texts = apply_fix(texts, fix)
    return texts, lint_texts(texts, chip, shapes)
