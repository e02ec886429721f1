"""`kernelgen validate PROJECT [--ref REF.py]`: compile, run, compare; exit 0 only if all passed.

Without --ref the project's own reference is used (`reference` in kernelgen.toml, else ref.py at
the project root); with none the project is only compiled."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ascend_tools.chips import DEFAULT_CHIP
from ascend_tools.config import ConfigError, configured_chip
from ascend_tools.report import render_text
from ascend_tools.toolchain.dtypes import FLOAT_DTYPES
from ascend_tools.validate import ValidationInputError, validate_project

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "validate", help="compile a kernel project and check it against a PyTorch reference"
    )
    p.add_argument("project", type=Path, help="operator project directory or single kernel file")
    p.add_argument(
        "--ref",
        type=Path,
        help="KernelBench-format reference (Model, get_inputs); default: `reference` in the "
        "project's kernelgen.toml, else its ref.py, else compile only",
    )
    p.add_argument(
        "--chip",
        help=f"target chip (default: the project's `[lint] chip` in kernelgen.toml, else "
        f"{DEFAULT_CHIP})",
    )
    p.add_argument("--trials", type=int, default=1, help="random trials (seeds 0..N-1)")
    p.add_argument(
        "--dtype", choices=FLOAT_DTYPES, help="cast floating inputs and parameters to this dtype"
    )
    p.add_argument("--atol", type=float, help="absolute tolerance (default per dtype)")
    p.add_argument("--rtol", type=float, help="relative tolerance (default per dtype)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        chip = args.chip or configured_chip(args.project) or DEFAULT_CHIP
        report = validate_project(
            args.project,
            args.ref,
            chip=chip,
            trials=args.trials,
            dtype=args.dtype,
            atol=args.atol,
            rtol=args.rtol,
        )
    except (ValidationInputError, ConfigError) as exc:
        print(f"kernelgen validate: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(report.model_dump_json(indent=2) if args.format == "json" else render_text(report))
    return EXIT_OK if report.ok else EXIT_FAILED
