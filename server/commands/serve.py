"""`kernelgen serve`: the language server over stdio (or `--tcp --host H --port P`)."""

from __future__ import annotations

import argparse
import logging
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="run the AscendC language server (LSP over stdio)")
    p.add_argument("--tcp", action="store_true", help="listen on TCP instead of stdio")
    p.add_argument("--host", default="127.0.0.1", help="TCP host (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=2087, help="TCP port (default 2087)")
    p.add_argument("--log-level", default="WARNING",
                   choices=("DEBUG", "INFO", "WARNING", "ERROR"), help="stderr log level")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from server.lsp.protocol import TruncatingFormatter

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(TruncatingFormatter("kernelgen-lsp %(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=args.log_level, handlers=[handler], force=True)
    from server.lsp.server import build_server

    ls = build_server()
    if args.tcp:
        ls.start_tcp(args.host, args.port)
    else:
        ls.start_io()
    return 0
