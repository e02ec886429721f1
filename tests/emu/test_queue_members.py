"""Queue members used outside one queue's own pairing (tests/emu/cpp/queue_members.cpp): a TBuf's
AllocTensor/FreeTensor (CANN's TBuf derives from TQueBind; its tensors need no release, its
buffer cannot be enqueued) and FreeTensor through another queue (the block returns to its owner;
only the release's synchronisation, set by the positions, can differ)."""

from __future__ import annotations

import pytest
from emu_device_support import marker_line

SOURCE = "queue_members.cpp"


def _run(emu_build, run_program, case: str):
    return run_program(emu_build("queue_members"), [case, "{report}"])


def test_tbuf_alloc_tensor_hands_out_its_one_buffer_every_trip(emu_build, run_program) -> None:
    """roiaware_maxpool3d_grad allocates its TBufs each loop trip and never frees them: no hang,
    no leak, the same whole buffer each time, and the data it carries is right."""
    res = _run(emu_build, run_program, "ok_tbuf_alloc_each_trip")
    assert res.returncode == 0, res.stderr + res.stdout
    assert res.report["errors"] == [] and res.report["warnings"] == []
    assert "y = 2 * x" in res.stdout


@pytest.mark.parametrize(
    "case",
    [
        "tbuf_enque",
        "tbuf_deque",
        "tbuf_free_queue_tensor",
        "free_swapped_twice",
        "free_swapped_other_position",
        "queue_copy_shares_buffers",
    ],
)
def test_queue_member_faults_fail_at_their_line(emu_build, run_program, case: str) -> None:
    res = _run(emu_build, run_program, case)
    assert res.returncode == 3, res.stderr
    [err] = res.report["errors"]
    assert err["code"] == "queue-protocol", err
    assert err["line"] == marker_line(SOURCE, f"BUG: {case}"), err
    assert err["file"].endswith(SOURCE)


def test_fault_messages_say_why(emu_build, run_program) -> None:
    enque = _run(emu_build, run_program, "tbuf_enque").report["errors"][0]["message"]
    assert "cannot be enqueued or dequeued" in enque, enque
    twice = _run(emu_build, run_program, "free_swapped_twice").report["errors"][0]["message"]
    assert "already free" in twice, twice
    other = _run(emu_build, run_program, "free_swapped_other_position").report["errors"][0]
    other = other["message"]
    assert "of another position" in other and "free event of a VECOUT queue" in other, other


def test_free_through_a_queue_of_the_same_position_warns_and_computes(
    emu_build, run_program
) -> None:
    """points_in_box's swap, with buffers of different sizes: each queue keeps allocating its own
    blocks, so the kernel computes right; one warning per call site names both queues."""
    res = _run(emu_build, run_program, "ok_free_swapped_same_position")
    assert res.returncode == 0, res.stderr + res.stdout
    assert res.report["errors"] == []
    assert "y = 2 * x" in res.stdout
    warnings = res.report["warnings"]
    assert [w["code"] for w in warnings] == ["queue-protocol", "queue-protocol"], warnings
    first = marker_line(SOURCE, "WARN: ok_free_swapped_same_position")
    assert [w["line"] for w in warnings] == [first, first + 1]
    assert "TQue<VECIN, 1> with a buffer of another queue (TQue<VECIN, 2>" in warnings[0]["message"]


def test_a_copied_queue_is_the_same_queue(emu_build, run_program) -> None:
    """fbgemm-ascend split_embedding copies its queues into a helper (`this->queIn = queIn`): a
    copy hands out, enqueues and frees the same buffers (CANN's TQueBind holds plain handles
    into its TPipe's buffer table); before, TQue was not copy-assignable."""
    res = _run(emu_build, run_program, "ok_queue_copy")
    assert res.returncode == 0, res.stderr + res.stdout
    assert res.report["errors"] == [] and res.report["warnings"] == []
    assert "y = 2 * x" in res.stdout
