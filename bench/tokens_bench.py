"""Semantic token figures: the core classification (`ascend_tools.parse.semantic.classify`,
parse included) and `textDocument/semanticTokens/full` through `kernelgen serve` as an editor
sees it (JSON-RPC over stdio, after a one-character edit so the request pays the incremental
re-parse), per file. Figures go into notes, never into test assertions.

    python -m bench.tokens_bench [FILE ...] [--repeat 20] [--json]

Without files: the largest source file under bench/examples."""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.lsp_wire import Session, spawn_server

REPO = Path(__file__).resolve().parents[1]
SUFFIXES = (".cpp", ".h", ".hpp", ".cc")


def largest_example() -> Path:
    files = [p for p in (REPO / "bench" / "examples").rglob("*") if p.suffix in SUFFIXES]
    if not files:
        raise SystemExit("no source files under bench/examples")
    return max(files, key=lambda p: p.stat().st_size)


def core_ms(text: str, repeat: int) -> tuple[list[float], int]:
    from ascend_tools.catalog import load_catalog
    from ascend_tools.parse.semantic import classify

    catalog = load_catalog()
    count = len(classify(text, catalog).tokens)  # warm: catalog, query, caches
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        classify(text, catalog)
        times.append((time.perf_counter() - t) * 1000)
    return times, count


async def wire_ms(text: str, repeat: int) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "kernel.cpp"
        path.write_text(text, encoding="utf-8")
        uri = path.as_uri()
        proc = await spawn_server()
        s = Session(proc)
        try:
            await s.request(
                "initialize", {"processId": None, "rootUri": Path(tmp).as_uri(), "capabilities": {}}
            )
            s.notify("initialized", {})
            s.notify(
                "textDocument/didOpen",
                {"textDocument": {"uri": uri, "languageId": "cpp", "version": 1, "text": text}},
            )
            doc = {"textDocument": {"uri": uri}}
            await s.request("textDocument/semanticTokens/full", doc)
            times = []
            for k in range(repeat):
                at = {"line": 0, "character": 0}
                edit = (
                    {"range": {"start": at, "end": at}, "text": " "}
                    if k % 2 == 0
                    else {"range": {"start": at, "end": {"line": 0, "character": 1}}, "text": ""}
                )
                s.notify(
                    "textDocument/didChange",
                    {"textDocument": {"uri": uri, "version": k + 2}, "contentChanges": [edit]},
                )
                t = time.perf_counter()
                await s.request("textDocument/semanticTokens/full", doc)
                times.append((time.perf_counter() - t) * 1000)
        finally:
            proc.kill()
            await proc.wait()
            s.reader.cancel()
    return times


def measure(path: Path, repeat: int) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8", errors="replace")
    core, count = core_ms(text, repeat)
    wire = asyncio.run(wire_ms(text, repeat))
    return {
        "file": str(path),
        "bytes": len(text.encode("utf-8")),
        "lines": text.count("\n"),
        "tokens": count,
        "core_classify_ms_median": round(statistics.median(core), 1),
        "core_classify_ms_min": round(min(core), 1),
        "lsp_full_after_edit_ms_median": round(statistics.median(wire), 1),
        "lsp_full_after_edit_ms_min": round(min(wire), 1),
        "repeat": repeat,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", type=Path)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    for path in args.files or [largest_example()]:
        if not path.is_file():
            print(f"not a file: {path}", file=sys.stderr)
            return 2
        res = measure(path, args.repeat)
        if args.json:
            print(json.dumps(res))
        else:
            for k, v in res.items():
                print(f"{k:32} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
