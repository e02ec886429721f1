"""Long work the language server runs in a child process: validation and generation.

A child process keeps torch and the compiler out of the server (it starts fast and never
blocks), can be killed outright when a newer save arrives or the user cancels, and cannot take
the server down when a kernel crashes the emulator. Output: JSON lines on stdout,
`{"progress": "..."}` while working, then one `{"result": {...}}` or `{"error": "..."}`.

    python -m server.lsp.worker validate PROJECT [--ref REF.py] [--chip CHIP]
    python -m server.lsp.worker generate STUB.py --out DIR [--backend B] [--chip CHIP]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ascend_tools.chips import DEFAULT_CHIP


def _emit(obj: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def compile_only(project: Path, chip: str) -> dict[str, Any]:
    """Compiles a project that has no reference (the first dtype combination its OpDef
    declares, else float32 for every entry tensor): the validate JSON with no cases."""
    from ascend_tools.chips import get_chip
    from ascend_tools.project import load_project
    from ascend_tools.report import CompileReport, ValidationReport
    from ascend_tools.toolchain import emulator
    from ascend_tools.validate import compile_only_dtypes

    proj = load_project(project)
    chip_info = get_chip(chip)
    desc = emulator.describe(proj, chip_info)
    report = ValidationReport(ok=False, chip=chip_info.name, backend="emulator",
                              compile=CompileReport(ok=False, diagnostics=desc.diagnostics))
    if desc.ok:
        built = emulator.build(proj, chip_info, compile_only_dtypes(proj, desc.op))
        report.compile = CompileReport(ok=built.ok, seconds=built.seconds, cached=built.cached,
                                       diagnostics=built.diagnostics)
        report.ok = built.ok
        report.notes.append("no reference (kernelgen.toml `reference` or ref.py): compiled only")
    return report.model_dump(mode="json")


def validate(project: Path, ref: Path | None, chip: str) -> dict[str, Any]:
    if ref is None:
        return compile_only(project, chip)
    from ascend_tools.validate import validate_project

    return validate_project(project, ref, chip=chip).model_dump(mode="json")


def generate(stub: Path, out: Path, backend: str, chip: str) -> dict[str, Any]:
    from kernelgen_lm.generate import generate as run_generate
    from server.commands.generate import _json

    res = run_generate(stub, out, chip=chip, backend=backend,  # type: ignore[arg-type]
                       progress=lambda m: _emit({"progress": m}))
    data: dict[str, Any] = json.loads(_json(res))
    if res.llm_run is not None:
        data["llm_run"] = str(res.llm_run)
    if res.project is not None:
        from ascend_tools.project import ProjectError, load_project

        try:
            proj = load_project(res.project)
            data["kernel_file"] = str(proj.abs(proj.kernel_file))
        except ProjectError:
            data["kernel_file"] = None
    return data


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m server.lsp.worker")
    sub = p.add_subparsers(dest="job", required=True)
    v = sub.add_parser("validate")
    v.add_argument("project", type=Path)
    v.add_argument("--ref", type=Path)
    v.add_argument("--chip", default=DEFAULT_CHIP)
    g = sub.add_parser("generate")
    g.add_argument("stub", type=Path)
    g.add_argument("--out", type=Path, required=True)
    g.add_argument("--backend", default="auto", choices=("auto", "rules", "llm"))
    g.add_argument("--chip", default=DEFAULT_CHIP)
    args = p.parse_args(argv)
    try:
        if args.job == "validate":
            result = validate(args.project, args.ref, args.chip)
        else:
            result = generate(args.stub, args.out, args.backend, args.chip)
    except Exception as exc:  # bad input or a failure of the tools: the server shows it
        _emit({"error": f"{type(exc).__name__}: {exc}"})
        return 1
    _emit({"result": result})
    return 0


if __name__ == "__main__":
    sys.exit(main())
