"""Lint latency on a generated 5,000-line kernel file: cold (parse + model + rules) and
incremental after a one-character edit, as the language server sees them on each keystroke.
Wall time and process CPU time are both reported: on a shared machine the CPU time is the
steadier figure.

    python -m bench.lint_bench [--lines 5000] [--repeat 20] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from ascend_tools.lint import Analyzer, LintConfig

CORPUS = Path(__file__).resolve().parents[1] / "tests" / "data" / "corpus"
TEMPLATE = "softmax_rows.cpp"


def generate_source(lines: int) -> str:
    """Copies of a correct softmax kernel class (renamed) until the file has `lines` lines,
    then one kernel entry per copy; the whole file lints clean."""
    text = (CORPUS / TEMPLATE).read_text()
    head, rest = text.split("class KernelSoftmax", 1)
    body, entry = rest.split('extern "C"', 1)
    parts = [head]
    i = 0
    while sum(p.count("\n") for p in parts) < lines - 10:
        parts.append(f"class KernelSoftmax{i}" + body.replace("KernelSoftmax()",
                                                             f"KernelSoftmax{i}()"))
        i += 1
    parts.append('extern "C"' + entry.replace("KernelSoftmax op", "KernelSoftmax0 op"))
    return "".join(parts)


def one_char_edit(text: str) -> tuple[str, int]:
    """The text with one digit changed inside a function in the middle of the file."""
    mid = text.index("Exp(yLocal, yLocal, COLS);", len(text) // 2)
    pos = text.index("COLS);", mid) - 2
    return text[:pos] + " " + text[pos + 1:], pos


def measure(lines: int, repeat: int) -> dict[str, float | int]:
    text = generate_source(lines)
    path = "bench_kernel.cpp"
    cold = []
    for _ in range(max(3, repeat // 4)):
        analyzer = Analyzer(LintConfig())
        t0 = time.perf_counter()
        analyzer.update(path, text)
        cold.append((time.perf_counter() - t0) * 1000)
    analyzer = Analyzer(LintConfig())
    analyzer.update(path, text)
    edited, _ = one_char_edit(text)
    incremental, incremental_cpu = [], []
    current = text
    for k in range(repeat):
        nxt = edited if k % 2 == 0 else text
        t0, c0 = time.perf_counter(), time.process_time()
        diags = analyzer.update(path, nxt)
        incremental.append((time.perf_counter() - t0) * 1000)
        incremental_cpu.append((time.process_time() - c0) * 1000)
        current = nxt
    doc = analyzer.documents[path]
    return {
        "lines": text.count("\n") + 1,
        "chunks": len(doc.chunks),
        "cold_ms_median": round(statistics.median(cold), 2),
        "incremental_ms_median": round(statistics.median(incremental), 2),
        "incremental_ms_max": round(max(incremental), 2),
        "incremental_cpu_ms_median": round(statistics.median(incremental_cpu), 2),
        "units_relinted_last_edit": analyzer.units_relinted,
        "chunks_reextracted_last_edit": doc.extracted,
        "diagnostics": len(diags),
        "final_text_is_current": int(doc.text == current),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    res = measure(args.lines, args.repeat)
    if args.json:
        print(json.dumps(res))
    else:
        for k, v in res.items():
            print(f"{k:32} {v}")


if __name__ == "__main__":
    main()
