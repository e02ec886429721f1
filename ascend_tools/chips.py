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
# On-chip memory of each cube-path TPosition (docs/ASCENDC_SPEC.md section 3: A1/B1 are L1, A2 is
# L0A, B2 is L0B, CO1 is L0C; C1 and TSCM are L1 too, as the emulator's TPipe places them; C2 is
# the bias table), as the `Chip` field that holds its size; UB positions are handled by the
# ub-overflow rule.
CUBE_POSITION_MEMORY: dict[str, str] = {
    "A1": "l1_bytes", "B1": "l1_bytes", "C1": "l1_bytes", "TSCM": "l1_bytes",
    "A2": "l0a_bytes", "B2": "l0b_bytes", "CO1": "l0c_bytes", "C2": "bt_bytes",
}
# Start-address alignment in bytes of each cube-path TPosition's memory (AscendC API reference,
# "General restrictions", table 2, CANN 8.0 atlasascendc_api_07_0004: L1 32 B, L0A/L0B 512 B,
# one fractal, L0C 64 B, BT 64 B), as (memory, bytes); the emulator's kCubeAlign in
# emu/include/kernelgen/cube.h holds the same table.
CUBE_START_ALIGN: dict[str, tuple[str, int]] = {
    "A1": ("L1", 32), "B1": ("L1", 32), "C1": ("L1", 32), "TSCM": ("L1", 32),
    "A2": ("L0A", 512), "B2": ("L0B", 512), "CO1": ("L0C", 64), "C2": ("BT", 64),
}
# MmadParams m, n, k are 12-bit fields: [0, 4095] (AscendC API reference, Mmad, MmadParams).
MMAD_MAX_MNK = 4095
# REGIST_MATMUL_OBJ: at most four Matmul objects in a program (AscendC API reference,
# REGIST_MATMUL_OBJ restrictions; docs/ASCENDC_SPEC.md section 5 and rule 7.12).
MAX_MATMUL_OBJECTS = 4


class ChipPerf(BaseModel):
    """Performance facts the cost model (`ascend_tools.cost`) runs on; `source` says which are
    public figures and which are assumed."""

    model_config = ConfigDict(frozen=True)

    clock_mhz: float
    gm_gbps: float  # aggregate GM (HBM/DDR) bandwidth, GB/s
    core_gm_bytes_per_cycle: float  # one core's MTE limit between GM and UB
    vector_bytes_per_cycle: float  # one 256-byte repeat of a simple vector op per cycle
    scalar_access_cycles: float
    launch_us: float
    sync_all_us: float
    # Cube unit, per cube core: multiply-accumulates per cycle with 16-bit and with float inputs.
    cube_macs_per_cycle: float = 4096
    cube_fp32_macs_per_cycle: float = 1024
    # MTE1 per cube core: bytes moved from L1 into L0A/L0B per cycle (overlaps the MACs).
    l1_to_l0_bytes_per_cycle: float = 256
    source: str


class Chip(BaseModel):
    """One Ascend SoC as the emulator, lint and generator see it."""

    model_config = ConfigDict(frozen=True)

    name: str
    arch: str
    soc_version: int
    cce_aicore: int
    ub_bytes: int
    ub_safe_bytes: int
    ub_physical_bytes: int | None = None
    """The whole UB where it is larger than `ub_bytes` (the part documented for vector data):
    buffers past `ub_bytes` but inside it run on the device, so lint only warns there."""
    l1_bytes: int
    l0a_bytes: int
    l0b_bytes: int
    l0c_bytes: int
    bt_bytes: int | None = None
    """The bias table (TPosition C2) that Mmad reads a bias from: 0 where the chip has none,
    None where its size is not documented (chips.json `_source`)."""
    cube_cores: int
    vector_cores: int
    split_cores: bool
    max_tensors_per_position: int
    has_datacopypad: bool
    has_bf16: bool
    local_address_wrap: bool = False
    """TPipe may place a buffer past the end of an on-chip memory and the NPU addresses it
    modulo the memory's size (inferred for 310P, see chips.json): a TBuf starting at a whole
    multiple of the size is the memory seen from address 0, not an overflow."""
    source: str
    perf: ChipPerf


class UnknownChipError(ValueError):
    pass


@cache
def _chip_data() -> dict:
    return json.loads(resources.files("ascend_tools").joinpath("data/chips.json").read_text())


@cache
def all_chips() -> dict[str, Chip]:
    return {c["name"]: Chip(**c) for c in _chip_data()["chips"]}


@cache
def vector_api_cycles() -> dict[str, float]:
    """Cycles per 256-byte repeat of each vector API (Add = 1), with `_default` for the rest."""
    return {k: float(v) for k, v in _chip_data()["vector_api_cycles"].items() if k != "_source"}


def gm_allocation() -> tuple[int, int]:
    """(block, pad) of a GM tensor's allocation (`gm_allocation` in chips.json, the framework's
    caching allocator): n bytes live in a block of `block * ceil((n + pad) / block)` bytes, and
    accesses past the tensor inside that block run on the device."""
    facts = _chip_data()["gm_allocation"]
    return int(facts["block_bytes"]), int(facts["pad_bytes"])


_SEGMENT_FIELDS = (
    "small_max_bytes",
    "small_bytes",
    "large_below_bytes",
    "large_bytes",
    "round_bytes",
)


def gm_segments() -> tuple[int, int, int, int, int]:
    """(small_max, small, large_below, large, round) of the segments the framework's caching
    allocator carves blocks from (`gm_allocation.segment` in chips.json): a block of at most
    small_max bytes lies in a `small`-byte segment, one below large_below in a `large`-byte one,
    a bigger one in its size rounded up to `round`. A read past a block inside its segment does
    not fault on the NPU; the emulator lets it through with a warning and poison."""
    facts = _chip_data()["gm_allocation"]["segment"]
    small_max, small, large_below, large, round_ = (int(facts[k]) for k in _SEGMENT_FIELDS)
    return small_max, small, large_below, large, round_


def get_chip(name: str = DEFAULT_CHIP) -> Chip:
    chips = all_chips()
    key = name.lower().replace("-", "_")
    if key not in chips:
        raise UnknownChipError(f"unknown chip {name!r}; known chips: {', '.join(sorted(chips))}")
    return chips[key]
