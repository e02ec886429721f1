"""Real-world compatibility: lint and validate every operator project of a folder, as a new user
would, and count how many compile, pass their reference and lint clean; each project's first
failure is grouped by cause so the biggest gaps show first.

A project is a sub-folder with a reference: `ref.py` at its root, or `reference = "..."` in its
`kernelgen.toml` (relative to the project). Its chip is the `[lint] chip` of that file (the
project's own setting), else `--chip`. Lint runs as `kernelgen lint PROJECT` does (no shapes);
validation as `kernelgen validate PROJECT --ref REF`.

`python -m bench.compat_bench DIR [--chip CHIP] [--only A,B] [--format text|json] [--json OUT]`
(also `kernelgen bench compat ...`).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path

import tomllib
from pydantic import BaseModel, Field

from ascend_tools.chips import DEFAULT_CHIP
from ascend_tools.diagnostics import Diagnostic, Severity
from ascend_tools.lint import LintConfigError, LintError, lint_path
from ascend_tools.report import ValidationReport
from ascend_tools.validate import ValidationInputError, validate_project

CONFIG = "kernelgen.toml"
DEFAULT_REF = "ref.py"

# Compile-error causes, first match wins: (cause, pattern on the diagnostic message). The
# patterns are gcc's wording for each kind of failure (errors.py moves them onto project lines).
COMPILE_CAUSES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("missing header", re.compile(r"No such file or directory|header .* is not available")),
    ("undocumented CANN helper", re.compile(r"is not in the AscendC API reference")),
    ("macro redefined", re.compile(r"\bredefined\b|redefinition of '?\w+'? macro")),
    ("unknown name", re.compile(
        r"is not a member of|has no member named|was not declared in this scope"
        r"|does not name a type|has not been declared|no member named")),
    ("no matching call", re.compile(r"no matching (?:function|member function) for call"
                                    r"|invalid conversion|cannot convert")),
    ("syntax", re.compile(r"expected .* before|expected unqualified-id|stray '")),
    ("link error", re.compile(r"^link error:|undefined reference")),
)


class ProjectResult(BaseModel):
    """One project's outcome. `stage`: where it stopped (`reference`: none found; `input`: the
    reference does not bind to the project; `compile`, `run`, `mismatch`) or `passed`; `cause`:
    the group its first failure counts in."""

    name: str
    chip: str
    reference: str | None
    compiled: bool = False
    passed: bool = False
    lint_errors: int = 0
    lint_codes: dict[str, int] = Field(default_factory=dict)
    stage: str
    cause: str = ""
    first_failure: str = ""
    warnings: list[str] = Field(default_factory=list)
    """The emulator's warnings (`[code]: file:line: message`): findings that do not fail the run,
    such as a read past a SetGlobalBuffer size inside the tensor (`gm-extent`)."""
    unchecked: list[str] = Field(default_factory=list)
    """Outputs run but not compared (`[binding] unchecked`: the project's own test skips them)."""
    seconds: float = 0.0


def _config(root: Path) -> dict:
    path = root / CONFIG
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return {}


def reference_of(root: Path) -> Path | None:
    """The project's reference file: `reference` in its kernelgen.toml, else `ref.py`."""
    named = _config(root).get("reference")
    if isinstance(named, str):
        return root / named
    ref = root / DEFAULT_REF
    return ref if ref.is_file() else None


def discover(folder: Path) -> list[Path]:
    """The sub-folders that look like projects: a reference, an op_kernel or a kernel source."""
    return sorted(
        p for p in folder.iterdir()
        if p.is_dir() and not p.name.startswith((".", "_"))
        and (reference_of(p) is not None or (p / "op_kernel").is_dir())
    )


def compile_cause(message: str) -> str:
    return next((cause for cause, pat in COMPILE_CAUSES if pat.search(message)), "other compile")


def _first_error(diags: list[Diagnostic]) -> Diagnostic | None:
    return next((d for d in diags if d.severity == Severity.ERROR), None)


def _failure(report: ValidationReport) -> tuple[str, str, str]:
    """(stage, cause, first failure) of a validation report."""
    if not report.compile.ok:
        d = _first_error(report.compile.diagnostics)
        text = d.compiler_style() if d else "build failed"
        return "compile", compile_cause(d.message if d else ""), text
    if report.runtime_errors:
        e = report.runtime_errors[0]
        where = f"{e.file}:{e.line}: " if e.file else ""
        return "run", f"runtime {e.code}", f"{where}{e.message} [{e.code}]"
    bad = next((c for c in report.cases if not c.ok), None)
    if bad is None:
        return "passed", "", ""
    stage = "mismatch" if bad.mismatches or "mismatch" in bad.message else "run"
    return stage, stage if stage == "mismatch" else "run failure", f"{bad.name}: {bad.message}"


# Bad-input messages of validate_project (validate.py), by the words that identify each.
INPUT_CAUSES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("binding: input count", ("inputs", "but the reference provides")),
    ("binding: output count", ("outputs but Model.forward returns",)),
    ("binding: dtype combination", ("declares no dtype combination",)),
    ("binding: attribute", ("attribute",)),
    ("reference file", ("reference",)),
)


def _input_cause(message: str) -> str:
    """The INPUT_CAUSES group of a bad-input message (`OpDef X has 3 inputs but the reference
    provides 2` -> `binding: input count`)."""
    for cause, words in INPUT_CAUSES:
        if all(w in message for w in words):
            return cause
    return "reference/binding"


