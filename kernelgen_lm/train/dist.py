"""The processes of one training launch, as `train refresh` sees them.

Under `accelerate launch --num_processes N` (or `torchrun`) every process runs the refresh:
each trains its share of the data (the Trainer does the data parallelism), and the main
process alone writes the run's shared files, evaluates, registers, promotes and plots. The
others wait for it and end with the result it broadcasts. One process (a plain
`kernelgen train refresh`) is the same code with every exchange a no-op.

The exchanges go over a gloo group of their own, with a long timeout: the other ranks wait
through the main process's evaluation (a held-out slice on a real model can take an hour),
which the training group's default 30 minutes would cut short. A rank that dies makes the
launcher (torch.distributed.run) stop the others, so the launch fails before the main
process reaches the registry.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, TypeVar

T = TypeVar("T")

# How long the other ranks wait for the main process at one exchange (evaluation included).
WAIT = timedelta(hours=12)


class RankFailed(RuntimeError):
    """A failure every rank ends with, the same message on each: the main process failed
    after training (`Ranks.from_main`), or a rank's GRPO reward failed (`grpo.RewardFailed`)."""


def launched_world() -> int:
    """How many processes the launcher started (1 without a launcher)."""
    try:
        return int(os.environ.get("WORLD_SIZE", "1"))
    except ValueError as exc:
        raise ValueError(f"WORLD_SIZE={os.environ['WORLD_SIZE']!r} is not a number") from exc


@dataclass
class Ranks:
    """This process's place in the launch: `rank` 0 of `world` is the main process."""

    rank: int = 0
    world: int = 1
    _group: Any = field(default=None, repr=False)

    @property
    def main(self) -> bool:
        return self.rank == 0

    def barrier(self) -> None:
        if self.world > 1:
            import torch.distributed as dist

            dist.barrier(group=self._group)

    def from_main(self, fn: Callable[[], T]) -> T:
        """Runs `fn` on the main process only and hands its value to every rank. An
        exception there reaches the others as RankFailed (and is raised on the main)."""
        if self.world == 1:
            return fn()
        import torch.distributed as dist

        box: list[Any] = [None]
        error: BaseException | None = None
        if self.main:
            try:
                box[0] = ("ok", fn())
            except BaseException as exc:  # passed on to the others, then re-raised
                error = exc
                box[0] = ("error", f"{type(exc).__name__}: {exc}")
        dist.broadcast_object_list(box, src=0, group=self._group)
        if error is not None:
            raise error
        status, value = box[0]
        if status != "ok":
            raise RankFailed(f"the main process failed: {value}")
        return value  # type: ignore[no-any-return]

    def gather(self, value: T) -> list[T]:
        """Every rank's `value`, in rank order, on every rank."""
        if self.world == 1:
            return [value]
        import torch.distributed as dist

        out: list[Any] = [None] * self.world
        dist.all_gather_object(out, value, group=self._group)
        return out

    def close(self) -> None:
        """Ends the process group (once the launch's work is done)."""
        if self.world > 1:
            import torch.distributed as dist

            if dist.is_initialized():
                dist.destroy_process_group()


def join(use_cpu: bool, deepspeed: bool = False) -> Ranks:
    """Joins the launch's process group (as the Trainer would set it up: accelerate's
    PartialState with the same device and DeepSpeed choice, so the Trainer reuses it) and
    opens the exchange group. Without a launcher: a single rank, nothing initialised."""
    world = launched_world()
    if world == 1:
        return Ranks()
    import torch.distributed as dist
    from accelerate import PartialState

    if not dist.is_initialized():
        if deepspeed:
            os.environ["ACCELERATE_USE_DEEPSPEED"] = "true"
        try:
            PartialState(cpu=use_cpu)
        finally:
            if deepspeed:
                os.environ.pop("ACCELERATE_USE_DEEPSPEED", None)
    if not dist.is_initialized():
        raise RuntimeError(
            f"WORLD_SIZE={world} but no process group came up: start the run "
            "with `accelerate launch` or `torchrun`"
        )
    group = dist.new_group(backend="gloo", timeout=WAIT)
    return Ranks(rank=dist.get_rank(), world=dist.get_world_size(), _group=group)
