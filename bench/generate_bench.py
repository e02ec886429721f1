"""Runs the rule-based generator over the stub suite: pass rates and MODELLED speed-ups against
PyTorch eager (cost model on the emulator's counters, not a measurement) per stub, per family and
overall: Fast1.0 / Fast0.8 / Fast0.2 (fraction of stubs correct and at or above that speed-up)
and the geometric-mean speed-up of the correct stubs. Writes `results.json` and `results.md`.

`python -m bench.generate_bench [--stubs DIR] [--chip CHIP] [--out DIR] [--only A,B] [--trials N]`
(also `kernelgen bench generate ...`). The family of a stub is its name's prefix (`act_`, `ew_`,
`red_`, `sm_`, `norm_`, `loss_`, `opt_`, `pool_`, `scan_`, `mm_`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from ascend_tools.chips import DEFAULT_CHIP, UnknownChipError, get_chip
from kernelgen_lm.generate import GenerationResult, any_plan_mode, rules_generate
from kernelgen_lm.speed import FAST_THRESHOLDS, MODEL_NOTE, SpeedSummary, speed_summary

STUBS = Path(__file__).parent / "stubs"


def _row(stub: Path, res: GenerationResult, mode: str | None, seconds: float) -> dict:
    last = res.attempts[-1] if res.attempts else None
    speed = res.speed
    return {
        "stub": stub.stem,
        "family": stub.stem.split("_")[0],
        "ok": res.ok,
        "stage": last.stage if last else None,
        "message": (last.message if last else "")[:300],
        "mode": mode,
        "seconds": round(seconds, 2),
        "max_abs_err": max((c.max_abs_err or 0.0 for c in res.validation.cases), default=None)
        if res.validation
        else None,
        "kernel_us": round(speed.kernel.total_us, 3) if speed else None,
        "eager_us": round(speed.eager.total_us, 3) if speed else None,
        "eager_launches": speed.eager.launches if speed else None,
        "speedup": round(speed.speedup, 4) if speed else None,
        "bound": speed.kernel.bound if speed else None,
        "body_bound": speed.kernel.body_bound if speed else None,
        "cores_used": speed.kernel.cores_used if speed else None,
    }


def _summary(rows: list[dict]) -> SpeedSummary:
    return speed_summary([(r["ok"], r["speedup"]) for r in rows])


def _bound(row: dict) -> str:
    """`launch (vector)`: launch-bound, and what bounds the body behind it."""
    if row["bound"] is None:
        return "-"
    return row["bound"] + (f" ({row['body_bound']})" if row["bound"] == "launch" else "")


def _fmt(x: float | None, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def markdown(
    chip: str, families: dict[str, SpeedSummary], overall: SpeedSummary, rows: list[dict]
) -> str:
    fast_cols = " | ".join(f"Fast{p:.1f}" for p in FAST_THRESHOLDS)
    head = f"| family | passed | total | pass rate | {fast_cols} | geomean speed-up |"
    md = [
        f"Generation bench on {chip}. Speed-ups are modelled against PyTorch eager "
        f"({MODEL_NOTE}: `ascend_tools/cost.py`, `kernelgen_lm/speed.py`).",
        "",
        head,
        "|" + "---|" * (5 + len(FAST_THRESHOLDS)),
    ]
    for name, s in [*families.items(), ("all", overall)]:
        fast = " | ".join(f"{100 * s.fast[f'{p:.1f}']:.1f}%" for p in FAST_THRESHOLDS)
        md.append(
            f"| {name} | {s.passed} | {s.total} | {100 * s.pass_rate:.1f}% | {fast} | "
            f"{_fmt(s.geomean_speedup, '.2f')}x |"
        )
    md += [
        "",
        "| stub | ok | kernel us | eager us (launches) | speed-up | bound | cores |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        eager = f"{_fmt(r['eager_us'], '.1f')} ({r['eager_launches'] or '-'})"
        md.append(
            f"| {r['stub']} | {'yes' if r['ok'] else 'no (' + str(r['stage']) + ')'} | "
            f"{_fmt(r['kernel_us'], '.1f')} | {eager} | {_fmt(r['speedup'], '.2f')}x | "
            f"{_bound(r)} | {r['cores_used'] or '-'} |"
        )
    return "\n".join(md) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stubs", type=Path, default=STUBS)
    ap.add_argument("--chip", default=DEFAULT_CHIP)
    ap.add_argument("--out", type=Path, default=Path("out/generate_bench"))
    ap.add_argument("--only", default="", help="comma-separated name substrings to run")
    ap.add_argument("--trials", type=int, default=2)
    args = ap.parse_args(argv)
    try:
        chip = get_chip(args.chip).name
    except UnknownChipError as exc:
        print(f"generate_bench: {exc}", file=sys.stderr)
        return 2
    if not args.stubs.is_dir():
        print(f"generate_bench: {args.stubs}: no such directory", file=sys.stderr)
        return 2
    rows = []
    for stub in sorted(args.stubs.glob("*.py")):
        if args.only and not any(o in stub.name for o in args.only.split(",")):
            continue
        start = time.monotonic()
        res, plan = rules_generate(
            stub, args.out / "projects" / stub.stem, chip=chip, trials=args.trials
        )
        rows.append(
            _row(stub, res, any_plan_mode(plan) if plan else None, time.monotonic() - start)
        )
        r = rows[-1]
        speed = f" {r['speedup']:.2f}x, {_bound(r)}-bound" if r["speedup"] is not None else ""
        print(
            f"{'PASS' if r['ok'] else 'FAIL'} {stub.stem} ({r['stage']}){speed} "
            f"{'' if r['ok'] else r['message'][:160]}",
            flush=True,
        )
    by_family: dict[str, list[dict]] = {}
    for r in rows:
        by_family.setdefault(r["family"], []).append(r)
    families = {f: _summary(v) for f, v in sorted(by_family.items())}
    overall = _summary(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    report = {
        "chip": chip,
        "speed_note": MODEL_NOTE,
        "overall": overall.model_dump(),
        "families": {f: s.model_dump() for f, s in families.items()},
        "stubs": rows,
    }
    (args.out / "results.json").write_text(json.dumps(report, indent=2))
    md = markdown(chip, families, overall, rows)
    (args.out / "results.md").write_text(md)
    print(md.split("\n\n")[1])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