_WARNING = "emulator warning "  # validate's note prefix for the run report's warnings


def run_project(root: Path, chip: str) -> ProjectResult:
    start = time.monotonic()
    own = _config(root).get("lint", {}).get("chip")
    chip = own if isinstance(own, str) else chip
    ref = reference_of(root)
    res = ProjectResult(name=root.name, chip=chip, reference=str(ref) if ref else None,
                        stage="reference")
    try:
        diags = lint_path(root, chip=chip)
    except (LintError, LintConfigError) as exc:
        diags = []
        res.lint_codes = {"lint-failed": 1}
        res.lint_errors = 1
        res.first_failure = f"lint: {exc}"
    for d in diags:
        if d.severity == Severity.ERROR:
            res.lint_errors += 1
            res.lint_codes[str(d.code)] = res.lint_codes.get(str(d.code), 0) + 1
    if ref is None or not ref.is_file():
        res.cause = "no reference"
        res.first_failure = f"no {DEFAULT_REF} and no reference in {CONFIG}"
    else:
        try:
            report = validate_project(root, ref, chip=chip)
        except ValidationInputError as exc:
            res.stage, res.cause, res.first_failure = "input", _input_cause(str(exc)), str(exc)
        else:
            res.compiled = report.compile.ok
            res.passed = report.ok
            res.unchecked = report.unchecked
            notes = report.notes
            res.warnings = [n.removeprefix(_WARNING) for n in notes if n.startswith(_WARNING)]
            res.stage, res.cause, res.first_failure = _failure(report)
            if res.stage == "passed":
                res.cause = ""
    res.seconds = round(time.monotonic() - start, 2)
    return res


def summarize(rows: list[ProjectResult]) -> dict:
    causes: dict[str, list[str]] = {}
    for r in rows:
        if not r.passed:
            causes.setdefault(r.cause, []).append(r.name)
    lint_codes: dict[str, int] = {}
    for r in rows:
        for code, n in r.lint_codes.items():
            lint_codes[code] = lint_codes.get(code, 0) + n
    warning_codes: dict[str, int] = {}
    for r in rows:
        for code in {w.split("]", 1)[0].lstrip("[") for w in r.warnings}:
            warning_codes[code] = warning_codes.get(code, 0) + 1
    return {
        "projects": len(rows),
        "compiled": sum(r.compiled for r in rows),
        "passed": sum(r.passed for r in rows),
        "lint_clean": sum(r.lint_errors == 0 for r in rows),
        "causes": dict(sorted(causes.items(), key=lambda kv: (-len(kv[1]), kv[0]))),
        "lint_error_codes": dict(sorted(lint_codes.items(), key=lambda kv: -kv[1])),
        "warning_projects": dict(sorted(warning_codes.items(), key=lambda kv: -kv[1])),
    }


def render_text(rows: list[ProjectResult], summary: dict) -> str:
    n = summary["projects"]
    lines = [
        f"projects {n}: compiled {summary['compiled']}/{n}, passed {summary['passed']}/{n}, "
        f"lint-clean {summary['lint_clean']}/{n}",
        "",
        "first failure by cause:",
    ]
    for cause, names in summary["causes"].items():
        lines.append(f"  {len(names):3d}  {cause}: {', '.join(names)}")
    if summary["lint_error_codes"]:
        lines += ["", "lint errors by code:"]
        lines += [f"  {v:3d}  {k}" for k, v in summary["lint_error_codes"].items()]
    if summary["warning_projects"]:
        lines += ["", "projects with emulator warnings, by code:"]
        lines += [f"  {v:3d}  {k}" for k, v in summary["warning_projects"].items()]
    lines += ["", "per project:"]
    for r in rows:
        state = "PASS" if r.passed else ("compiled" if r.compiled else r.stage)
        lines.append(f"  {r.name}  [{r.chip}] {state}  lint errors {r.lint_errors}  "
                     f"({r.seconds:.1f} s)")
        if r.first_failure:
            lines.append(f"      {r.first_failure.splitlines()[0][:240]}")
        if r.unchecked:
            lines.append(f"      not compared: {', '.join(r.unchecked)}")
        lines += [f"      warning {w.splitlines()[0][:232]}" for w in r.warnings]
    return "\n".join(lines)


def main(argv: list[str] | None = None,
         progress: Callable[[str], None] = lambda s: print(s, file=sys.stderr)) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="folder of operator projects")
    parser.add_argument("--chip", default=DEFAULT_CHIP,
                        help=f"chip for projects that set none (default {DEFAULT_CHIP})")
    parser.add_argument("--only", help="comma-separated project names (substrings)")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--json", type=Path, help="also write the JSON result here")
    args = parser.parse_args(argv)
    if not args.folder.is_dir():
        print(f"bench compat: not a folder: {args.folder}", file=sys.stderr)
        return 2
    projects = discover(args.folder)
    if args.only:
        keys = [k for k in args.only.split(",") if k]
        projects = [p for p in projects if any(k in p.name for k in keys)]
    rows = []
    for p in projects:
        rows.append(run_project(p, args.chip))
        progress(f"{p.name}: {rows[-1].stage} ({rows[-1].seconds:.1f} s)")
    summary = summarize(rows)
    result = {"summary": summary, "projects": [r.model_dump() for r in rows]}
    if args.json:
        args.json.write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2) if args.format == "json" else render_text(rows, summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
