"""`kernelgen bench {generate,validate,lint,lsp,compat,tokens,lsp-corpus} [ARGS...]`: runs a
bench module of `bench/` with its own arguments, exactly as `python -m bench.<suite>_bench ARGS...`
(or `bench.lsp_corpus`) does.

`server` and `bench` are both shells that nothing else imports (docs/ARCHITECTURE.md); this command
only hands its argument list to the bench module's `main(argv)`, one shell invoking another, so
no core code depends on either.
"""

from __future__ import annotations

import argparse
import importlib

SUITES = {
    "generate": "bench.generate_bench",
    "validate": "bench.validate_bench",
    "lint": "bench.lint_bench",
    "lsp": "bench.lsp_bench",
    "compat": "bench.compat_bench",
    "tokens": "bench.tokens_bench",
    "lsp-corpus": "bench.lsp_corpus",
}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench",
        help="run a benchmark suite (generate: pass rates and modelled speed-ups; "
        "validate: validation time; lint: lint latency; lsp: language server latency; "
        "compat: lint and validate a folder of real projects; tokens: semantic token time; "
        "lsp-corpus: language server census over a folder of real projects)",
        description="Runs bench/<suite>_bench.py with the arguments that follow the suite name "
        "(`kernelgen bench generate --help` shows them).",
    )
    p.add_argument("suite", choices=tuple(SUITES), help="which bench to run")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the bench module")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    module = importlib.import_module(SUITES[args.suite])
    try:
        code = module.main(list(args.args))
    except SystemExit as exc:  # argparse inside the bench: --help (0) or a usage error (2)
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    return int(code or 0)
