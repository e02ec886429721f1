"""SFT then DPO with TRL, resumable: every stage checkpoints under the run directory and a
rerun of the same run continues from the last checkpoint (or skips a finished stage).

Layout of a run directory (the registry keeps it under `.runs/<run id>/` until the version is
registered):

    base/               the tiny base model (`--base tiny` only)
    sft/checkpoint-N/   Trainer checkpoints;  sft/final/  the SFT model (renamed in when done)
    dpo/checkpoint-N/   the same for DPO;     dpo/final/
    grpo/checkpoint-N/  the same for GRPO (optional, rewarded by the validator); grpo/final/
    losses.json         loss per logged step and stage; loss.png its plot

LoRA through peft by default (the adapter is saved, or merged into the base when asked);
`method="full"` fine-tunes every weight. CPU when no GPU is visible; data parallel over several
processes when started with `accelerate launch` or `torchrun` (the Trainer reads the
launcher's environment; `dist.Ranks` says which process writes what: every rank trains and
saves through the Trainer, which writes on the main process only, and the run's own files
(the tiny base, `final/`, `out/`, losses) are written by the main process alone while the
others wait). `deepspeed` is a DeepSpeed config handed to the Trainer (ZeRO; `zero.py`).
"""

from __future__ import annotations

import json
import math
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from kernelgen_lm.train.dist import Ranks
from kernelgen_lm.train.formats import PreferencePair, sft_examples
from kernelgen_lm.train.records import CotRecord

Progress = Callable[[str], None]
TINY = "tiny"


