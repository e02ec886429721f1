"""Runs the rule-based generator over the stub suite; pass rates per family (JSON + Markdown).

`python -m bench.generate_bench [--stubs DIR] [--chip CHIP] [--out DIR] [--only SUBSTR]`.
The family of a stub is its name's prefix (`act_`, `ew_`, `red_`, `sm_`, `norm_`, `loss_`, `opt_`).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from ascend_tools.chips import DEFAULT_CHIP
from kernelgen_lm.generate import any_plan_mode, rules_generate

STUBS = Path(__file__).parent / "stubs"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--stubs", type=Path, default=STUBS)
    ap.add_argument("--chip", default=DEFAULT_CHIP)
    ap.add_argument("--out", type=Path, default=Path("out/generate_bench"))
    ap.add_argument("--only", default="", help="comma-separated name substrings to run")
    ap.add_argument("--trials", type=int, default=2)
    args = ap.parse_args()
    rows = []
    for stub in sorted(args.stubs.glob("*.py")):
        if args.only and not any(o in stub.name for o in args.only.split(",")):
            continue
        start = time.monotonic()
        res, plan = rules_generate(
            stub, args.out / "projects" / stub.stem, chip=args.chip, trials=args.trials
        )
        last = res.attempts[-1] if res.attempts else None
        rows.append(
            {
                "stub": stub.stem,
                "family": stub.stem.split("_")[0],
                "ok": res.ok,
                "stage": last.stage if last else None,
                "message": (last.message if last else "")[:300],
                "mode": any_plan_mode(plan) if plan else None,
                "seconds": round(time.monotonic() - start, 2),
                "max_abs_err": max(
                    (c.max_abs_err or 0.0 for c in res.validation.cases), default=None
                )
                if res.validation
                else None,
            }
        )
        print(
            f"{'PASS' if res.ok else 'FAIL'} {stub.stem} ({rows[-1]['stage']}) "
            f"{'' if res.ok else rows[-1]['message'][:160]}",
            flush=True,
        )
    fams: dict[str, list[bool]] = {}
    for r in rows:
        fams.setdefault(r["family"], []).append(r["ok"])
    summary = {f: {"passed": sum(v), "total": len(v)} for f, v in sorted(fams.items())}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "results.json").write_text(
        json.dumps({"chip": args.chip, "families": summary, "stubs": rows}, indent=2)
    )
    md = ["| family | passed | total | rate |", "|---|---|---|---|"]
    for f, s in summary.items():
        md.append(f"| {f} | {s['passed']} | {s['total']} | {100 * s['passed'] / s['total']:.0f}% |")
    tot = sum(s["passed"] for s in summary.values()), sum(s["total"] for s in summary.values())
    md.append(f"| all | {tot[0]} | {tot[1]} | {100 * tot[0] / max(tot[1], 1):.1f}% |")
    (args.out / "results.md").write_text("\n".join(md) + "\n")
    print("\n".join(md))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
