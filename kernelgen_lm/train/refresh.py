"""`train refresh`: data -> SFT (-> DPO) -> evaluation -> a new registry version, promoted
when it does not regress on the held-out slice.

The run trains in `REGISTRY/.runs/<run id>/`, named by the base, the data hash and the
method, so running the same refresh again after a crash resumes from its last checkpoint. The
version is renamed into the registry only when training and evaluation are complete, and the
promotion is one `os.replace`; a SIGKILL at any point leaves versions and the promoted pointer
as they were.

Under `accelerate launch` / `torchrun` every process runs `refresh`: all of them train (data
parallel), the main process alone holds the registry lock, evaluates, registers, promotes and
plots, and the others end with the result it broadcasts (`dist.Ranks`). A rank that dies
ends the launch before the main process reaches the registry.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel

from kernelgen_lm.backends import TransformersBackend
from kernelgen_lm.train.dist import Ranks
from kernelgen_lm.train.evaluate import EvalSlice, evaluate
from kernelgen_lm.train.formats import preference_pairs
from kernelgen_lm.train.from_store import store_records
from kernelgen_lm.train.records import (
    CotRecord,
    DataError,
    HeldOut,
    data_hash,
    decontaminate,
    dedup,
    read_dataset,
)
from kernelgen_lm.train.registry import Registry, VersionMeta, no_regression, plot_metrics
from kernelgen_lm.train.trainer import TINY, TrainConfig, train

Progress = Callable[[str], None]


class RefreshResult(BaseModel):
    version: str
    promoted: bool
    reason: str
    metrics: dict[str, float]
    base: str
    data_hash: str
    previous: str | None = None
    records: int = 0
    pairs: int = 0
    resumed_from: list[str] = []
    final_loss: float | None = None
    loss_plot: str | None = None
    metrics_plot: str | None = None
    world_size: int = 1  # processes that trained (data parallel when > 1)


def gather(data_dir: Path | None, store: Path | None, held: HeldOut) -> tuple[list[CotRecord], int]:
    """The training records (dataset + edit store), deduplicated and decontaminated; returns
    them and how many held-out records were dropped."""
    records: list[CotRecord] = []
    if data_dir is not None:
        records += read_dataset(data_dir)
    if store is not None:
        if not store.is_file():
            raise DataError(f"{store}: no such edit store")
        records += store_records(store)
    if not records:
        raise DataError(
            "no training data: pass --data DIR (made by `kernelgen train data`) "
            "and/or --store PATH (an edit store)"
        )
    kept, dropped = decontaminate(dedup(records), held)
    return kept, dropped


def _absolute(base: str) -> str:
    """A local base as an absolute path (servers load adapters from anywhere); hub ids as is."""
    path = Path(base).expanduser()
    return str(path.resolve()) if path.exists() else base


def run_id(cfg: TrainConfig, digest: str) -> str:
    """The run directory's name. A DeepSpeed run gets its own (its checkpoints are DeepSpeed's,
    which a plain run cannot resume from, nor the reverse)."""
    key = f"{cfg.base}|{cfg.method}|{digest}|{cfg.merged()}"
    if cfg.deepspeed is not None:
        key += "|deepspeed:" + json.dumps(cfg.deepspeed, sort_keys=True)
    return hashlib.sha256(key.encode()).hexdigest()[:12]


def refresh(
    registry: Registry,
    cfg: TrainConfig,
    records: list[CotRecord],
    slice_: EvalSlice,
    progress: Progress | None = None,
    keep_run: bool = False,
    ranks: Ranks | None = None,
) -> RefreshResult:
    """Trains, evaluates, registers and (when nothing regresses) promotes one version. Under a
    launcher every rank calls it with its `ranks` and gets the same result; only the main
    process touches the registry and reports progress."""
    ranks = ranks or Ranks()
    say = (progress if ranks.main else None) or (lambda _m: None)
    if cfg.base == TINY:
        cfg = cfg.model_copy(update={"merge": True})  # a tiny base lives only in its run
    digest = data_hash(records)
    pairs = preference_pairs(records)
    run = registry.runs_dir / run_id(cfg, digest)
    lock = registry.locked() if ranks.main else contextlib.nullcontext()
    with lock:
        parent = ranks.from_main(registry.promoted)
        outcome = train(records, pairs, run, cfg, progress=say, ranks=ranks)

        def register() -> RefreshResult:
            say(f"evaluate: {len(slice_.stubs)} held-out stub(s), {len(slice_.fim)} inline case(s)")
            backend = TransformersBackend(outcome.model_dir)
            result = evaluate(backend, slice_, progress=say)
            stage = run / "out"
            if outcome.loss_plot is not None:
                shutil.copyfile(outcome.loss_plot, stage / "loss.png")
            (stage / "eval.txt").write_text("\n".join(result.details) + "\n", encoding="utf-8")
            meta = VersionMeta(
                created=time.time(),
                base=cfg.base,
                kind=outcome.kind,
                serve_path=outcome.model_dir.name,
                base_path=None if outcome.kind == "merged" else _absolute(outcome.base_dir),
                data_hash=digest,
                metrics=result.metrics,
                train={
                    "method": cfg.method,
                    "sft_steps": outcome.sft_steps,
                    "dpo_steps": outcome.dpo_steps,
                    "grpo_steps": outcome.grpo_steps,
                    "grpo_tasks": outcome.grpo_tasks,
                    "examples": outcome.examples,
                    "pairs": outcome.pairs,
                    "final_loss": outcome.final_loss,
                    "resumed_from": outcome.resumed_from,
                    "world_size": ranks.world,
                    "ranks": outcome.ranks,
                    "deepspeed": cfg.deepspeed,
                },
                parent=parent,
            )
            version = registry.add(stage, meta)
            old = registry.meta(parent).metrics if parent else None
            ok, reason = no_regression(result.metrics, old)
            if ok:
                registry.promote(version)
            say(f"{version}: {'promoted' if ok else 'not promoted'} ({reason})")
            plot = plot_metrics(registry)
            if not keep_run:
                shutil.rmtree(run, ignore_errors=True)
            vdir = registry.versions_dir / version
            return RefreshResult(
                version=version,
                promoted=ok,
                reason=reason,
                metrics=result.metrics,
                base=cfg.base,
                data_hash=digest,
                previous=parent,
                records=len(records),
                pairs=len(pairs),
                resumed_from=outcome.resumed_from,
                final_loss=outcome.final_loss,
                loss_plot=str(vdir / "loss.png") if (vdir / "loss.png").is_file() else None,
                metrics_plot=str(plot) if plot else None,
                world_size=ranks.world,
            )

        return ranks.from_main(register)


def evaluate_version(
    registry: Registry, version: str, slice_: EvalSlice, progress: Progress | None = None
) -> dict[str, float]:
    """Re-evaluates a registered version; the metrics it measured replace those in its
    meta.json, the others (a smaller slice measures fewer) are kept."""
    from kernelgen_lm.train.registry import _write_atomic

    meta = registry.meta(version)
    result = evaluate(TransformersBackend(registry.serve_dir(version)), slice_, progress)
    with registry.locked():
        meta = registry.meta(version)
        meta.metrics = {**meta.metrics, **result.metrics}
        _write_atomic(registry.versions_dir / version / "meta.json", meta.model_dump_json(indent=1))
    return result.metrics