class TrainConfig(BaseModel):
    base: str
    method: Literal["lora", "full"] = "lora"
    max_steps: int = 200
    dpo_steps: int | None = None  # default: a quarter of max_steps, at least 1
    batch_size: int = 1
    grad_accum: int = 1
    learning_rate: float | None = None  # default: 2e-4 LoRA, 2e-5 full (1e-3 tiny)
    max_length: int = 8192
    lora_r: int = 16
    lora_alpha: int = 32
    dpo_beta: float = 0.1
    save_steps: int = 20
    merge: bool | None = None  # merge the adapter into the base; default: only for tiny
    # Recompute activations in the backward pass: memory for time, worth it for real models
    # on a GPU, not on a CPU. Default: on for a real base on a GPU.
    gradient_checkpointing: bool | None = None
    seed: int = 0
    progress_bars: bool = True
    # GRPO with the validator as reward, after SFT/DPO (0 steps: off). Each step samples
    # `grpo_generations` answers of up to `grpo_max_tokens` tokens per prompt and validates
    # them in `reward_workers` processes.
    grpo_steps: int = 0
    grpo_generations: int = 4
    grpo_max_tokens: int = 2048
    reward_workers: int = 2
    # How long one answer's validation may take (per worker) before the run stops on every
    # rank: the validator's own sandbox limits each compile and run, this catches a worker
    # that hangs outside them.
    reward_timeout_s: float = 900.0
    # A DeepSpeed config (ZeRO) for the Trainer, as loaded; None: plain DDP when launched on
    # several processes. `zero.py` writes and checks one.
    deepspeed: dict[str, Any] | None = None

    def lr(self) -> float:
        if self.learning_rate is not None:
            return self.learning_rate
        if self.base == TINY:
            return 1e-3
        return 2e-4 if self.method == "lora" else 2e-5

    def merged(self) -> bool:
        return self.method == "full" or (
            self.merge if self.merge is not None else self.base == TINY
        )

    def dpo_max_steps(self) -> int:
        return self.dpo_steps if self.dpo_steps is not None else max(1, self.max_steps // 4)


class TrainOutcome(BaseModel):
    model_dir: Path  # what serves: a full model directory or a peft adapter directory
    kind: Literal["adapter", "merged"]
    base_dir: str  # the base model (a path or a hub id); a copy inside the version for tiny
    sft_steps: int
    dpo_steps: int
    grpo_steps: int = 0
    grpo_tasks: int = 0  # generation tasks GRPO trained on
    pairs: int  # preference pairs and SFT examples trained on (those fitting max_length)
    examples: int
    resumed_from: list[str] = []
    final_loss: float | None = None
    loss_plot: Path | None = None
    # Per stage, what each rank of a data-parallel launch trained (`RankShare`, rank order).
    ranks: dict[str, list[dict[str, int]]] = {}


class TrainingError(RuntimeError):
    """Training cannot start (no examples, a base model that does not load); says why."""


def cpu_only() -> bool:
    """Train on the CPU: no GPU visible, or the launcher said so (`accelerate launch --cpu`)."""
    import torch

    flag = os.environ.get("ACCELERATE_USE_CPU", "").lower() in ("1", "true", "yes")
    return flag or not torch.cuda.is_available()


def _device_args() -> dict[str, Any]:
    import torch

    if not cpu_only():
        return {"bf16": torch.cuda.is_bf16_supported(), "use_cpu": False}
    return {"use_cpu": True}


def _complete(checkpoint: Path) -> bool:
    """The Trainer writes trainer_state.json last: a checkpoint without a readable one was
    cut short (a SIGKILL while saving) and must not be resumed from."""
    try:
        json.loads((checkpoint / "trainer_state.json").read_text())
    except (OSError, ValueError):
        return False
    return True


def _last_checkpoint(out: Path) -> str | None:
    """The newest complete checkpoint; incomplete ones are deleted so the Trainer's own
    rotation never counts them."""
    if not out.is_dir():
        return None
    found = sorted(
        (p for p in out.glob("checkpoint-*") if p.name.split("-")[-1].isdigit()),
        key=lambda p: int(p.name.split("-")[-1]),
        reverse=True,
    )
    for p in found:
        if _complete(p):
            return str(p)
        shutil.rmtree(p, ignore_errors=True)
    return None


def _load_base(base_dir: str) -> tuple[Any, Any]:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    try:
        tokenizer = AutoTokenizer.from_pretrained(base_dir)
        model = AutoModelForCausalLM.from_pretrained(base_dir)
    except (OSError, ValueError) as exc:
        raise TrainingError(f"cannot load base model {base_dir!r}: {exc}") from exc
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    if not tokenizer.chat_template:
        raise TrainingError(
            f"base model {base_dir!r} has no chat template; the prompts are "
            "chats (use an instruct/chat checkpoint)"
        )
    return model, tokenizer


def _finish(
    trainer: Any, final: Path, tokenizer: Any, losses: list[tuple[int, float]], ranks: Ranks
) -> None:
    """Saves the stage's model and losses under a temporary name and renames them in:
    `final/` exists only complete, and a rerun skips the stage only then. Every rank calls
    save_model (ZeRO-3 gathers the weights from all of them; the Trainer writes on the main
    process only); the rest is the main process's."""
    tmp = final.with_name(final.name + ".tmp")
    ranks.from_main(lambda: shutil.rmtree(tmp, ignore_errors=True))
    trainer.save_model(str(tmp))

    def publish() -> None:
        tokenizer.save_pretrained(str(tmp))
        (tmp / "losses.json").write_text(json.dumps(losses))
        shutil.rmtree(final, ignore_errors=True)
        tmp.rename(final)

    ranks.from_main(publish)
    _leave_zero3()


def _leave_zero3() -> None:
    """Ends the stage's ZeRO-3 context. A TrainingArguments with a ZeRO-3 config makes every
    later from_pretrained in the process a partitioned load with collective calls, for as long
    as the arguments live (garbage collection decides when, and not alike on every rank):
    the main process alone loading the model to merge or evaluate would wait forever for the
    others. The next stage's arguments set it again; DeepSpeed partitions at initialize."""
    from transformers.integrations.deepspeed import unset_hf_deepspeed_config

    unset_hf_deepspeed_config()


def _finished(final: Path, ranks: Ranks) -> bool:
    """Whether a stage finished in an earlier run (one answer for every rank)."""
    return ranks.from_main(lambda: (final / "losses.json").is_file())


def _resume_point(out: Path, ranks: Ranks) -> str | None:
    """The checkpoint every rank resumes from: the main process picks it (and deletes the
    incomplete ones), the others take its answer."""
    return ranks.from_main(lambda: _last_checkpoint(out))


def _share_callback() -> Any:
    """A Trainer callback that notes what this rank trained (`RankShare`)."""
    from transformers import TrainerCallback

    class RankShare(TrainerCallback):  # type: ignore[misc]
        """This rank's optimizer steps and its share of the data: the batches per epoch of
        its own dataloader (a data-parallel launch splits each epoch across the ranks)."""

        def __init__(self) -> None:
            self.figures: dict[str, int] = {}

        def on_train_end(
            self, args: Any, state: Any, control: Any, train_dataloader: Any = None, **_kw: Any
        ) -> None:
            self.figures = {
                "rank": args.process_index,
                "world_size": args.world_size,
                "steps": state.global_step,
                "batches_per_epoch": len(train_dataloader) if train_dataloader is not None else -1,
            }

    return RankShare()


def _train_stage(
    trainer: Any,
    out: Path,
    stage: str,
    ranks: Ranks,
    resumed: list[str],
    shares: dict[str, list[dict[str, int]]],
) -> None:
    """Trains from the stage's resume point and gathers every rank's share."""
    share = _share_callback()
    trainer.add_callback(share)
    last = _resume_point(out, ranks)
    if last:
        resumed.append(f"{stage}: {Path(last).name}")
    trainer.train(resume_from_checkpoint=last)
    shares[stage] = ranks.gather(share.figures)


def _losses(trainer: Any) -> list[tuple[int, float]]:
    return [
        (int(h["step"]), float(h["loss"]))
        for h in trainer.state.log_history
        if "loss" in h and "step" in h
    ]


def _common(cfg: TrainConfig, out: Path, steps: int) -> dict[str, Any]:
    device = _device_args()
    return {
        "output_dir": str(out),
        "max_steps": steps,
        "per_device_train_batch_size": cfg.batch_size,
        "gradient_accumulation_steps": cfg.grad_accum,
        "learning_rate": cfg.lr(),
        "logging_steps": 1,
        "save_steps": cfg.save_steps,
        "save_total_limit": 2,
        "report_to": [],
        "seed": cfg.seed,
        "max_length": cfg.max_length,
        "disable_tqdm": not cfg.progress_bars,
        "dataloader_num_workers": 0,
        **({"deepspeed": cfg.deepspeed} if cfg.deepspeed else {}),
        **device,
        "gradient_checkpointing": (
            cfg.gradient_checkpointing
            if cfg.gradient_checkpointing is not None
            else cfg.base != TINY and not device["use_cpu"]
        ),
    }


def _lora(cfg: TrainConfig) -> Any:
    from peft import LoraConfig

    return LoraConfig(
        r=cfg.lora_r,
        lora_alpha=cfg.lora_alpha,
        lora_dropout=0.0,
        target_modules="all-linear",
        task_type="CAUSAL_LM",
    )


def _length(tokenizer: Any, chat: list[dict[str, str]]) -> int:
    return len(tokenizer.apply_chat_template(chat, tokenize=True, return_dict=True)["input_ids"])


def fitting(tokenizer: Any, chats: list[list[dict[str, str]]], max_length: int) -> list[bool]:
    """Which whole chats fit `max_length` tokens: the Trainers cut from the end, so a longer
    one loses its answer (SFT) or is dropped (DPO) rather than teaching anything."""
    return [_length(tokenizer, c) <= max_length for c in chats]


def run_sft(
    examples: list[dict[str, Any]],
    base_dir: str,
    run: Path,
    cfg: TrainConfig,
    resumed: list[str],
    used: dict[str, int],
    ranks: Ranks,
    shares: dict[str, list[dict[str, int]]],
) -> list[tuple[int, float]]:
    from datasets import Dataset
    from trl import SFTConfig, SFTTrainer

    final = run / "sft" / "final"
    if _finished(final, ranks):
        resumed.append("sft: finished")
        return [tuple(x) for x in json.loads((final / "losses.json").read_text())]  # type: ignore[misc]
    model, tokenizer = _load_base(base_dir)
    fits = fitting(tokenizer, [e["prompt"] + e["completion"] for e in examples], cfg.max_length)
    examples = [e for e, ok in zip(examples, fits, strict=True) if ok]
    used["examples"] = len(examples)
    if not examples:
        raise TrainingError(
            f"no training example fits --max-length {cfg.max_length} tokens "
            f"({len(fits)} examples); raise it"
        )
    args = SFTConfig(**_common(cfg, run / "sft", cfg.max_steps))
    trainer = SFTTrainer(
        model=model,
        args=args,
        train_dataset=Dataset.from_list(examples),
        processing_class=tokenizer,
        peft_config=_lora(cfg) if cfg.method == "lora" else None,
    )
    _train_stage(trainer, run / "sft", "sft", ranks, resumed, shares)
    losses = _losses(trainer)
    _finish(trainer, final, tokenizer, losses, ranks)
    return losses


def _stage_model(stage_dir: Path, base_dir: str, cfg: TrainConfig, trainable: bool) -> Any:
    """The model a finished stage saved: a full model, or the base with its adapter."""
    from transformers import AutoModelForCausalLM

    if cfg.method == "full":
        return AutoModelForCausalLM.from_pretrained(str(stage_dir))
    from peft import PeftModel

    base = AutoModelForCausalLM.from_pretrained(base_dir)
    return PeftModel.from_pretrained(base, str(stage_dir), is_trainable=trainable)


def run_dpo(
    pairs: list[PreferencePair],
    base_dir: str,
    run: Path,
    cfg: TrainConfig,
    resumed: list[str],
    used: dict[str, int],
    ranks: Ranks,
    shares: dict[str, list[dict[str, int]]],
) -> list[tuple[int, float]]:
    from datasets import Dataset
    from transformers import AutoTokenizer
    from trl import DPOConfig, DPOTrainer

    final = run / "dpo" / "final"
    if _finished(final, ranks):
        resumed.append("dpo: finished")
        return [tuple(x) for x in json.loads((final / "losses.json").read_text())]  # type: ignore[misc]
    sft_final = run / "sft" / "final"
    tokenizer = AutoTokenizer.from_pretrained(str(sft_final))
    model = _stage_model(sft_final, base_dir, cfg, trainable=True)
    common = _common(cfg, run / "dpo", cfg.dpo_max_steps())
    common["learning_rate"] = common["learning_rate"] / 4
    args = DPOConfig(**common, beta=cfg.dpo_beta)
    fits = fitting(
        tokenizer,
        [c for p in pairs for c in (p.prompt + p.chosen, p.prompt + p.rejected)],
        cfg.max_length,
    )
    rows = [
        p.model_dump(exclude={"task"})
        for i, p in enumerate(pairs)
        if fits[2 * i] and fits[2 * i + 1]
    ]
    used["pairs"] = len(rows)
    if not rows:
        return []
    # With an adapter TRL keeps a frozen copy of the SFT adapter (named "ref") as the
    # reference: the policy starts equal to it (the first step's loss is ln 2).
    trainer = DPOTrainer(
        model=model, args=args, train_dataset=Dataset.from_list(rows), processing_class=tokenizer
    )
    _train_stage(trainer, run / "dpo", "dpo", ranks, resumed, shares)
    losses = _losses(trainer)
    _finish(trainer, final, tokenizer, losses, ranks)
    return losses


def grpo_batch(generations: int, world: int) -> int:
    """Answers per rank and step: the fewest for which the step's answers (this times the
    ranks) are whole groups of `generations` (TRL's condition). One prompt's group is
    split across the ranks where it divides (4 answers on 2 ranks: 2 each, one prompt per
    step), so each rank samples and validates only its share of it."""
    if generations < 1 or world < 1:
        raise ValueError(f"generations ({generations}) and ranks ({world}) must be >= 1")
    return generations // math.gcd(generations, world)


def run_grpo(
    tasks: list[dict[str, Any]],
    base_dir: str,
    run: Path,
    cfg: TrainConfig,
    start: Path,
    resumed: list[str],
    used: dict[str, int],
    ranks: Ranks,
    shares: dict[str, list[dict[str, int]]],
) -> list[tuple[int, float]]:
    """GRPO from the model `start` holds (SFT's or DPO's final), rewarded by the validator;
    prompts that leave no room for `grpo_max_tokens` in `max_length` are left out."""
    from datasets import Dataset
    from transformers import AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    from kernelgen_lm.train.grpo import ValidatorReward

    final = run / "grpo" / "final"
    if _finished(final, ranks):
        resumed.append("grpo: finished")
        return [tuple(x) for x in json.loads((final / "losses.json").read_text())]  # type: ignore[misc]
    tokenizer = AutoTokenizer.from_pretrained(str(start))
    room = cfg.max_length - cfg.grpo_max_tokens
    fits = fitting(tokenizer, [t["prompt"] for t in tasks], room) if room > 0 else []
    rows = [t for t, ok in zip(tasks, fits, strict=False) if ok]
    used["grpo_tasks"] = len(rows)
    if not rows:
        return []
    model = _stage_model(start, base_dir, cfg, trainable=True)
    common = _common(cfg, run / "grpo", cfg.grpo_steps)
    del common["max_length"]
    common["learning_rate"] = common["learning_rate"] / 4
    common["per_device_train_batch_size"] = grpo_batch(cfg.grpo_generations, ranks.world)
    args = GRPOConfig(
        **common, num_generations=cfg.grpo_generations, max_completion_length=cfg.grpo_max_tokens
    )
    reward = ValidatorReward(cfg.reward_workers, ranks, cfg.reward_timeout_s)
    try:
        trainer = GRPOTrainer(
            model=model,
            reward_funcs=reward,
            args=args,
            train_dataset=Dataset.from_list(rows),
            processing_class=tokenizer,
        )
        _train_stage(trainer, run / "grpo", "grpo", ranks, resumed, shares)
        # Each rank's validations: together one per distinct answer, none run twice.
        counts = ranks.gather((reward.scored, reward.validated))
        for share, (scored, validated) in zip(shares["grpo"], counts, strict=True):
            share.update(scored=scored, validated=validated)
    finally:
        reward.close()
    losses = _losses(trainer)
    _finish(trainer, final, tokenizer, losses, ranks)
    return losses


def plot_losses(losses: dict[str, list[tuple[int, float]]], out: Path) -> Path | None:
    """loss.png: the loss per step of each stage (None when matplotlib is missing)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, axes = plt.subplots(1, len(losses), figsize=(5 * len(losses), 3.5), squeeze=False)
    for ax, (stage, points) in zip(axes[0], losses.items(), strict=True):
        if points:
            ax.plot([s for s, _ in points], [v for _, v in points], marker=".")
        ax.set_title(f"{stage.upper()} loss")
        ax.set_xlabel("step")
        ax.set_ylabel("loss")
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(out, dpi=100)
    plt.close(fig)
    return out


def corpus_of(examples: list[dict[str, Any]], pairs: list[PreferencePair]) -> list[str]:
    """Every text the model will see (what the tiny base's tokenizer is trained on)."""
    texts = []
    for ex in examples:
        texts += [m["content"] for m in ex["prompt"] + ex["completion"]]
    for p in pairs:
        texts += [m["content"] for m in p.rejected]
    return texts


def train(
    records: list[CotRecord],
    pairs: list[PreferencePair],
    run: Path,
    cfg: TrainConfig,
    progress: Progress | None = None,
    ranks: Ranks | None = None,
) -> TrainOutcome:
    """SFT on the records (then DPO on the pairs, when there are any) in `run`; the final
    model lands in `run/out/` (adapter or merged). Every rank of a launch calls it and gets
    the same outcome; the main process writes the run's files."""
    say = progress or (lambda _m: None)
    ranks = ranks or Ranks()
    examples = sft_examples(records)
    if not examples:
        raise TrainingError(
            "no training examples: every record failed validation or the dataset is empty"
        )
    tasks: list[dict[str, Any]] = []
    if cfg.grpo_steps > 0:
        from kernelgen_lm.train.grpo import grpo_tasks

        tasks = grpo_tasks(records)
    base_dir = cfg.base
    if cfg.base == TINY:
        from kernelgen_lm.train.tiny import build_tiny

        prompts = [m["content"] for t in tasks for m in t["prompt"]]
        base_dir = ranks.from_main(
            lambda: str(build_tiny(run / "base", corpus_of(examples, pairs) + prompts))
        )
    elif not Path(base_dir).expanduser().exists() and os.environ.get("HF_HUB_OFFLINE") == "1":
        raise TrainingError(f"base model {base_dir!r} is not a directory and the hub is offline")
    ranks.from_main(lambda: run.mkdir(parents=True, exist_ok=True))
    resumed: list[str] = []
    shares: dict[str, list[dict[str, int]]] = {}
    say(
        f"sft: {len(examples)} examples, {cfg.max_steps} steps ({cfg.method})"
        + (f", {ranks.world} data-parallel processes" if ranks.world > 1 else "")
    )
    used: dict[str, int] = {}  # what fitted --max-length (unknown for a finished stage)
    sft_losses = run_sft(examples, base_dir, run, cfg, resumed, used, ranks, shares)
    losses: dict[str, list[tuple[int, float]]] = {"sft": sft_losses}
    stage = run / "sft" / "final"
    dpo_steps = 0
    if pairs:
        say(f"dpo: {len(pairs)} preference pairs, {cfg.dpo_max_steps()} steps")
        losses["dpo"] = run_dpo(pairs, base_dir, run, cfg, resumed, used, ranks, shares)
        if ranks.from_main((run / "dpo" / "final").is_dir):
            stage = run / "dpo" / "final"
            dpo_steps = cfg.dpo_max_steps()
        else:
            del losses["dpo"]
            say(f"dpo: skipped, no preference pair fits {cfg.max_length} tokens")
    grpo_steps = 0
    if cfg.grpo_steps > 0:
        say(
            f"grpo: {len(tasks)} generation task(s), {cfg.grpo_steps} steps, "
            f"{cfg.grpo_generations} answers each, {cfg.reward_workers} reward worker(s)"
        )
        losses["grpo"] = run_grpo(tasks, base_dir, run, cfg, stage, resumed, used, ranks, shares)
        if ranks.from_main((run / "grpo" / "final").is_dir):
            stage = run / "grpo" / "final"
            grpo_steps = cfg.grpo_steps
        else:
            del losses["grpo"]
            say(
                f"grpo: skipped, no generation task with a reference leaves "
                f"{cfg.grpo_max_tokens} answer tokens within {cfg.max_length}"
            )

    def package() -> TrainOutcome:
        model_dir, kind, plot = _package(run, stage, base_dir, cfg, losses)
        last_losses = losses.get("grpo") or losses.get("dpo") or losses["sft"]
        return TrainOutcome(
            model_dir=model_dir,
            kind=kind,  # type: ignore[arg-type]
            base_dir=base_dir,
            sft_steps=cfg.max_steps,
            dpo_steps=dpo_steps,
            grpo_steps=grpo_steps,
            grpo_tasks=used.get("grpo_tasks", 0),
            pairs=used.get("pairs", len(pairs)),
            examples=used.get("examples", len(examples)),
            resumed_from=resumed,
            final_loss=last_losses[-1][1] if last_losses else None,
            loss_plot=plot,
            ranks=shares,
        )

    return ranks.from_main(package)


def _package(
    run: Path,
    stage: Path,
    base_dir: str,
    cfg: TrainConfig,
    losses: dict[str, list[tuple[int, float]]],
) -> tuple[Path, str, Path | None]:
    """Writes the losses, their plot and `run/out/` (the adapter, or the merged model) from
    the last finished stage; returns the serving directory, its kind and the plot."""
    (run / "losses.json").write_text(json.dumps(losses))
    plot = plot_losses(losses, run / "loss.png")
    out = run / "out"
    tmp = run / "out.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    if cfg.method == "lora" and not cfg.merged():
        shutil.copytree(stage, tmp / "adapter")
        (tmp / "adapter" / "losses.json").unlink(missing_ok=True)
        model_dir, kind = out / "adapter", "adapter"
    else:
        from transformers import AutoTokenizer

        model = _stage_model(stage, base_dir, cfg, trainable=False)
        if cfg.method == "lora":
            model = model.merge_and_unload()
        model.save_pretrained(str(tmp / "model"))
        AutoTokenizer.from_pretrained(str(stage)).save_pretrained(str(tmp / "model"))
        model_dir, kind = out / "model", "merged"
    # The curve's numbers travel with the version, beside its plot.
    shutil.copyfile(run / "losses.json", tmp / "losses.json")
    tmp.rename(out)
    return model_dir, kind, plot
