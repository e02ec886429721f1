"""One seeded-bug kernel per runtime rule (tests/emu/cpp/bugs.cpp): the run must stop with exit
code 3 and a report naming the rule and the line of the offending call."""

from __future__ import annotations

import pytest
from emu_device_support import marker_line

# case in bugs.cpp -> rule code (ascend_tools.diagnostics.RuleCode values)
CASES = {
    "ub_overflow": "ub-overflow",
    "ub_overflow_past": "ub-overflow",
    "l1_overflow": "l1-overflow",
    "l0_overflow": "l0-overflow",
    "buffer_count_pipe": "buffer-count",
    "buffer_count_position": "buffer-count",
    "buffer_count_position_910": "buffer-count",
    "vector_on_l1": "tensor-position",
    "deque_empty": "queue-protocol",
    "missing_free": "queue-protocol",
    "free_foreign": "queue-protocol",
    "enque_tbuf": "queue-protocol",
    "use_after_free": "queue-protocol",
    "queue_depth": "queue-depth",
    "datacopy_unaligned": "datacopy-align",
    "datacopy_block_count": "datacopy-align",
    "ub_offset": "ub-offset-align",
    "count_exceeds": "count-exceeds-tensor",
    "repeat_range": "repeat-range",
    "mask_range": "mask-range",
    "position": "tensor-position",
    "gm_extent": "gm-out-of-bounds",
    "gm_extent_read_past_allocation": "gm-out-of-bounds",
    "gm_allocation": "gm-out-of-bounds",
    "gm_read_past_pad": "gm-out-of-bounds",
    "gm_read_past_segment": "gm-out-of-bounds",
    "gm_write_past_block": "gm-out-of-bounds",
    "gm_scalar_write": "gm-out-of-bounds",
    "gm_call_operator_write": "gm-out-of-bounds",
    "ub_call_operator_write": "count-exceeds-tensor",
    "set_size_past_buffer": "count-exceeds-tensor",
    "two_pipes": "single-tpipe",
    "datacopypad_chip": "chip-support",
    "bf16_chip": "chip-support",
    "sync_all_early_return": "timeout",
    "mask_overlap_partial": "operand-overlap",
    "mask_overlap_across_repeats": "operand-overlap",
    # the cube path's pipes (MTE2 -> L1 -> MTE1 -> L0A/L0B -> M -> L0C -> FIX), one flag missing
    **{
        f"cube_{pair}": "pipe-hazard"
        for pair in ("mte2_mte1", "mte1_m", "m_fix", "war_m_mte1", "war_fix_m")
    },
    **{
        f"overlap_{api}": "operand-overlap"
        for api in (
            "compare",
            "compare_scalar",
            "select",
            "reduce_sum",
            "reduce_work",
            "whole_reduce",
            "block_reduce",
            "pair_reduce",
            "gather",
            "gather_mask",
            "brcb",
            "transpose",
        )
    },
}


@pytest.mark.parametrize(("case", "code"), sorted(CASES.items()))
def test_seeded_bug_reports_rule_and_line(emu_build, run_program, case: str, code: str) -> None:
    res = run_program(emu_build("bugs"), [case, "{report}"])
    assert res.returncode == 3, res.stderr
    assert res.report is not None and res.report["status"] == "error"
    [err] = res.report["errors"]
    assert err["code"] == code, err
    source = "cube_product.h" if case.startswith("cube_") else "bugs.cpp"  # shared cube fixture
    assert err["line"] == marker_line(source, f"BUG: {case}"), err
    assert err["file"].endswith(source)
    assert err["block"] >= 0
    assert f"[{code}]" in res.stderr


def test_a_tensor_still_allocated_at_the_block_end_is_a_warning(emu_build, run_program) -> None:
    """AllocTensor without FreeTensor: nothing waits on the buffer after the block, so the NPU runs
    on (DrivingSDK's nms3d_on_sight holds its inputs so); the run goes on with a warning."""
    res = run_program(emu_build("bugs"), ["leak", "{report}"])
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == []
    [warning] = [w for w in res.report["warnings"] if w["code"] == "queue-protocol"]
    assert warning["line"] == marker_line("bugs.cpp", "BUG: leak")
    assert "still enqueued when the block ends" in warning["message"]


