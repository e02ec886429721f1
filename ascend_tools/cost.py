"""Cost model: a kernel's modelled time on the NPU from the emulator's per-core counters.

We have no NPU to time kernels on, so this is a MODEL, and everything that prints its figures
says so. It is a pure function of the counters a validation run reports
(`ValidationReport.counters`: `block_dim` and `per_block` entries with `gm_to_ub_bytes`,
`ub_to_gm_bytes`, `ub_to_ub_bytes`, `scalar_accesses`, `sync_alls`, `vector_repeats`; see
`emu/README.md`) and of the chip's performance facts (`data/chips.json`, `perf` and
`vector_api_cycles`, each with its source or marked assumed).

The model, per physical core (blocks beyond the chip's vector cores run in waves, block `b` on
core `b % cores`):

- transfer: GM <-> UB bytes over the core's MTE bandwidth, itself capped by an equal share of
  the aggregate GM bandwidth among the cores that move data (so the sum over cores never beats
  the HBM/DDR figure);
- vector: the sum over APIs of repeats x cycles per repeat, plus UB -> UB copies at the vector
  unit's bytes per cycle, over the clock;
- scalar: scalar accesses x cycles each; sync: SyncAll barriers x the barrier cost;
- cube: the multiply-accumulates of the Matmul API and Mmad (`cube_macs`, `cube_macs_fp32`) at
  the chip's cube MACs per cycle, or the L1 -> L0A/L0B moves (`l1_to_l0_bytes`, MTE1) at its
  bytes per cycle when they take longer (double-buffered L0 overlaps the two); the cube path's
  GM traffic (`gm_to_l1_bytes`, `l0c_to_gm_bytes`) counts as transfer;
- core time = max(transfer, vector, cube) + scalar + sync: double buffering overlaps the MTE,
  vector and cube pipes, but scalar work and barriers stall them all.

Kernel time = launch overhead + the slowest core. `bound` names what dominates: the launch when
it outweighs the body, else the largest part of the critical core (`body_bound`, always set).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel

from ascend_tools.chips import Chip, vector_api_cycles

Bound = Literal["launch", "memory", "vector", "cube", "scalar", "sync"]
# Counter names of one block in the emulator report.
_GM_KEYS = ("gm_to_ub_bytes", "ub_to_gm_bytes", "gm_to_l1_bytes", "l0c_to_gm_bytes")


class CostInputError(ValueError):
    """The counters cannot be costed (no passing run, or not the emulator's format)."""


class CoreCost(BaseModel):
    """One physical core's modelled time and its parts, in microseconds."""

    core: int
    blocks: int
    gm_bytes: int
    transfer_us: float
    vector_us: float
    scalar_us: float
    sync_us: float
    total_us: float
    cube_us: float = 0.0


class KernelCost(BaseModel):
    """Modelled kernel time (us): `total_us` = `launch_us` + the critical core's time; the parts
    listed are the critical core's. `cores_used`: physical cores that ran a block."""

    chip: str
    total_us: float
    launch_us: float
    transfer_us: float
    vector_us: float
    scalar_us: float
    sync_us: float
    cube_us: float = 0.0
    critical_core: int
    cores_used: int
    block_dim: int
    gm_bytes: int
    bound: Bound
    body_bound: Bound  # the critical core's largest part, whatever the launch overhead
    per_core: list[CoreCost]


def api_cycles(api: str) -> float:
    """Cycles per 256-byte repeat of `api` (the table's default for an API it does not list)."""
    table = vector_api_cycles()
    return table.get(api, table["_default"])


def _num(block: dict, key: str) -> float:
    value = block.get(key, 0) or 0
    if not isinstance(value, (int, float)) or value < 0:
        raise CostInputError(f"counter {key!r} must be a non-negative number, got {value!r}")
    return float(value)


def _blocks(counters: dict) -> list[dict]:
    if not isinstance(counters, dict) or not counters:
        raise CostInputError("no counters: the kernel has no passing run to cost")
    blocks = counters.get("per_block")
    if not isinstance(blocks, list) or not blocks or not all(isinstance(b, dict) for b in blocks):
        raise CostInputError("counters have no per_block entries (emulator report format)")
    return blocks


def kernel_time(counters: dict, chip: Chip) -> KernelCost:
    """Modelled time of one launch from its emulator counters (see the module docstring)."""
    blocks = _blocks(counters)
    perf = chip.perf
    cores = max(1, chip.vector_cores)
    hz = perf.clock_mhz * 1e6
    # Fold blocks onto physical cores (waves).
    folded: dict[int, dict[str, float]] = {}
    for i, b in enumerate(blocks):
        zero = {"blocks": 0.0, "gm": 0.0, "cycles": 0.0, "scalar": 0.0, "sync": 0.0, "cube": 0.0,
                "mte1": 0.0}
        acc = folded.setdefault(i % cores, zero)
        acc["blocks"] += 1
        acc["gm"] += sum(_num(b, k) for k in _GM_KEYS)
        reps = b.get("vector_repeats") or {}
        if not isinstance(reps, dict):
            raise CostInputError("counter 'vector_repeats' must map API names to repeat counts")
        acc["cycles"] += sum(_num(reps, api) * api_cycles(api) for api in reps)
        acc["cycles"] += _num(b, "ub_to_ub_bytes") / perf.vector_bytes_per_cycle
        acc["scalar"] += _num(b, "scalar_accesses")
        acc["sync"] += _num(b, "sync_alls")
        acc["cube"] += _num(b, "cube_macs") / perf.cube_macs_per_cycle
        acc["cube"] += _num(b, "cube_macs_fp32") / perf.cube_fp32_macs_per_cycle
        acc["mte1"] += _num(b, "l1_to_l0_bytes") / perf.l1_to_l0_bytes_per_cycle
    movers = sum(1 for a in folded.values() if a["gm"] > 0) or 1
    core_bw = min(perf.core_gm_bytes_per_cycle * hz, perf.gm_gbps * 1e9 / movers)
    per_core: list[CoreCost] = []
    for core, a in sorted(folded.items()):
        transfer = a["gm"] / core_bw * 1e6
        vector = a["cycles"] / hz * 1e6
        scalar = a["scalar"] * perf.scalar_access_cycles / hz * 1e6
        sync = a["sync"] * perf.sync_all_us
        cube = max(a["cube"], a["mte1"]) / hz * 1e6
        per_core.append(
            CoreCost(
                core=core,
                blocks=int(a["blocks"]),
                gm_bytes=int(a["gm"]),
                transfer_us=transfer,
                vector_us=vector,
                scalar_us=scalar,
                sync_us=sync,
                cube_us=cube,
                total_us=max(transfer, vector, cube) + scalar + sync,
            )
        )
    crit = max(per_core, key=lambda c: c.total_us)
    parts: dict[Bound, float] = {
        "memory": crit.transfer_us,
        "vector": crit.vector_us,
        "cube": crit.cube_us,
        "scalar": crit.scalar_us,
        "sync": crit.sync_us,
    }
    body_bound: Bound = max(parts, key=parts.__getitem__)
    bound: Bound = "launch" if perf.launch_us >= crit.total_us else body_bound
    return KernelCost(
        chip=chip.name,
        total_us=perf.launch_us + crit.total_us,
        launch_us=perf.launch_us,
        transfer_us=crit.transfer_us,
        vector_us=crit.vector_us,
        scalar_us=crit.scalar_us,
        sync_us=crit.sync_us,
        cube_us=crit.cube_us,
        critical_core=crit.core,
        cores_used=len(per_core),
        block_dim=int(counters.get("block_dim") or len(blocks)),
        gm_bytes=sum(c.gm_bytes for c in per_core),
        bound=bound,
        body_bound=body_bound,
        per_core=per_core,
    )


def even_counters(
    gm_bytes: float, vector_repeats: dict[str, float], blocks: int, scalar_accesses: float = 0
) -> dict:
    """Counters of a launch whose traffic and vector work are split evenly over `blocks` blocks,
    in the emulator's format: how a modelled (not emulated) kernel, such as an eager PyTorch op,
    is costed with the same `kernel_time`."""
    n = max(1, int(blocks))
    block = {
        "gm_to_ub_bytes": gm_bytes / n,
        "ub_to_gm_bytes": 0,
        "ub_to_ub_bytes": 0,
        "scalar_accesses": scalar_accesses / n,
        "sync_alls": 0,
        "vector_repeats": {api: r / n for api, r in vector_repeats.items()},
    }
    return {"block_dim": n, "per_block": [dict(block, block=i) for i in range(n)]}
