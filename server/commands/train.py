"""`kernelgen train data|refresh`: build an Ascend-CoT dataset; train, evaluate and register
a new model version (promoted when it does not regress). Thin: arguments in, core calls
(`kernelgen_lm.train`), results out. Exit codes: 0 done, 1 training failed, 2 bad input."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import sys
from pathlib import Path

from ascend_tools.chips import DEFAULT_CHIP, UnknownChipError, get_chip
from server.commands.model import add_server_args, bad_server_url, print_updates, reach_servers

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_BAD_INPUT = 2


def bench_dir(name: str) -> Path:
    """A bundled folder of the bench shell (stubs, example projects)."""
    return Path(importlib.import_module("bench").__file__ or "").parent / name


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train", help="make training data; train, evaluate and register a model",
                       description="Ascend-CoT data and model refresh (docs/training.md).")
    tsub = p.add_subparsers(dest="train_command", required=True, metavar="STEP")

    d = tsub.add_parser("data", help="write DIR/ascend_cot.jsonl and DIR/DATACARD.md")
    d.add_argument("-o", "--out", type=Path, required=True, help="dataset directory")
    d.add_argument("--limit", type=int, default=None,
                   help="at most N seed kernels from the rule generator (0: none)")
    d.add_argument("--catalog-limit", type=int, default=None,
                   help="at most N question/answer records from the API catalog (0: none)")
    d.add_argument("--chip", action="append", default=None,
                   help=f"chip(s) of the seed kernels (repeatable; default {DEFAULT_CHIP})")
    d.add_argument("--stubs", type=Path, default=None,
                   help="folder of PyTorch stubs for the seed set (default: the bundled stubs)")
    d.add_argument("--from-store", type=Path, default=None,
                   help="an edit store (.kernelgen/edits.sqlite) to add")
    d.add_argument("--import", dest="import_file", type=Path, default=None,
                   help="a JSON/JSONL file of your own records (or a folder of projects)")
    d.add_argument("--mapping", default=None,
                   help='field mapping for --import: JSON or a file, e.g. '
                        '\'{"instruction": "question", "answer": "response"}\'; or `projects` '
                        'when --import is a folder of operator projects with their references')
    d.add_argument("--format", choices=("text", "json"), default="text")
    d.set_defaults(func=run_data)

    r = tsub.add_parser(
        "refresh", help="SFT (then DPO when pairs exist), evaluate, register, promote",
        description="Trains a new version from a dataset and/or an edit store, evaluates it on "
        "the held-out slice and promotes it when no metric regresses. Rerunning the same "
        "refresh after a crash resumes from its last checkpoint.")
    r.add_argument("--base", required=True,
                   help="base model: a local directory or hub id, or `tiny` (built on the spot)")
    r.add_argument("--registry", type=Path, required=True, help="model registry directory")
    r.add_argument("--data", type=Path, default=None, help="dataset directory (train data)")
    r.add_argument("--store", type=Path, default=None, help="an edit store to train on too")
    r.add_argument("--max-steps", type=int, default=200, help="SFT optimizer steps")
    r.add_argument("--dpo-steps", type=int, default=None,
                   help="DPO steps when pairs exist (default: max-steps / 4)")
    r.add_argument("--method", choices=("lora", "full"), default="lora")
    r.add_argument("--merge", action="store_true",
                   help="merge the LoRA adapter into the base (always for tiny)")
    r.add_argument("--learning-rate", type=float, default=None)
    r.add_argument("--batch-size", type=int, default=1)
    r.add_argument("--grad-accum", type=int, default=1)
    r.add_argument("--max-length", type=int, default=8192, help="tokens per example")
    r.add_argument("--save-steps", type=int, default=20, help="checkpoint every N steps")
    r.add_argument("--chip", default=DEFAULT_CHIP, help="chip of the evaluation")
    r.add_argument("--eval-stubs", type=int, default=None,
                   help="held-out stubs to evaluate generation on (default: all)")
    r.add_argument("--eval-max-tokens", type=int, default=2048)
    r.add_argument("--eval-inline", type=int, default=None,
                   help="inline-completion cases to evaluate (default: all)")
    r.add_argument("--grpo-steps", type=int, default=0,
                   help="GRPO steps after SFT/DPO, rewarded by the validator (compile, "
                   "correctness, modelled speed) on the dataset's generation tasks; 0: off")
    r.add_argument("--grpo-generations", type=int, default=4,
                   help="answers sampled per prompt in a GRPO step (>= 2)")
    r.add_argument("--grpo-max-tokens", type=int, default=2048,
                   help="longest GRPO answer, in tokens")
    r.add_argument("--reward-workers", type=int, default=2,
                   help="processes validating GRPO answers in parallel")
    zero = r.add_mutually_exclusive_group()
    zero.add_argument("--deepspeed", type=Path, default=None, metavar="CONFIG.json",
                      help="train with DeepSpeed (ZeRO) using this config (needs deepspeed; "
                      "start with `accelerate launch`, docs/training.md)")
    zero.add_argument("--zero", type=int, choices=(2, 3), default=None,
                      help="DeepSpeed ZeRO stage 2 or 3 with the config docs/training.md shows")
    r.add_argument("--format", choices=("text", "json"), default="text")
    add_server_args(r)
    r.set_defaults(func=run_refresh)


def _err(msg: str) -> int:
    print(f"kernelgen train: {msg}", file=sys.stderr)
    return EXIT_BAD_INPUT


def run_data(args: argparse.Namespace) -> int:
    from kernelgen_lm.train.data import DataRequest, build_dataset
    from kernelgen_lm.train.importer import PROJECTS, parse_mapping
    from kernelgen_lm.train.records import DataError
    from kernelgen_lm.train.seed import held_out_slice, split_stubs

    stubs_dir = args.stubs or bench_dir("stubs")
    if not stubs_dir.is_dir():
        return _err(f"{stubs_dir}: no such stub folder")
    if args.limit is not None and args.limit < 0:
        return _err("--limit must be >= 0")
    chips = args.chip or [DEFAULT_CHIP]
    try:
        for c in chips:
            get_chip(c)
        projects = args.mapping == PROJECTS
        mapping = parse_mapping(args.mapping) if args.mapping and not projects else None
        if args.mapping and args.import_file is None:
            return _err("--mapping goes with --import FILE")
        train_stubs, held = split_stubs(stubs_dir)
        say = (lambda m: print(f"[train data] {m}", file=sys.stderr)) \
            if args.format == "text" else None
        res = build_dataset(DataRequest(
            out=args.out, stubs=train_stubs, chips=chips, limit=args.limit,
            catalog_limit=args.catalog_limit, store=args.from_store,
            import_file=args.import_file, mapping=mapping, import_projects=projects),
            held_out_slice(held), say)
    except (DataError, UnknownChipError) as exc:
        return _err(str(exc))
    if args.format == "json":
        print(res.model_dump_json(indent=2))
    else:
        counts = ", ".join(f"{k} {v}" for k, v in sorted(res.counts.items()))
        print(f"{res.records} records ({counts}) -> {res.path} (data hash {res.data_hash})")
    return EXIT_OK


def eval_slice(chip: str, stubs: int | None, inline: int | None, max_tokens: int) -> object:
    from kernelgen_lm.train.evaluate import EvalSlice, fim_cases
    from kernelgen_lm.train.seed import split_stubs

    _, held = split_stubs(bench_dir("stubs"))
    examples = sorted(p for p in bench_dir("examples").iterdir() if p.is_dir())
    fim = fim_cases(examples)
    return EvalSlice(stubs=held[:stubs] if stubs is not None else held,
                     fim=fim[:inline] if inline is not None else fim,
                     chip=chip, max_tokens=max_tokens, fim_max_tokens=min(64, max_tokens))


def deepspeed_config(args: argparse.Namespace) -> dict | None:
    """The DeepSpeed config of `--deepspeed FILE` or `--zero N` (None: neither); raises
    ZeroConfigError when it is malformed or DeepSpeed is not installed."""
    from kernelgen_lm.train.zero import load_config, require_deepspeed, zero_config

    if args.deepspeed is None and args.zero is None:
        return None
    config = load_config(args.deepspeed) if args.deepspeed else zero_config(args.zero)
    require_deepspeed()
    return config


def run_refresh(args: argparse.Namespace) -> int:
    """One process of a refresh: the whole of it, or one rank of `accelerate launch` (every
    rank trains; the main one registers and prints the result, the others print nothing)."""
    from kernelgen_lm.train.dist import RankFailed, join
    from kernelgen_lm.train.records import DataError
    from kernelgen_lm.train.refresh import gather, refresh
    from kernelgen_lm.train.registry import Registry, RegistryError
    from kernelgen_lm.train.seed import held_out_slice, split_stubs
    from kernelgen_lm.train.trainer import TrainConfig, TrainingError, cpu_only
    from kernelgen_lm.train.zero import ZeroConfigError

    if args.max_steps < 1:
        return _err("--max-steps must be >= 1")
    if bad := bad_server_url(args):
        return _err(bad)
    if args.grpo_steps < 0 or args.grpo_generations < 2 or args.reward_workers < 1:
        return _err("--grpo-steps must be >= 0, --grpo-generations >= 2 (GRPO compares "
                    "answers to one prompt) and --reward-workers >= 1")
    if args.base != "tiny" and "/" not in args.base and not Path(args.base).exists():
        return _err(f"--base {args.base!r}: not a model directory, a hub id (org/name) or tiny")
    try:
        get_chip(args.chip)
        _, held = split_stubs(bench_dir("stubs"))
        records, dropped = gather(args.data, args.store, held_out_slice(held))
        cfg = TrainConfig(
            base=args.base, method=args.method, max_steps=args.max_steps,
            dpo_steps=args.dpo_steps, batch_size=args.batch_size, grad_accum=args.grad_accum,
            learning_rate=args.learning_rate, max_length=args.max_length,
            save_steps=args.save_steps, merge=True if args.merge else None,
            grpo_steps=args.grpo_steps, grpo_generations=args.grpo_generations,
            grpo_max_tokens=args.grpo_max_tokens, reward_workers=args.reward_workers,
            progress_bars=args.format == "text", deepspeed=deepspeed_config(args))
        slice_ = eval_slice(args.chip, args.eval_stubs, args.eval_inline, args.eval_max_tokens)
    except (DataError, UnknownChipError, ZeroConfigError) as exc:
        return _err(str(exc))
    ranks = join(cpu_only(), deepspeed=cfg.deepspeed is not None)
    say = (lambda m: print(f"[train refresh] {m}", file=sys.stderr)) \
        if args.format == "text" and ranks.main else None
    if say and dropped:
        say(f"dropped {dropped} record(s) of held-out tasks")
    try:
        # Trainer logs print to stdout; stdout carries only the result (JSON for scripts).
        with contextlib.redirect_stdout(sys.stderr):
            registry = Registry(args.registry)
            res = refresh(registry, cfg, records, slice_, say, ranks=ranks)  # type: ignore[arg-type]
    except TrainingError as exc:
        return _err(str(exc))
    except (RegistryError, RankFailed) as exc:
        print(f"kernelgen train: {exc}", file=sys.stderr)
        return EXIT_FAILED
    finally:
        ranks.close()
    if not ranks.main:
        return EXIT_OK  # the main process reports (one result on the launch's stdout)
    servers = reach_servers(args, registry, res.version) if res.promoted else []
    if args.format == "json":
        print(json.dumps({**res.model_dump(mode="json"), "servers": servers}, indent=2))
    else:
        metrics = ", ".join(f"{k} {v:.3f}" for k, v in sorted(res.metrics.items()))
        state = "promoted" if res.promoted else "not promoted"
        print(f"{res.version}: {state} ({res.reason}); {metrics}")
        print(f"base {res.base}, data {res.data_hash}, {res.records} records, "
              f"{res.pairs} preference pairs" + (f", loss plot {res.loss_plot}"
                                                  if res.loss_plot else ""))
        print_updates(servers)
    return EXIT_OK