def test_operator_form_reading_past_its_operand_inside_ub_is_a_warning(emu_build,
                                                                        run_program) -> None:
    """`whole = part + part` computes over whole's 256 elements and reads past the 64 of part:
    the NPU checks no LocalTensor length and reads on inside UB, so the run goes on with a warning
    at the statement's line (the lanes past part hold whatever UB holds there)."""
    res = run_program(emu_build("bugs"), ["operator_form", "{report}"])
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == []
    [warning] = [w for w in res.report["warnings"] if w["code"] == "count-exceeds-tensor"]
    assert warning["line"] == marker_line("bugs.cpp", "BUG: operator_form")
    assert "needs 256 elements of src0, a LocalTensor<float> of 64" in warning["message"]


def test_failure_messages_state_the_numbers(emu_build, run_program) -> None:
    msgs = {}
    for case in ("ub_overflow", "datacopy_unaligned", "queue_depth", "gm_read_past_pad"):
        report = run_program(emu_build("bugs"), [case, "{report}"]).report
        msgs[case] = report["errors"][0]["message"]
    assert "81920 B" in msgs["ub_overflow"] and "65536 B" in msgs["ub_overflow"]
    assert "TQue<VECIN, 2> 2 x 65536 B" in msgs["ub_overflow"]
    # the access: its bytes past the end, the buffer, where it starts and how far it reaches
    assert "Duplicate touches bytes [172032, 212992)" in msgs["ub_overflow"]
    assert "placed at UB byte 131072 reaches 16384 B past the end of UB" in msgs["ub_overflow"]
    assert "40 bytes" in msgs["datacopy_unaligned"]
    assert "depth is 1" in msgs["queue_depth"]
    assert "[0, 96)" in msgs["gm_read_past_pad"] and "40 bytes" in msgs["gm_read_past_pad"]


def test_freeing_another_queues_buffer_names_that_queue_and_its_alloc(
    emu_build, run_program
) -> None:
    """FreeTensor through a queue of another position (VECOUT freeing a VECIN buffer) signals the
    wrong free event: the message says whose buffer it is, not "not a whole buffer"."""
    err = run_program(emu_build("bugs"), ["free_foreign", "{report}"]).report["errors"][0]
    alloc = marker_line("bugs.cpp", "alloc: free_foreign")
    assert "FreeTensor on TQue<VECOUT, 1> with a buffer of another queue" in err["message"], err
    assert f"(TQue<VECIN, 1>, from its AllocTensor at line {alloc})" in err["message"], err


def test_l1_and_l0_overflow_messages_name_the_memory_and_earlier_buffers(
    emu_build, run_program
) -> None:
    l1 = run_program(emu_build("bugs"), ["l1_overflow", "{report}"]).report["errors"][0]["message"]
    assert "L1 has 196608 B of 524288 B left" in l1, l1  # 512 KB less 2 x 160 KB of qa
    assert "2 x 131072 = 262144 B" in l1 and "TQue<A1, 1> 2 x 163840 B" in l1, l1
    l0 = run_program(emu_build("bugs"), ["l0_overflow", "{report}"]).report["errors"][0]["message"]
    assert "L0C has 131072 B of 131072 B left" in l0, l0  # the L0A buffer does not count in L0C


def test_cube_buffers_filling_l1_and_each_l0_exactly_run(emu_build, run_program) -> None:
    res = run_program(emu_build("bugs"), ["ok_cube_buffers_fill_l1_and_l0", "{report}"])
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == []


def test_documented_mask_form_overlaps_are_allowed(emu_build, run_program) -> None:
    # in place repeat by repeat, and accumulation into src1 with repeat stride 0
    res = run_program(emu_build("bugs"), ["ok_mask_overlap", "{report}"])
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == []


def test_cube_path_with_every_flag_runs(emu_build, run_program) -> None:
    res = run_program(emu_build("bugs"), ["ok_cube_flags", "{report}"])
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == []


@pytest.mark.parametrize(
    ("case", "pipes", "flag"),
    [
        ("cube_mte2_mte1", ("PIPE_MTE1", "PIPE_MTE2"), "MTE2_MTE1"),
        ("cube_mte1_m", ("PIPE_M", "PIPE_MTE1"), "MTE1_M"),
        ("cube_m_fix", ("PIPE_FIX", "PIPE_M"), "M_FIX"),
        ("cube_war_m_mte1", ("PIPE_MTE1", "PIPE_M"), "M_MTE1"),
        ("cube_war_fix_m", ("PIPE_M", "PIPE_FIX"), "FIX_M"),
    ],
)
def test_cube_pipe_hazard_names_both_pipes_and_the_missing_flag(
    emu_build, run_program, case: str, pipes: tuple[str, str], flag: str
) -> None:
    err = run_program(emu_build("bugs"), [case, "{report}"]).report["errors"][0]
    assert all(p in err["message"] for p in pipes), err
    assert f"SetFlag<HardEvent::{flag}>" in err["message"], err


