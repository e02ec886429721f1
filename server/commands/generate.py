"""`kernelgen generate REF.py -o OUTDIR`: PyTorch stub -> validated AscendC operator project."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ascend_tools.chips import DEFAULT_CHIP, UnknownChipError
from ascend_tools.report import render_text
from kernelgen_lm.generate import GenerationResult, generate

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("generate", help="generate an AscendC operator project from a PyTorch stub")
    p.add_argument(
        "ref", type=Path, help="KernelBench-format file (Model, get_inputs, get_init_inputs)"
    )
    p.add_argument("-o", "--out", type=Path, required=True, help="output project directory")
    p.add_argument("--chip", default=DEFAULT_CHIP, help=f"target chip (default {DEFAULT_CHIP})")
    p.add_argument("--backend", choices=("auto", "rules", "llm"), default="auto")
    p.add_argument("--samples", type=int, default=1, help="LLM samples (k)")
    p.add_argument("--max-repairs", type=int, default=2, help="LLM repair rounds per sample")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=run)


def _json(res: GenerationResult) -> str:
    return json.dumps(
        {
            "ok": res.ok,
            "op": res.op,
            "project": str(res.project) if res.project else None,
            "backend_used": res.backend_used,
            "attempts": [a.model_dump() for a in res.attempts],
            "validation": res.validation.model_dump(mode="json") if res.validation else None,
            "error": res.error,
            "speed": res.speed.model_dump(mode="json") if res.speed else None,
        },
        indent=2,
    )


def run(args: argparse.Namespace) -> int:
    if not args.ref.is_file():
        print(f"kernelgen generate: {args.ref}: no such file", file=sys.stderr)
        return EXIT_BAD_INPUT
    progress = (
        (lambda m: print(f"[generate] {m}", file=sys.stderr)) if args.format == "text" else None
    )
    try:
        res = generate(
            args.ref,
            args.out,
            chip=args.chip,
            backend=args.backend,
            samples=args.samples,
            max_repairs=args.max_repairs,
            progress=progress,
        )
    except UnknownChipError as exc:
        print(f"kernelgen generate: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.format == "json":
        print(_json(res))
    else:
        for a in res.attempts:
            print(f"{a.backend}: {a.stage}: {'ok' if a.ok else 'failed'} {a.message}".rstrip())
        if res.validation is not None:
            print(render_text(res.validation))
        if res.speed is not None:
            print(res.speed.line())
        if res.ok:
            print(f"project: {res.project} (backend {res.backend_used})")
        else:
            print(f"kernelgen generate: {res.error}", file=sys.stderr)
    if res.ok:
        return EXIT_OK
    # Bad input: the stub could not be captured or planned and no LLM backend ran on it.
    rejected = bool(res.attempts) and res.attempts[0].stage in ("capture", "plan")
    return EXIT_BAD_INPUT if rejected and res.backend_used != "llm" else EXIT_FAILED
