"""Language server figures on a generated 5,000-line kernel, measured through `kernelgen serve`
as an editor sees them (JSON-RPC over stdio): completion latency (p50/p99) after `inQueue.`,
the time from an edit to its published diagnostics, and the server's resident memory after
10,000 one-character edits. Figures go into notes, never into test assertions.

    python -m bench.lsp_bench [--lines 5000] [--completions 200] [--edits 10000] [--json]
"""

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

from bench.lint_bench import generate_source
from bench.lsp_wire import Session, spawn_server


def _rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _pos(text: str, needle: str, start: int = 0) -> dict[str, int]:
    at = text.index(needle, start) + len(needle)
    line = text.count("\n", 0, at)
    return {"line": line, "character": at - (text.rfind("\n", 0, at) + 1)}


ROUND = 2000  # edits between RSS samples


async def measure(lines: int, completions: int, edits: int) -> dict[str, Any]:
    text = generate_source(lines)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench_kernel.cpp"
        path.write_text(text)
        uri = path.as_uri()
        t0 = time.perf_counter()
        proc = await spawn_server()
        s = Session(proc)
        try:
            await s.request("initialize", {"processId": None, "rootUri": Path(tmp).as_uri(),
                                           "capabilities": {}})
            started_ms = (time.perf_counter() - t0) * 1000
            s.notify("initialized", {})
            s.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": "cpp", "version": 1, "text": text}})
            t_open = time.perf_counter()
            while not s.published:
                await asyncio.sleep(0.01)
            first_diag_ms = (s.published[0][0] - t_open) * 1000
            pos = _pos(text, "inQueue.", len(text) // 2)
            lat = []
            for _ in range(completions):
                t = time.perf_counter()
                await s.request("textDocument/completion",
                                {"textDocument": {"uri": uri}, "position": pos})
                lat.append((time.perf_counter() - t) * 1000)
            lat.sort()
            # edit -> diagnostics: change one digit in the middle, wait for the publication
            mid = text.index("COLS);", len(text) // 2)
            line = text.count("\n", 0, mid)
            col = mid - (text.rfind("\n", 0, mid) + 1)
            version = 1
            to_diag = []
            for k in range(10):
                version += 1
                n = len(s.published)
                t = time.perf_counter()
                s.notify("textDocument/didChange", {
                    "textDocument": {"uri": uri, "version": version},
                    "contentChanges": [{"range": {"start": {"line": line, "character": col},
                                                  "end": {"line": line, "character": col + 1}},
                                        "text": "C" if k % 2 else "c"}]})
                while len(s.published) == n:
                    await asyncio.sleep(0.002)
                to_diag.append((s.published[-1][0] - t) * 1000)
            rss_before = _rss_kb(proc.pid)
            # RSS after each round of edits, once the server has answered (so it is idle): a
            # leak grows every round, an allocator high-water mark stops after the first.
            rss_rounds: list[int] = []
            for k in range(edits):  # type a comment char by char, then delete it, repeatedly
                version += 1
                at = {"line": line, "character": 0}
                change = ({"range": {"start": at, "end": at}, "text": "x"} if k % 2 == 0 else
                          {"range": {"start": at, "end": {"line": line, "character": 1}},
                           "text": ""})
                s.notify("textDocument/didChange", {
                    "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]})
                if k % 500 == 0:
                    assert proc.stdin is not None
                    await proc.stdin.drain()
                if (k + 1) % ROUND == 0 or k + 1 == edits:
                    await s.request("textDocument/hover",
                                    {"textDocument": {"uri": uri}, "position": pos})
                    await asyncio.sleep(0.3)
                    rss_rounds.append(_rss_kb(proc.pid))
            await asyncio.sleep(1.0)
            rss_after = _rss_kb(proc.pid)
        finally:
            proc.kill()
            await proc.wait()
            s.reader.cancel()
    return {
        "lines": text.count("\n"),
        "startup_to_initialize_ms": round(started_ms, 1),
        "open_to_first_diagnostics_ms": round(first_diag_ms, 1),
        "completion_p50_ms": round(statistics.median(lat), 2),
        "completion_p99_ms": round(lat[min(len(lat) - 1, int(len(lat) * 0.99))], 2),
        "edit_to_diagnostics_ms_median": round(statistics.median(to_diag), 1),
        "edit_to_diagnostics_note": "includes the default 100 ms lint debounce",
        "rss_mb_before_edits": round(rss_before / 1024, 1),
        "rss_mb_after_edits": round(rss_after / 1024, 1),
        f"rss_mb_after_each_{ROUND}_edits": [round(r / 1024, 1) for r in rss_rounds],
        "edits": edits,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=5000)
    ap.add_argument("--completions", type=int, default=200)
    ap.add_argument("--edits", type=int, default=10000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    res = asyncio.run(measure(args.lines, args.completions, args.edits))
    if args.json:
        print(json.dumps(res))
    else:
        for k, v in res.items():
            print(f"{k:34} {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
