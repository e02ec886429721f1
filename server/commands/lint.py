"""`kernelgen lint PATH... [--chip CHIP] [--format text|json]`: static analysis of kernels."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ascend_tools.chips import UnknownChipError, get_chip
from ascend_tools.diagnostics import Diagnostic, Severity
from ascend_tools.lint import LintConfigError, LintError, lint_path
from ascend_tools.lint.binding import BindingError, parse_shapes, reference_shapes

EXIT_OK = 0
EXIT_ERRORS = 1
EXIT_BAD_INPUT = 2


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lint", help="static analysis of AscendC kernels (tiling, UB, APIs)")
    p.add_argument("paths", type=Path, nargs="+", metavar="PATH",
                   help="kernel file or kernel project directory")
    p.add_argument("--chip", help="target chip (default: the project's config, else ascend910b2)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    binding = p.add_mutually_exclusive_group()
    binding.add_argument("--ref", type=Path,
                         help="KernelBench reference whose get_inputs() shapes feed the TilingFunc")
    binding.add_argument("--shapes", help="input shapes, e.g. 8x2048,8x2048")
    p.set_defaults(func=run)


def _json_diag(d: Diagnostic) -> dict:
    return d.model_dump(mode="json", exclude_none=True)


def run(args: argparse.Namespace) -> int:
    try:
        if args.chip:
            get_chip(args.chip)
        shapes = parse_shapes(args.shapes) if args.shapes else (
            reference_shapes(args.ref) if args.ref else None)
        diagnostics: list[Diagnostic] = []
        for path in args.paths:
            diagnostics += lint_path(path, chip=args.chip, shapes=shapes)
    except (LintError, LintConfigError, BindingError, UnknownChipError) as exc:
        print(f"kernelgen lint: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    errors = sum(d.severity == Severity.ERROR for d in diagnostics)
    if args.format == "json":
        print(json.dumps({"diagnostics": [_json_diag(d) for d in diagnostics]}, indent=2))
    else:
        for d in diagnostics:
            print(d.compiler_style())
            if d.fix is not None:
                print(f"    fix: {d.fix.title}")
        print(f"{errors} error(s), {len(diagnostics) - errors} other diagnostic(s)",
              file=sys.stderr)
    return EXIT_ERRORS if errors else EXIT_OK