def test_in_place_and_disjoint_operands_of_other_apis_are_allowed(emu_build, run_program) -> None:
    # reductions in place (the same start), disjoint operands, and one call site in a loop
    res = run_program(emu_build("bugs"), ["ok_overlap_in_place", "{report}"])
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == []


def test_partial_overlap_message_names_both_operands_and_ranges(emu_build, run_program) -> None:
    err = run_program(emu_build("bugs"), ["overlap_whole_reduce", "{report}"]).report["errors"][0]
    assert "WholeReduceSum" in err["message"], err
    assert "dst (UB bytes [64, " in err["message"] and "src (UB bytes [0, " in err["message"], err


def test_reading_the_32_byte_padding_of_an_allocation_is_allowed(emu_build, run_program) -> None:
    res = run_program(emu_build("bugs"), ["ok_gm_read_pad", "{report}"])
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == []


def test_read_past_the_set_global_buffer_size_inside_the_allocation_is_a_warning(
    emu_build, run_program
) -> None:
    # #8: a kernel that reads its own tensor past the size it gave SetGlobalBuffer runs on the
    # NPU (apply_rotary_pos_emb_ms); the run goes on and the report warns once per call site.
    res = run_program(emu_build("bugs"), ["ok_gm_read_past_extent", "{report}"])
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == []
    [warning] = res.report["warnings"]
    assert warning["code"] == "gm-extent"
    assert warning["line"] == marker_line("bugs.cpp", "WARN: ok_gm_read_past_extent")
    assert warning["file"].endswith("bugs.cpp")
    assert "elements [0, 512) of a GlobalTensor<float> set with 256 elements" in warning["message"]
    assert "GM buffer 'x' of 4096 bytes" in warning["message"]
    res = run_program(emu_build("bugs"), ["ok_gm_write_past_extent", "{report}"])
    assert res.returncode == 0, res.stderr
    [warning] = res.report["warnings"]
    assert warning["code"] == "gm-extent"
    assert "writes elements [16, 80) of a GlobalTensor<float> set with 16" in warning["message"]


def test_read_past_the_block_inside_the_segment_is_a_warning(emu_build, run_program) -> None:
    # torch_npu's allocator carves blocks from 2 MiB / 20 MiB segments (chips.json
    # gm_allocation.segment): reading past a block lands on mapped memory and does not fault.
    res = run_program(emu_build("bugs"), ["ok_gm_read_past_block", "{report}"])
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == []
    [warning] = res.report["warnings"]
    assert warning["code"] == "gm-read-past-allocation"
    assert warning["line"] == marker_line("bugs.cpp", "WARN: ok_gm_read_past_block")
    assert (
        "reads bytes [0, 1024) of GM buffer 'seg' of 64 bytes, 512 bytes past the 512-byte block"
        in warning["message"]
    ), warning
    assert "inside the 2048-byte segment" in warning["message"], warning


def test_write_past_the_block_and_read_past_the_segment_name_the_limit(
    emu_build, run_program
) -> None:
    write = run_program(emu_build("bugs"), ["gm_write_past_block", "{report}"]).report["errors"][0]
    assert (
        "writes bytes [0, 544) of GM buffer 'seg' of 64 bytes, past the 512-byte block"
        in write["message"]
    ), write
    read = run_program(emu_build("bugs"), ["gm_read_past_segment", "{report}"]).report["errors"][0]
    assert (
        "reads bytes [0, 2080) of GM buffer 'seg' of 64 bytes, past the 2048-byte segment"
        in (read["message"])
    ), read


def test_correct_double_buffered_kernel_runs_and_counts(emu_build, run_program) -> None:
    res = run_program(emu_build("bugs"), ["ok_double_buffer", "{report}"])
    assert res.returncode == 0, res.stderr
    # y = 2 * x over 4 blocks of 256 floats; block 0's y[0] rewritten by SetValue from x[0]
    assert "y[0..3] = 0 2 4 2046" in res.stdout
    per_block = res.report["counters"]["per_block"]
    assert len(per_block) == 4
    for b in per_block:
        assert b["gm_to_ub_bytes"] == 1024 and b["ub_to_gm_bytes"] == 1024
        assert b["vector_repeats"] == {"Muls": 4}
        assert b["scalar_accesses"] == 2
    assert res.report["counters"]["total"]["vector_repeats"] == {"Muls": 16}


