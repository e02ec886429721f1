"""DeepSpeed ZeRO for `train refresh`: the config handed to the Trainer (`--deepspeed FILE`,
or `--zero 2|3` for the one `zero_config` writes), checked before any process trains.

The Trainer fills every "auto" value from its own arguments (batch size, accumulation,
clipping, bf16), so the config only says what ZeRO shards: stage 2 the optimizer state and
gradients, stage 3 the weights too. Stage 3 gathers the 16-bit weights when a stage saves
(`stage3_gather_16bit_weights_on_model_save`), so `final/` is a normal model directory
the next stage, the merge and the servers load. Facts from the DeepSpeed configuration
reference (deepspeed.ai/docs/config-json) and the transformers DeepSpeed integration guide.
"""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path
from typing import Any

STAGES = (0, 1, 2, 3)  # ZeRO stages DeepSpeed defines (0: off)


class ZeroConfigError(ValueError):
    """The DeepSpeed option cannot be used as given; says why."""


def zero_config(stage: int) -> dict[str, Any]:
    """The config `--zero STAGE` uses: ZeRO `stage`, every batch and precision value "auto"."""
    if stage not in (2, 3):
        raise ZeroConfigError(
            f"--zero {stage}: use 2 (optimizer state and gradients sharded) "
            "or 3 (weights too); pass --deepspeed FILE for anything else"
        )
    zero: dict[str, Any] = {"stage": stage, "overlap_comm": True, "contiguous_gradients": True}
    if stage == 3:
        zero["stage3_gather_16bit_weights_on_model_save"] = True
    return {
        "zero_optimization": zero,
        "train_micro_batch_size_per_gpu": "auto",
        "train_batch_size": "auto",
        "gradient_accumulation_steps": "auto",
        "gradient_clipping": "auto",
        "bf16": {"enabled": "auto"},
        "fp16": {"enabled": "auto"},
    }


def load_config(path: Path) -> dict[str, Any]:
    """A DeepSpeed config file, checked for what a refresh relies on."""
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ZeroConfigError(f"--deepspeed {path}: {exc.strerror or exc}") from exc
    except ValueError as exc:
        raise ZeroConfigError(f"--deepspeed {path}: not JSON ({exc})") from exc
    if not isinstance(config, dict):
        raise ZeroConfigError(f"--deepspeed {path}: a JSON object is expected")
    check_config(config, str(path))
    return config


def check_config(config: dict[str, Any], where: str) -> None:
    """The ZeRO section is well formed, and stage 3 saves loadable weights."""
    zero = config.get("zero_optimization", {})
    if not isinstance(zero, dict):
        raise ZeroConfigError(f"{where}: zero_optimization must be an object")
    stage = zero.get("stage", 0)
    if stage not in STAGES:
        raise ZeroConfigError(
            f"{where}: zero_optimization.stage {stage!r} is not one of "
            f"{', '.join(map(str, STAGES))}"
        )
    if stage == 3 and not zero.get("stage3_gather_16bit_weights_on_model_save", False):
        raise ZeroConfigError(
            f"{where}: ZeRO-3 needs zero_optimization.stage3_gather_16bit_weights_on_model_save "
            "true, or a finished stage saves no weights the next stage or a server can load"
        )


def require_deepspeed() -> str:
    """The installed DeepSpeed's version, or a clear error saying how to get it. Imported with
    stdout sent to stderr: DeepSpeed's logger binds the stream it sees first, and stdout
    carries only the command's result."""
    try:
        with contextlib.redirect_stdout(sys.stderr):
            import deepspeed
    except ImportError as exc:
        raise ZeroConfigError(
            "DeepSpeed is not installed: pip install -e '.[deepspeed]' (or pip install "
            f"deepspeed), then launch with `accelerate launch` ({exc})"
        ) from exc
    return str(deepspeed.__version__)
