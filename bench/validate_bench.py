"""Validation speed: cold and warm `validate_project` on the bundled examples, and emulator
throughput (elements per second) on a large add.

Cold = an empty build cache (every object, the precompiled header and the harness are built);
warm = the same validation again (nothing compiled). Throughput = elements of z = x + y divided by
the wall time of one sandboxed emulator run (process start, reading inputs, all blocks, writing
the output). Run: `python -m bench.validate_bench [--elements N] [--json OUT]`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import torch

from ascend_tools.chips import get_chip
from ascend_tools.project import load_project
from ascend_tools.reference import compare, from_bytes, to_bytes
from ascend_tools.runner.case import Case, CaseTensor
from ascend_tools.runner.emulator import run_case
from ascend_tools.toolchain import emulator
from ascend_tools.validate import validate_project

EXAMPLES = Path(__file__).resolve().parent / "examples"


def time_validation(name: str, dtype: str | None, warm_repeats: int) -> dict:
    project = EXAMPLES / name
    t0 = time.perf_counter()
    cold = validate_project(project, project / "ref.py", dtype=dtype)
    cold_s = time.perf_counter() - t0
    warm = []
    all_cached = True
    for _ in range(warm_repeats):
        t0 = time.perf_counter()
        rep = validate_project(project, project / "ref.py", dtype=dtype)
        warm.append(time.perf_counter() - t0)
        # False only if the emulator headers changed between runs (the cache key follows them).
        all_cached = all_cached and rep.compile.cached
    return {
        "example": name,
        "dtype": dtype or "float32",
        "ok": cold.ok,
        "cold_s": round(cold_s, 3),
        "cold_compile_s": round(cold.compile.seconds, 3),
        "warm_s": round(statistics.median(warm), 3), "warm_cached": all_cached,
    }


def add_throughput(elements: int, repeats: int) -> dict:
    project = load_project(EXAMPLES / "add_unaligned")
    chip = get_chip()
    built = emulator.build(project, chip, {"x": "float32", "y": "float32", "z": "float32"})
    assert built.ok and built.binary, built.diagnostics
    x, y = torch.randn(elements), torch.randn(elements)
    case = Case(
        chip=chip,
        op="AddCustom",
        kernel=project.entry.name,
        inputs=[
            CaseTensor(name="x", dtype="float32", shape=[elements]),
            CaseTensor(name="y", dtype="float32", shape=[elements]),
        ],
        outputs=[CaseTensor(name="z", dtype="float32", shape=[elements])],
    )
    data = {"x": to_bytes(x), "y": to_bytes(y)}
    walls = []
    for _ in range(repeats):
        run = run_case(built.binary, case, data)
        assert run.ok, run.message
        walls.append(run.seconds)
    z = from_bytes(run.outputs["z"], "float32", [elements])
    assert compare(z, x + y, 1e-4, 1e-4).ok
    best = min(walls)
    return {
        "elements": elements,
        "block_dim": run.report.get("block_dim"),
        "run_s_best": round(best, 3),
        "run_s_median": round(statistics.median(walls), 3),
        "elements_per_s": round(elements / best),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=1 << 24)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    results: dict = {"validation": [], "throughput": None}
    with tempfile.TemporaryDirectory(prefix="kernelgen-bench-") as cache:
        os.environ["KERNELGEN_CACHE_DIR"] = cache
        for name in ("add_unaligned", "softmax_rows", "leaky_relu"):
            for dtype in (None, "float16"):
                row = time_validation(name, dtype, args.repeats)
                results["validation"].append(row)
                print(
                    f"{name:14s} {row['dtype']:8s} ok={row['ok']} cold {row['cold_s']:6.2f} s "
                    f"(compile {row['cold_compile_s']:.2f} s)  warm {row['warm_s']:.2f} s"
                )
        tp = add_throughput(args.elements, args.repeats)
        results["throughput"] = tp
        print(
            f"add float32 x{tp['elements']} on {tp['block_dim']} blocks: best run "
            f"{tp['run_s_best']:.2f} s -> {tp['elements_per_s'] / 1e6:.1f} M elements/s"
        )
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