def test_sync_all_lets_every_block_see_the_others_writes(emu_build, run_program) -> None:
    res = run_program(emu_build("bugs"), ["ok_sync_all", "{report}"])
    assert res.returncode == 0, res.stderr
    seen = sorted(line for line in res.stdout.splitlines() if line.startswith("block"))
    assert seen == [f"block {b} sees {10 + (b + 1) % 4}" for b in range(4)]


def test_scalar_read_after_vector_is_ordered_by_auto_sync_unless_it_is_off(
    emu_build, run_program, monkeypatch: pytest.MonkeyPatch
) -> None:
    # BiSheng's --cce-auto-sync (on by default) inserts the V_S flag; KERNELGEN_AUTO_SYNC=0 models
    # a build without it, where the read can see the ReduceMax result before it lands.
    res = run_program(emu_build("bugs"), ["scalar_after_reduce", "{report}"])
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == []
    monkeypatch.setenv("KERNELGEN_AUTO_SYNC", "0")
    res = run_program(emu_build("bugs"), ["scalar_after_reduce", "{report}"])
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == "pipe-hazard", err
    assert err["line"] == marker_line("bugs.cpp", "BUG: scalar_after_reduce"), err
    assert "PIPE_V" in err["message"] and "V_S" in err["message"], err


def test_auto_sync_pair_before_a_scalar_read_orders_every_earlier_copy(
    emu_build, run_program, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The compiler's MTE2 -> S pair stands just before the GetValue, and a SetFlag waits for
    # every earlier instruction of its pipe: the values copied after the indices are in UB before
    # MTE3 copies them out (DrivingSDK scatter_add). Without auto-sync MTE2 -> MTE3 is unordered.
    res = run_program(emu_build("bugs"), ["scalar_read_orders_earlier_copies", "{report}"])
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == []
    monkeypatch.setenv("KERNELGEN_AUTO_SYNC", "0")
    res = run_program(emu_build("bugs"), ["scalar_read_orders_earlier_copies", "{report}"])
    assert res.returncode == 3, res.stderr
    err = res.report["errors"][0]
    assert err["code"] == "pipe-hazard", err


def test_a_read_of_bytes_another_block_writes_unordered_gets_poison_with_a_warning(
    emu_build, run_program
) -> None:
    # DrivingSDK dynamic_scatter copies whole 32-byte blocks that reach into the next core's
    # voxels and uses only its own lanes: on the NPU those lanes hold the old bytes or the new,
    # so the read warns and hands poison there; lanes the kernel keeps are its own.
    res = run_program(emu_build("bugs"), ["ok_racing_read_dropped", "{report}"])
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == []
    warnings = [w for w in res.report["warnings"] if w["code"] == "gm-race"]
    marker = marker_line("bugs.cpp", "WARN: ok_racing_read_dropped")
    assert warnings and warnings[0]["line"] == marker, warnings
    assert "block 1 reads bytes [0, 16)" in warnings[0]["message"], warnings
    assert "block 1 own 4 7 other 3e+38" in res.stdout, res.stdout
    assert "block 1 scalar -1e+38" in res.stdout, res.stdout  # GetValue: poison too (odd lane)


def test_compare_count_off_whole_repeats_runs_the_last_repeat_whole_with_a_warning(
    emu_build, run_program
) -> None:
    """Compare over 40 floats (160 B): the reference asks for whole 256-byte repeats, and the NPU
    runs the last one whole (Ascend/samples Xlogy compares 76.75 repeats and passes there), so
    the run goes on with a warning and compares 64 lanes."""
    res = run_program(emu_build("bugs"), ["compare_align", "{report}"])
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == []
    [warning] = [w for w in res.report["warnings"] if w["code"] == "param-range"]
    assert warning["line"] == marker_line("bugs.cpp", "BUG: compare_align")
    assert "so 64 elements are compared" in warning["message"]


def test_a_buffer_initialised_past_the_end_of_ub_and_never_used_is_a_warning(
    emu_build, run_program
) -> None:
    """The NPU's TPipe only hands out addresses: a buffer past UB's end that the kernel never
    allocates from runs there (Ascend/samples UnalignAdd's int8-only TBufs on a float16 run)."""
    res = run_program(emu_build("bugs"), ["ub_overflow_unused", "{report}"])
    assert res.returncode == 0, res.stderr
    assert res.report["errors"] == []
    [warning] = [w for w in res.report["warnings"] if w["code"] == "ub-overflow"]
    assert warning["line"] == marker_line("bugs.cpp", "BUG: ub_overflow_unused")
    assert "lies past the end of UB" in warning["message"]
