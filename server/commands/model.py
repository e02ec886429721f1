"""`kernelgen model list|eval|promote|rollback --registry DIR`: the model registry's versions,
re-evaluation, and the promoted pointer (atomic, reversible)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ascend_tools.chips import DEFAULT_CHIP, UnknownChipError

EXIT_OK = 0
EXIT_BAD_INPUT = 2


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("model", help="list, evaluate, promote or roll back model versions")
    p.add_argument("action", choices=("list", "eval", "promote", "rollback"))
    p.add_argument("version", nargs="?", default=None,
                   help="version for eval (default: the promoted one) and promote")
    p.add_argument("--registry", type=Path, required=True, help="model registry directory")
    p.add_argument("--chip", default=DEFAULT_CHIP, help="chip of the evaluation")
    p.add_argument("--eval-stubs", type=int, default=None)
    p.add_argument("--eval-inline", type=int, default=None)
    p.add_argument("--eval-max-tokens", type=int, default=2048)
    p.add_argument("--format", choices=("text", "json"), default="text")
    add_server_args(p)
    p.set_defaults(func=run)


def add_server_args(p: argparse.ArgumentParser) -> None:
    """--vllm-url/--vllm-model: the running vLLM server a promotion should reach."""
    p.add_argument("--vllm-url", action="append", default=None, metavar="URL",
                   help="a running vLLM server to point at the promoted version (an adapter "
                   "over the base it serves loads at once; otherwise the exact restart "
                   "command is printed); repeatable")
    p.add_argument("--vllm-model", default=None, metavar="NAME",
                   help="the model name clients request from it (default: $KERNELGEN_LLM_MODEL,"
                   " else kernelgen)")


def bad_server_url(args: argparse.Namespace) -> str | None:
    """Why a --vllm-url is unusable (checked before any work), or None."""
    from kernelgen_lm.backends.base import BackendConfigError
    from kernelgen_lm.backends.openai_compat import api_root

    try:
        for url in args.vllm_url or []:
            api_root(url)
    except BackendConfigError as exc:
        return f"--vllm-url: {exc}"
    return None


def reach_servers(args: argparse.Namespace, registry: object, version: str | None) -> list[dict]:
    """Points every --vllm-url server at the promoted version; one update per server."""
    import os

    from kernelgen_lm.train.serving import DEFAULT_NAME, point_vllm

    if not args.vllm_url or version is None:
        return []
    name = args.vllm_model or os.environ.get("KERNELGEN_LLM_MODEL") or DEFAULT_NAME
    key = os.environ.get("KERNELGEN_LLM_API_KEY")
    return [point_vllm(url, registry, version, name, api_key=key).model_dump()  # type: ignore[arg-type]
            for url in args.vllm_url]


def print_updates(updates: list[dict]) -> None:
    for u in updates:
        print(f"{u['server']}: {u['message']}")
        if u["command"]:
            print(f"  {u['command']}")


def run(args: argparse.Namespace) -> int:
    from kernelgen_lm.train.registry import Registry, RegistryError

    reg = Registry(args.registry)
    if args.action != "list" and not reg.versions_dir.is_dir():
        print(f"kernelgen model: {args.registry}: not a model registry", file=sys.stderr)
        return EXIT_BAD_INPUT
    if bad := bad_server_url(args):
        print(f"kernelgen model: {bad}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        if args.action == "list":
            out: dict = {"versions": [
                {"version": i.version, "promoted": i.promoted, "metrics": i.metrics,
                 "created": i.created, "kind": i.kind, "base": i.base,
                 "data_hash": i.data_hash} for i in reg.listing()],
                "promoted": reg.promoted()}
        elif args.action == "eval":
            from kernelgen_lm.train.refresh import evaluate_version
            from server.commands.train import eval_slice

            version = args.version or reg.promoted()
            if version is None:
                raise RegistryError(f"no version promoted in {args.registry}; name one")
            slice_ = eval_slice(args.chip, args.eval_stubs, args.eval_inline,
                                args.eval_max_tokens)
            metrics = evaluate_version(reg, version, slice_)  # type: ignore[arg-type]
            out = {"version": version, "metrics": metrics}
        elif args.action == "promote":
            if not args.version:
                raise RegistryError("promote needs a version (see `kernelgen model list`)")
            with reg.locked():
                ptr = reg.promote(args.version)
            out = {"promoted": ptr.version, "history": ptr.history,
                   "servers": reach_servers(args, reg, ptr.version)}
        else:
            with reg.locked():
                ptr = reg.rollback()
            out = {"promoted": ptr.version, "history": ptr.history,
                   "servers": reach_servers(args, reg, ptr.version)}
    except (RegistryError, UnknownChipError) as exc:
        print(f"kernelgen model: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.format == "json":
        print(json.dumps(out, indent=2))
    elif args.action == "list":
        for v in out["versions"]:
            metrics = ", ".join(f"{k} {x:.3f}" for k, x in sorted(v["metrics"].items()))
            mark = "*" if v["promoted"] else " "
            print(f"{mark} {v['version']}  {v['kind']:7}  base {v['base']}  {metrics}")
        if not out["versions"]:
            print(f"no versions in {args.registry}")
    elif args.action == "eval":
        print(f"{out['version']}: " + ", ".join(
            f"{k} {x:.3f}" for k, x in sorted(out["metrics"].items())))
    else:
        print(f"promoted: {out['promoted']}")
        print_updates(out["servers"])
    return EXIT_OK
