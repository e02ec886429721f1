"""Validation latency: `validate_project` cold, after an edit, and warm, on the bundled examples
and on a project the rules generator writes; and emulator throughput on a large add.

Each project is a copy validated in its own empty build cache. Cold = nothing built (harness,
precompiled header, host objects, kernel); edit = the kernel file changed by a comment (what a
save in the editor costs: the kernel unit and link only); warm = the same validation again
(nothing compiled). Wall seconds and the CPU seconds of the compilers and runs (child processes:
on a loaded machine the figure that compares). `--no-pch` compiles kernel units without the
precompiled device header, to show what it saves. Throughput = elements of z = x + y divided by
the wall time of one sandboxed emulator run (process start, reading inputs, all blocks, writing
the output). Run: `python -m bench.validate_bench [--examples A,B] [--generated STUB]
[--no-pch] [--elements N | --no-throughput] [--json OUT]` (also `kernelgen bench validate`).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import torch

from ascend_tools.chips import get_chip
from ascend_tools.project import load_project
from ascend_tools.reference import compare, from_bytes, to_bytes
from ascend_tools.runner.case import Case, CaseTensor
from ascend_tools.runner.emulator import run_case
from ascend_tools.toolchain import emulator
from ascend_tools.validate import ValidationReport, validate_project

EXAMPLES = Path(__file__).resolve().parent / "examples"
STUBS = Path(__file__).resolve().parent / "stubs"
DEFAULT_EXAMPLES = ("add_unaligned", "softmax_rows", "leaky_relu")
DEFAULT_GENERATED = "act_abs_neg_fp32"


def _children_cpu() -> float:
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def _timed(fn: Callable[[], ValidationReport]) -> tuple[ValidationReport, float, float]:
    """The report, wall seconds, CPU seconds of the child processes it ran."""
    cpu, t0 = _children_cpu(), time.perf_counter()
    rep = fn()
    return rep, time.perf_counter() - t0, _children_cpu() - cpu


def time_validation(
    name: str, project: Path, ref: Path, dtype: str | None, warm_repeats: int, work: Path
) -> dict:
    """Cold, edit and warm validation of a copy of `project` in an empty cache under `work`."""
    copy = work / name / "project"
    shutil.copytree(project, copy)
    os.environ["KERNELGEN_CACHE_DIR"] = str(work / name / "cache")
    validate = lambda: validate_project(copy, ref, dtype=dtype)  # noqa: E731
    cold, cold_s, cold_cpu = _timed(validate)
    kernel = copy / load_project(copy).kernel_file
    kernel.write_text(kernel.read_text() + "\n// edited by the validate bench\n")
    edit, edit_s, edit_cpu = _timed(validate)
    warm = []
    all_cached = True
    for _ in range(warm_repeats):
        rep, seconds, _ = _timed(validate)
        warm.append(seconds)
        # False only if the emulator headers changed between runs (the cache key follows them).
        all_cached = all_cached and rep.compile.cached
    return {
        "project": name,
        "dtype": dtype or "float32",
        "pch": emulator.USE_PCH,
        "ok": cold.ok and edit.ok,
        "cold_s": round(cold_s, 3),
        "cold_cpu_s": round(cold_cpu, 3),
        "edit_s": round(edit_s, 3),
        "edit_cpu_s": round(edit_cpu, 3),
        "warm_s": round(statistics.median(warm), 3),
        "warm_cached": all_cached,
    }


def generated_project(stub: str, work: Path) -> tuple[Path, Path]:
    """(project, reference) the rules generator writes for bench/stubs/<stub>.py."""
    from kernelgen_lm.generate import rules_generate

    ref = STUBS / f"{stub}.py"
    if not ref.is_file():
        raise SystemExit(f"no stub {ref}")
    os.environ["KERNELGEN_CACHE_DIR"] = str(work / "generate-cache")
    res, _ = rules_generate(ref, work / "generated", chip=get_chip().name, trials=1)
    if not res.ok or res.project is None:
        raise SystemExit(f"the rules generator wrote no valid project for {stub}: {res.error}")
    return res.project, ref


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


def _print_row(row: dict) -> None:
    print(
        f"{row['project']:18s} {row['dtype']:8s} pch={row['pch']!s:5s} ok={row['ok']!s:5s} "
        f"cold {row['cold_s']:6.2f} s ({row['cold_cpu_s']:6.2f} cpu)  "
        f"edit {row['edit_s']:6.2f} s ({row['edit_cpu_s']:6.2f} cpu)  warm {row['warm_s']:.2f} s"
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--examples",
        default=",".join(DEFAULT_EXAMPLES),
        help="bundled examples to validate (comma-separated; empty: none)",
    )
    parser.add_argument(
        "--dtypes", default="float32,float16", help="dtypes to validate each example with"
    )
    parser.add_argument(
        "--generated",
        default=DEFAULT_GENERATED,
        help="bench/stubs stub whose generated project is validated (empty: none)",
    )
    parser.add_argument(
        "--no-pch",
        action="store_true",
        help="compile kernel units without the precompiled device header",
    )
    parser.add_argument("--elements", type=int, default=1 << 24)
    parser.add_argument("--no-throughput", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    emulator.USE_PCH = not args.no_pch
    results: dict = {"validation": [], "throughput": None}
    old_cache = os.environ.get("KERNELGEN_CACHE_DIR")
    with tempfile.TemporaryDirectory(prefix="kernelgen-bench-") as tmp:
        work = Path(tmp)
        jobs = [
            (
                f"{name}",
                EXAMPLES / name,
                EXAMPLES / name / "ref.py",
                None if dt == "float32" else dt,
            )
            for name in filter(None, args.examples.split(","))
            for dt in filter(None, args.dtypes.split(","))
        ]
        if args.generated:
            project, ref = generated_project(args.generated, work)
            jobs.append((f"gen:{args.generated}", project, ref, None))
        for i, (name, project, ref, dtype) in enumerate(jobs):
            row = time_validation(name, project, ref, dtype, args.repeats, work / f"{i}")
            results["validation"].append(row)
            _print_row(row)
        if not args.no_throughput:
            os.environ["KERNELGEN_CACHE_DIR"] = str(work / "throughput-cache")
            tp = add_throughput(args.elements, args.repeats)
            results["throughput"] = tp
            print(
                f"add float32 x{tp['elements']} on {tp['block_dim']} blocks: best run "
                f"{tp['run_s_best']:.2f} s -> {tp['elements_per_s'] / 1e6:.1f} M elements/s"
            )
    if old_cache is None:
        os.environ.pop("KERNELGEN_CACHE_DIR", None)
    else:
        os.environ["KERNELGEN_CACHE_DIR"] = old_cache
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
