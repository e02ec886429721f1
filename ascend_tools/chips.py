"""Chip specifications, loaded from `data/chips.json` (facts with sources, not code)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources

from pydantic import BaseModel, ConfigDict

DEFAULT_CHIP = "ascend910b2"
BLOCK_BYTES = 32
REPEAT_BYTES = 256
MAX_REPEAT = 255
MAX_BUFFERS_PER_PIPE = 64


class Chip(BaseModel):
    """One Ascend SoC as the emulator, lint and generator see it."""

    model_config = ConfigDict(frozen=True)

    name: str
    arch: str
    soc_version: int
    cce_aicore: int
    ub_bytes: int
    ub_safe_bytes: int
    l1_bytes: int
    l0a_bytes: int
    l0b_bytes: int
    l0c_bytes: int
    cube_cores: int
    vector_cores: int
    split_cores: bool
    max_tensors_per_position: int
    has_datacopypad: bool
    has_bf16: bool
    source: str


class UnknownChipError(ValueError):
    pass


@cache
def all_chips() -> dict[str, Chip]:
    text = resources.files("ascend_tools").joinpath("data/chips.json").read_text()
    return {c["name"]: Chip(**c) for c in json.loads(text)["chips"]}


def get_chip(name: str = DEFAULT_CHIP) -> Chip:
    chips = all_chips()
    key = name.lower().replace("-", "_")
    if key not in chips:
        raise UnknownChipError(f"unknown chip {name!r}; known chips: {', '.join(sorted(chips))}")
    return chips[key]
