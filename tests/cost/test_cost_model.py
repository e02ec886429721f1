"""The cost model: monotonic in work, attributes time to the right part, and labels the bound."""

from __future__ import annotations

import pytest

from ascend_tools.chips import all_chips, get_chip, vector_api_cycles
from ascend_tools.cost import CostInputError, even_counters, kernel_time

CHIP = get_chip("ascend910b2")


def block(gm: float = 0, repeats: dict[str, float] | None = None, **extra: float) -> dict:
    return {
        "gm_to_ub_bytes": gm / 2,
        "ub_to_gm_bytes": gm / 2,
        "ub_to_ub_bytes": 0,
        "scalar_accesses": 0,
        "sync_alls": 0,
        "vector_repeats": repeats or {},
        **extra,
    }


def launch(*blocks: dict) -> dict:
    return {"block_dim": len(blocks), "per_block": [dict(b, block=i) for i, b in enumerate(blocks)]}


def test_every_chip_has_performance_facts_with_sources() -> None:
    for chip in all_chips().values():
        p = chip.perf
        assert p.clock_mhz > 0 and p.gm_gbps > 0 and p.core_gm_bytes_per_cycle > 0
        assert p.launch_us > 0 and p.sync_all_us > 0 and p.source
    assert "Add" in vector_api_cycles() and "_default" in vector_api_cycles()


def test_more_bytes_take_more_time() -> None:
    small = kernel_time(launch(*[block(gm=1 << 20)] * 8), CHIP)
    large = kernel_time(launch(*[block(gm=4 << 20)] * 8), CHIP)
    assert large.total_us > small.total_us
    assert large.transfer_us == pytest.approx(4 * small.transfer_us)
    assert large.bound == "memory"


def test_one_core_doing_all_the_work_is_slower_than_the_same_work_over_48_cores() -> None:
    work = {"Exp": 48 * 400}
    gm = 48 * (256 << 10)
    one = kernel_time(even_counters(gm, work, 1), CHIP)
    spread = kernel_time(even_counters(gm, work, 48), CHIP)
    assert one.cores_used == 1 and spread.cores_used == 48
    assert one.total_us > 10 * spread.total_us
    # The critical core of an uneven launch is the loaded one.
    uneven = kernel_time(launch(block(gm=1024), block(gm=gm), block(gm=1024)), CHIP)
    assert uneven.critical_core == 1


def test_aggregate_gm_bandwidth_caps_many_cores() -> None:
    gm = 48 * (1 << 20)
    cost = kernel_time(even_counters(gm, {}, 48), CHIP)
    floor_us = gm / (CHIP.perf.gm_gbps * 1e9) * 1e6
    assert cost.transfer_us == pytest.approx(floor_us)
    per_core_limit_us = (
        (1 << 20) / (CHIP.perf.core_gm_bytes_per_cycle * CHIP.perf.clock_mhz * 1e6) * 1e6
    )
    assert cost.transfer_us > per_core_limit_us


def test_exp_costs_more_than_add_for_the_same_repeats() -> None:
    add = kernel_time(launch(block(repeats={"Add": 100_000})), CHIP)
    exp = kernel_time(launch(block(repeats={"Exp": 100_000})), CHIP)
    assert exp.vector_us > add.vector_us and exp.bound == add.bound == "vector"
    unknown = kernel_time(launch(block(repeats={"NotAnApi": 100_000})), CHIP)
    assert unknown.vector_us == pytest.approx(add.vector_us * vector_api_cycles()["_default"])


def test_a_tiny_input_is_launch_bound() -> None:
    cost = kernel_time(launch(block(gm=256, repeats={"Add": 1})), CHIP)
    assert cost.bound == "launch" and cost.body_bound == "memory"
    assert cost.total_us == pytest.approx(CHIP.perf.launch_us, rel=0.01)


def test_scalar_accesses_and_sync_barriers_add_to_the_core_time() -> None:
    base = kernel_time(launch(block(gm=1 << 20)), CHIP)
    scalar = kernel_time(launch(block(gm=1 << 20, scalar_accesses=100_000)), CHIP)
    synced = kernel_time(launch(block(gm=1 << 20, sync_alls=3)), CHIP)
    assert scalar.total_us > base.total_us and scalar.bound == "scalar"
    assert synced.total_us == pytest.approx(base.total_us + 3 * CHIP.perf.sync_all_us)


def test_blocks_beyond_the_cores_run_in_waves() -> None:
    cores = CHIP.vector_cores
    one_wave = kernel_time(launch(*[block(repeats={"Add": 10_000})] * cores), CHIP)
    two_waves = kernel_time(launch(*[block(repeats={"Add": 10_000})] * (2 * cores)), CHIP)
    assert two_waves.cores_used == cores and two_waves.block_dim == 2 * cores
    assert two_waves.vector_us == pytest.approx(2 * one_wave.vector_us)


@pytest.mark.parametrize(
    "counters, message",
    [
        ({}, "no passing run"),
        ({"per_block": []}, "per_block"),
        (launch(block(gm=-5)), "non-negative"),
        (launch(block(repeats="Add")), "vector_repeats"),  # type: ignore[arg-type]
    ],
)
def test_bad_counters_get_a_clear_error(counters: dict, message: str) -> None:
    with pytest.raises(CostInputError, match=message):
        kernel_time(counters, CHIP)


def test_cube_macs_are_costed_at_the_chip_rate_and_fp32_at_its_own() -> None:
    macs = 4096 * 1800 * 10  # 10 us of fp16 cube work at 4096 MACs/cycle and 1.8 GHz
    fp16 = kernel_time(launch(block(cube_macs=macs)), CHIP)
    assert fp16.cube_us == pytest.approx(10.0)
    assert fp16.bound == "cube" and fp16.total_us == pytest.approx(CHIP.perf.launch_us + 10.0)
    fp32 = kernel_time(launch(block(cube_macs_fp32=macs)), CHIP)
    ratio = CHIP.perf.cube_macs_per_cycle / CHIP.perf.cube_fp32_macs_per_cycle
    assert fp32.cube_us == pytest.approx(10.0 * ratio)
    # The cube's GM traffic is transfer time like the vector path's; the two pipes overlap.
    both = kernel_time(launch(block(cube_macs=macs, gm_to_l1_bytes=1 << 20)), CHIP)
    assert both.transfer_us > 0 and both.total_us == pytest.approx(
        CHIP.perf.launch_us + max(both.transfer_us, 10.0)
    )


def test_l1_to_l0_moves_bound_the_cube_when_they_outlast_the_macs() -> None:
    macs = 4096 * 1800 * 10  # 10 us of fp16 MACs
    rate = CHIP.perf.l1_to_l0_bytes_per_cycle
    # MTE1 moves that take 5 us overlap the 10 us of MACs: the cube part stays 10 us
    short = kernel_time(launch(block(cube_macs=macs, l1_to_l0_bytes=rate * 1800 * 5)), CHIP)
    assert short.cube_us == pytest.approx(10.0)
    # 30 us of moves (operands reloaded into L0 for every small product) set the cube time
    long = kernel_time(launch(block(cube_macs=macs, l1_to_l0_bytes=rate * 1800 * 30)), CHIP)
    assert long.cube_us == pytest.approx(30.0) and long.bound == "cube"
