"""`kernelgen`: one CLI, one subcommand module per capability under `server/commands/`."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

# Each module under server/commands defines `register(subparsers)`; the parser it adds sets
# `run(args) -> int` as its default `func`.
COMMANDS: tuple[str, ...] = ("validate", "generate", "lint", "bench", "serve", "train", "model")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; `only` registers one command (each command module imports its core, and
    `serve` must not pay for torch)."""
    parser = argparse.ArgumentParser(
        prog="kernelgen",
        description="AscendC kernel assistant: validate, lint, generate, serve, train.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        if only is None or name == only:
            importlib.import_module(f"server.commands.{name}").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    args = build_parser("serve" if words[:1] == ["serve"] else None).parse_args(words)
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("kernelgen: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
