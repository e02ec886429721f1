"""Patterns of real, hardware-proven kernels (fixtures in tests/data/lint_patterns, written for
these tests): the linter reports no error on them, and still reports the faults it can prove,
with the evidence in the message."""

from __future__ import annotations

from pathlib import Path

import pytest

from ascend_tools.diagnostics import RuleCode, Severity
from ascend_tools.lint import lint_path, project_files
from tests.lint.helpers import codes, corpus_texts, errors, fix_and_relint, lint_texts, mutate

R = RuleCode
PATTERNS = Path(__file__).resolve().parents[1] / "data" / "lint_patterns"


def texts_of(name: str) -> dict[str, str]:
    path = PATTERNS / name
    files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    return {str(f): f.read_text() for f in files}


def replaced(texts: dict[str, str], old: str, new: str) -> dict[str, str]:
    hits = [p for p, t in texts.items() if old in t]
    assert hits, old
    return {**texts, hits[0]: texts[hits[0]].replace(old, new, 1)}


def only(diags, code: RuleCode):
    found = [d for d in diags if d.code == code.value]
    assert found, [d.compiler_style() for d in diags]
    return found[0]


@pytest.mark.parametrize("name", sorted(p.name for p in PATTERNS.iterdir()))
@pytest.mark.parametrize("chip", ["ascend910b2", "ascend910_93"])
def test_real_kernel_pattern_has_no_error(name: str, chip: str) -> None:
    diags = lint_texts(texts_of(name), chip=chip)
    assert errors(diags) == [], [d.compiler_style() for d in errors(diags)]


# ---------------------------------------------------------------- queue protocol
def test_queue_split_across_methods_and_loop_is_not_a_protocol_error() -> None:
    diags = lint_texts(texts_of("split_queue_methods.cpp"))
    assert R.QUEUE_PROTOCOL.value not in codes(diags)


def test_queue_shared_with_a_base_class_gets_no_protocol_verdict() -> None:
    diags = lint_texts(texts_of("inherited_queues.cpp"))
    assert R.QUEUE_PROTOCOL.value not in codes(diags)


def test_missing_free_tensor_in_a_loop_is_still_an_error_naming_the_loop() -> None:
    texts = replaced(texts_of("split_queue_methods.cpp"), "        outQueue.FreeTensor(yLocal);\n",
                     "")
    d = only(lint_texts(texts), R.QUEUE_PROTOCOL)
    assert d.severity == Severity.ERROR and "outQueue" in d.message
    assert "run in a loop at split_queue_methods.cpp:41" in d.message


def test_tensor_allocated_once_and_kept_is_not_a_leak() -> None:
    texts = replaced(texts_of("split_queue_methods.cpp"),
                     "        scratchQueue.FreeTensor(scratch);\n", "")
    assert R.QUEUE_PROTOCOL.value not in codes(lint_texts(texts))


def test_dequeue_of_a_queue_only_a_helper_fills_is_not_an_error() -> None:
    diags = lint_texts(texts_of("split_queue_methods.cpp"))
    assert not [d for d in diags if "biasQueue" in d.message]


def test_tbuf_alloc_and_free_are_its_own_members_and_enqueue_is_an_error() -> None:
    """CANN's TBuf derives from TQueBind (DrivingSDK roiaware_maxpool3d_grad calls AllocTensor on
    TBufs each loop trip and never frees them): AllocTensor/FreeTensor draw nothing, EnQue on it
    is the queue-protocol error the emulator reports too."""
    texts = texts_of("split_queue_methods.cpp")
    line = "        LocalTensor<float> tmp = calcBuf.Get<float>();\n"
    alloc = replaced(texts, line, line.replace("Get<float>", "AllocTensor<float>"))
    assert not [d for d in lint_texts(alloc)
                if "calcBuf" in d.message or "AllocTensor" in d.message]
    freed = replaced(alloc, "        inQueue.FreeTensor(xLocal);\n",
                     "        inQueue.FreeTensor(xLocal);\n        calcBuf.FreeTensor(tmp);\n")
    assert not [d for d in lint_texts(freed) if "calcBuf" in d.message]
    enq = replaced(texts, line, line + "        calcBuf.EnQue(tmp);\n")
    d = only(lint_texts(enq), R.QUEUE_PROTOCOL)
    assert d.severity == Severity.ERROR and "split_queue_methods.cpp:78" in d.message
    assert "cannot be enqueued or dequeued" in d.message
    wrong = replaced(freed, "        calcBuf.FreeTensor(tmp);\n",
                     "        calcBuf.FreeTensor(xLocal);\n")
    d = only(lint_texts(wrong), R.QUEUE_PROTOCOL)
    assert d.severity == Severity.ERROR and "TBuf's FreeTensor releases nothing" in d.message


# ---------------------------------------------------------------- TPipe and Matmul
def test_kernel_classes_in_tiling_key_branches_each_own_a_tpipe() -> None:
    diags = lint_texts(texts_of("tiling_key_classes.cpp"))
    assert R.SINGLE_TPIPE.value not in codes(diags)
    assert R.MATMUL_OBJECT_COUNT.value not in codes(diags)


def test_two_tpipes_on_one_path_name_both_declarations() -> None:
    texts = replaced(texts_of("tiling_key_classes.cpp"), "        KernelSmall op;\n",
                     "        TPipe pipe;\n        KernelSmall op;\n")
    d = only(lint_texts(texts), R.SINGLE_TPIPE)
    assert d.severity == Severity.ERROR
    assert "pipe (tiling_key_classes.cpp:78)" in d.message and "op.pipe" in d.message


def test_one_kernel_class_per_chip_header_is_one_tpipe() -> None:
    # Two headers an #ifdef picks between each define KernelCopy with a TPipe member: they are
    # alternatives, not two pipes (Ascend/samples Mmad); a second TPipe on the path still is.
    assert R.SINGLE_TPIPE.value not in codes(lint_texts(texts_of("per_chip_headers")))
    texts = replaced(texts_of("per_chip_headers"), "    KernelCopy op;\n",
                     "    TPipe extra;\n    KernelCopy op;\n")
    assert only(lint_texts(texts), R.SINGLE_TPIPE).severity == Severity.ERROR


def test_tpipe_declared_in_a_nested_block_after_another_ends_is_fine() -> None:
    line = "    GET_TILING_DATA(tilingData, tiling);\n"
    texts = replaced(texts_of("tiling_key_classes.cpp"), line,
                     line + "    {\n        TPipe warmup;\n    }\n")
    assert R.SINGLE_TPIPE.value not in codes(lint_texts(texts))


def test_five_matmul_objects_in_one_class_is_an_error() -> None:
    texts = replaced(texts_of("tiling_key_classes.cpp"), "    Matmul<A, A, C, C> mm2;\n",
                     "    Matmul<A, A, C, C> mm2;\n    Matmul<A, A, C, C> mm3;\n"
                     "    Matmul<A, A, C, C> mm4;\n")
    d = only(lint_texts(texts), R.MATMUL_OBJECT_COUNT)
    assert "KernelMm holds 5 Matmul objects" in d.message


def test_regist_matmul_obj_after_init_in_a_sibling_branch_is_fine() -> None:
    diags = lint_texts(texts_of("tiling_key_classes.cpp"))
    assert not [d for d in diags if "REGIST_MATMUL_OBJ" in d.message]


def test_regist_matmul_obj_after_init_on_one_path_is_a_warning() -> None:
    texts = replaced(texts_of("tiling_key_classes.cpp"), "        KernelMm2 op;\n",
                     "        KernelSmall first;\n        first.Init(x, 2048);\n"
                     "        KernelMm2 op;\n")
    found = [d for d in lint_texts(texts) if "REGIST_MATMUL_OBJ" in d.message]
    assert len(found) == 1 and found[0].severity == Severity.WARNING
    assert "Init (tiling_key_classes.cpp:" in found[0].message


# ---------------------------------------------------------------- positions
def test_bind_queue_tensor_copied_out_is_not_a_position_error() -> None:
    diags = lint_texts(texts_of("tiling_key_classes.cpp"))
    assert R.TENSOR_POSITION.value not in codes(diags)


def test_vecin_tensor_copied_out_is_a_warning_and_an_l0_tensor_an_error() -> None:
    texts = texts_of("tiling_key_classes.cpp")
    vecin = replaced(texts, "TQueBind<TPosition::VECIN, TPosition::VECOUT, 2> que;",
                     "TQue<TPosition::VECIN, 2> que;")
    assert only(lint_texts(vecin), R.TENSOR_POSITION).severity == Severity.WARNING
    l0a = replaced(texts, "TQueBind<TPosition::VECIN, TPosition::VECOUT, 2> que;",
                   "TQue<TPosition::A2, 2> que;")
    d = only(lint_texts(l0a), R.TENSOR_POSITION)
    assert d.severity == Severity.ERROR and "position A2" in d.message


# ---------------------------------------------------------------- tiling
def test_tiling_fields_of_keyed_structs_and_multiword_types_are_known() -> None:
    diags = lint_texts(texts_of("tiling_project"))
    assert R.TILING_MISMATCH.value not in codes(diags)


@pytest.mark.parametrize("size", ["MAX_SLICE + 1", "(2048 + 1)", "2 * KEYS"])
def test_array_fields_sized_by_an_expression_are_fields(size: str) -> None:
    # RecSDK concat_jagged_tensor: TILING_DATA_FIELD_DEF_ARR(uint32_t, MAX_SLICE_SIZE + 1, ...)
    texts = replaced(texts_of("tiling_project"), "  TILING_DATA_FIELD_DEF(uint32_t, splitCol);",
                     f"  TILING_DATA_FIELD_DEF_ARR(uint32_t, {size}, splitCol);")
    assert R.TILING_MISMATCH.value not in codes(lint_texts(texts))


def test_field_missing_from_the_struct_its_macro_names_is_an_error() -> None:
    texts = replaced(texts_of("tiling_project"), "wide.splitCol", "wide.splitCols")
    d = only(lint_texts(texts), R.TILING_MISMATCH)
    assert d.severity == Severity.ERROR and "NormCustomWideTilingData" in d.message
    assert "norm_custom_tiling.h:14" in d.message and "did you mean splitCol" in d.message


def test_host_setter_checked_against_its_own_struct() -> None:
    texts = replaced(texts_of("tiling_project"), "wide.set_splitCol(4096);",
                     "wide.set_epsilon(1.0f);")
    d = only(lint_texts(texts), R.TILING_MISMATCH)
    assert "sets epsilon on wide, a NormCustomWideTilingData" in d.message


def test_kernel_struct_with_other_type_names_but_same_sizes_matches() -> None:
    texts = replaced(texts_of("tiling_project"), "    uint32_t rowsPerCore;\n    float epsilon;",
                     "    uint16_t rowsPerCore;\n    float epsilon;")
    d = only(lint_texts(texts), R.TILING_MISMATCH)
    assert "rowsPerCore (2 B)" in d.message and "rowsPerCore (4 B)" in d.message


def test_parameter_order_of_a_directly_launched_kernel_is_the_callers() -> None:
    src = (PATTERNS / "tiling_key_classes.cpp").read_text().replace(
        "keyed_custom_v2(GM_ADDR x, GM_ADDR workspace, GM_ADDR tiling)",
        "keyed_custom_v2(GM_ADDR x, GM_ADDR workspace, GM_ADDR sync, GM_ADDR param)")
    assert R.TILING_MISMATCH.value not in codes(lint_texts({"k.cpp": src}))


def test_inputs_bound_out_of_opdef_order_are_a_warning_naming_the_binding() -> None:
    texts = replaced(texts_of("tiling_project"), "norm_custom(GM_ADDR x, GM_ADDR y,",
                     "norm_custom(GM_ADDR y, GM_ADDR x,")
    d = only(lint_texts(texts), R.TILING_MISMATCH)
    assert d.severity == Severity.WARNING and "y receives x" in d.message


# ---------------------------------------------------------------- buffers per layout
def test_buffers_of_alternative_branches_are_not_added_together() -> None:
    diags = lint_texts(texts_of("branch_layouts.cpp"))
    assert R.BUFFER_COUNT.value not in codes(diags)
    assert R.UB_OVERFLOW.value not in codes(diags)


def test_buffers_on_every_path_over_the_limit_are_an_error_listing_them() -> None:
    texts = replaced(texts_of("branch_layouts.cpp"), "        if (!wide) {\n",
                     "        pipe->InitBuffer(wideBuf, 70, 64);\n        if (!wide) {\n")
    d = only(lint_texts(texts), R.BUFFER_COUNT)
    assert d.severity == Severity.ERROR and "holds 70 buffers (wideBuf: 70" in d.message


def test_a_branch_over_the_buffer_limit_is_a_warning() -> None:
    texts = replaced(texts_of("branch_layouts.cpp"), "pipe->InitBuffer(wideBuf, 30,",
                     "pipe->InitBuffer(wideBuf, 62,")
    d = only(lint_texts(texts), R.BUFFER_COUNT)
    assert d.severity == Severity.WARNING and "may hold 66" in d.message


def test_count_is_checked_against_the_largest_layout_of_a_queue() -> None:
    diags = lint_texts(texts_of("branch_layouts.cpp"))
    assert R.COUNT_EXCEEDS_TENSOR.value not in codes(diags)


# ---------------------------------------------------------------- tail copies
TAIL_PAD_IN = "DataCopyPad(x, xGm[i * tile], params, DataCopyPadExtParams<float>{false, 0, 0, 0});"


def test_datacopy_of_a_runtime_tail_is_a_warning_with_the_datacopypad_fix() -> None:
    texts = replaced(texts_of("tail_copy.cpp"), TAIL_PAD_IN, "DataCopy(x, xGm[i * tile], count);")
    d = only(lint_texts(texts), R.DATACOPY_ALIGN)
    assert d.severity == Severity.WARNING
    assert "count = length - i * tile" in d.message and "8 elements" in d.message
    assert d.fix is not None
    fixed, diags = fix_and_relint(texts, R.DATACOPY_ALIGN.value)
    assert "DataCopyPad(x, xGm[i * tile], AscendC::DataCopyExtParams" in "".join(fixed.values())
    assert R.DATACOPY_ALIGN.value not in codes(diags) and errors(diags) == []


def test_datacopy_of_a_plain_tail_expression_is_a_warning() -> None:
    texts = replaced(texts_of("tail_copy.cpp"), TAIL_PAD_IN,
                     "DataCopy(x, xGm[i * tile], length - i * tile);")
    d = only(lint_texts(texts), R.DATACOPY_ALIGN)
    assert d.severity == Severity.WARNING and "(length - i * tile)" in d.message


def test_tail_rounded_to_whole_blocks_is_not_reported() -> None:
    texts = replaced(texts_of("tail_copy.cpp"), TAIL_PAD_IN, "DataCopy(x, xGm[i * tile], padded);")
    assert R.DATACOPY_ALIGN.value not in codes(lint_texts(texts))
    block = replaced(texts_of("tail_copy.cpp"), TAIL_PAD_IN,
                     "uint32_t block = 32 / sizeof(float);\n"
                     "            DataCopy(x, xGm[i * tile], count / block * block);")
    assert R.DATACOPY_ALIGN.value not in codes(lint_texts(block))


def test_runtime_count_that_is_not_a_tail_is_not_reported() -> None:
    texts = replaced(texts_of("tail_copy.cpp"), TAIL_PAD_IN, "DataCopy(x, xGm[i * tile], tile);")
    assert R.DATACOPY_ALIGN.value not in codes(lint_texts(texts))


def test_tail_from_tiling_fields_the_host_rounds_to_blocks_is_not_reported() -> None:
    """The kernel's last tile comes from a tiling field (through a pointer parameter); the host
    TilingFunc rounds the share and the tile to whole blocks, so the tail is whole blocks too
    (DrivingSDK's hypot). Without the host's rounding it is reported."""
    texts = texts_of("host_rounded_tail")
    assert R.DATACOPY_ALIGN.value not in codes(lint_texts(texts))
    rounded = "(share / TILES + BLOCK_ELEMS - 1) / BLOCK_ELEMS * BLOCK_ELEMS"
    unrounded = replaced(texts, rounded, "share / TILES")
    found = [d for d in lint_texts(unrounded) if d.code == R.DATACOPY_ALIGN.value]
    assert found and all(d.severity == Severity.WARNING for d in found)
    assert any("lastLength" in d.message for d in found)


def test_tail_of_constants_proved_unaligned_is_an_error() -> None:
    texts = replaced(texts_of("tail_copy.cpp"), TAIL_PAD_IN,
                     "DataCopy(x, xGm[i * tile], 1000 - 3 * 250);")
    d = only(lint_texts(texts), R.DATACOPY_ALIGN)
    assert d.severity == Severity.ERROR and "250 elements x 4 B = 1000 B" in d.message


# ---------------------------------------------------------------- unknown APIs
def test_project_macros_helpers_and_user_class_members_are_not_unknown_apis() -> None:
    assert R.UNKNOWN_API.value not in codes(lint_texts(texts_of("user_helpers.cpp")))


def test_member_template_called_with_the_template_keyword_is_the_api() -> None:
    """`u.template ReinterpretCast<uint32_t>()` (the `template` keyword a dependent call needs,
    DrivingSDK's furthest_point_sampling_with_dist) names LocalTensor's ReinterpretCast."""
    texts = replaced(texts_of("user_helpers.cpp"), "        pipe->Reset();\n",
                     "        auto bits = u.template ReinterpretCast<uint16_t>();\n"
                     "        auto wrong = u.template ReinterpretKast<uint16_t>();\n")
    found = [d for d in lint_texts(texts) if d.code == R.UNKNOWN_API.value]
    assert len(found) == 1 and "ReinterpretKast" in found[0].message, found


def test_ascendc_name_the_catalog_lacks_is_only_a_warning() -> None:
    texts = replaced(texts_of("user_helpers.cpp"), "        pipe->Reset();\n",
                     "        AscendC::ProposalConcat(u, u, 1, 0);\n"
                     "        u.SetAddrOffsetHint(0);\n")
    found = [d for d in lint_texts(texts) if d.code == R.UNKNOWN_API.value]
    assert found and all(d.severity == Severity.WARNING for d in found)


def test_ascendc_name_respelled_in_another_case_is_an_error_saying_so() -> None:
    texts = replaced(texts_of("user_helpers.cpp"), "        pipe->Reset();\n",
                     "        AscendC::Datacopy(yGm, u, 4096);\n")
    d = only(lint_texts(texts), R.UNKNOWN_API)
    assert d.severity == Severity.ERROR and "AscendC spells it DataCopy" in d.message


# ---------------------------------------------------------------- UB capacity
def test_whole_memory_tbufs_addressed_by_hand_are_only_a_warning() -> None:
    d = only(lint_texts(texts_of("self_addressed_ub.cpp")), R.UB_OVERFLOW)
    assert d.severity == Severity.WARNING and "GetWithOffset" in d.message


def test_whole_memory_tbufs_taken_whole_overflow_for_sure() -> None:
    texts = replaced(texts_of("self_addressed_ub.cpp"), "outBuf.GetWithOffset<float>(1024, 4096)",
                     "outBuf.Get<float>()")
    texts = replaced(texts, "inBuf.GetWithOffset<float>(1024, 0)", "inBuf.Get<float>()")
    assert only(lint_texts(texts), R.UB_OVERFLOW).severity == Severity.ERROR


# ---------------------------------------------------------------- chips, cores, tails
def test_datacopypad_under_another_chips_arch_condition_is_not_linted_on_910() -> None:
    # 910's build never compiles a `__CCE_AICORE__ == 220` branch: no finding there; a guard
    # lint cannot decide (a macro of the build) stays a warning, an unguarded call an error.
    src = (PATTERNS / "tail_copy.cpp").read_text()
    guarded = src.replace(
        "            " + TAIL_PAD_IN,
        "#if __CCE_AICORE__ == 220\n            " + TAIL_PAD_IN + "\n#endif")
    found = [d for d in lint_texts({"k.cpp": guarded}, chip="ascend910")
             if d.code == R.CHIP_SUPPORT.value]
    assert [d.severity.value for d in found] == ["error"]  # the unguarded copy-out
    undecided = src.replace(
        "            " + TAIL_PAD_IN,
        "#if defined(__DAV_C220_VEC__)\n            " + TAIL_PAD_IN + "\n#endif")
    found = [d for d in lint_texts({"k.cpp": undecided}, chip="ascend910")
             if d.code == R.CHIP_SUPPORT.value]
    assert sorted(d.severity.value for d in found) == ["error", "warning"]
    assert "__DAV_C220_VEC__" in next(d.message for d in found if d.severity == Severity.WARNING)


def test_include_guard_is_not_a_chip_condition() -> None:
    src = "#ifndef K_H\n#define K_H\n" + (PATTERNS / "tail_copy.cpp").read_text() + "#endif\n"
    found = [d for d in lint_texts({"k.cpp": src}, chip="ascend910")
             if d.code == R.CHIP_SUPPORT.value]
    assert found and all(d.severity == Severity.ERROR for d in found)


def test_bfloat16_in_a_nested_dtype_block_is_only_a_warning_on_310p() -> None:
    src = (PATTERNS / "tail_copy.cpp").read_text().replace(
        "            uint32_t padded = (count + 7) / 8 * 8;\n",
        "            uint32_t padded = (count + 7) / 8 * 8;\n"
        "            if (padded == 0) {\n                LocalTensor<bfloat16_t> unused;\n"
        "            }\n")
    found = [d for d in lint_texts({"k.cpp": src}, chip="ascend310p") if "bfloat16" in d.message]
    assert len(found) == 1 and found[0].severity == Severity.WARNING
    assert "nested block" in found[0].message


def test_mix_kernel_above_the_cube_cores_runs_in_waves_but_syncall_deadlocks() -> None:
    src = (PATTERNS / "tiling_key_classes.cpp").read_text() + "// kernelgen: block_dim=30\n"
    d = only(lint_texts({"k.cpp": src}), R.BLOCK_DIM)
    assert d.severity == Severity.WARNING and "24 AI cores (a mix kernel)" in d.message
    sync = src.replace("    op.Process();\n}\n", "    op.Process();\n    SyncAll();\n}\n")
    d = only(lint_texts({"k.cpp": sync}), R.BLOCK_DIM)
    assert d.severity == Severity.ERROR and "SyncAll (k.cpp:" in d.message


def test_last_core_taking_the_rest_is_a_tail_path() -> None:
    texts = corpus_texts("add_custom")
    shapes = [[1000], [1000]]
    assert R.MISSING_TAIL.value in codes(errors(lint_texts(texts, shapes=shapes)))
    rest = mutate(texts, "        this->tileNum = tileNum;\n",
                  "        this->tileNum = tileNum;\n"
                  "        if (GetBlockIdx() == GetBlockNum() - 1) {\n"
                  "            this->blockLength = totalLength\n"
                  "                - this->blockLength * GetBlockIdx();\n"
                  "        }\n")
    assert R.MISSING_TAIL.value not in codes(lint_texts(rest, shapes=shapes))


def test_mask_in_counter_mode_is_an_element_count() -> None:
    texts = texts_of("tail_copy.cpp")
    line = "            Abs(y, xIn, padded);\n"
    counter = replaced(texts, line, "            SetMaskCount();\n"
                       "            Abs(y, xIn, 1024, 1, {1, 1, 8, 8});\n"
                       "            SetMaskNorm();\n")
    assert R.MASK_RANGE.value not in codes(lint_texts(counter))
    normal = replaced(texts, line, "            Abs(y, xIn, 1024, 1, {1, 1, 8, 8});\n")
    assert R.MASK_RANGE.value in codes(lint_texts(normal))


# ---------------------------------------------------------------- project headers, physical UB
def test_headers_the_kernel_includes_are_linted_with_it(tmp_path: Path) -> None:
    root = PATTERNS / "launch_with_header"
    _, files = project_files(root / "scale_launch.cpp")
    assert [f.name for f in files] == ["scale_launch.cpp", "launch_consts.h"]
    assert errors(lint_path(root)) == []
    for f in files:  # the header's constant sizes the count check
        text = f.read_text().replace("BLOCKS_OF(HALF_BUF) * 8", "Elems(HALF_BUF) * 2")
        (tmp_path / f.name).write_text(text)
    d = only(lint_path(tmp_path / "scale_launch.cpp"), R.COUNT_EXCEEDS_TENSOR)
    assert "HALF_BUF = 65536 from launch_consts.h" in d.message


def test_ub_between_the_documented_and_the_physical_size_is_a_warning_on_910() -> None:
    src = (PATTERNS / "self_addressed_ub.cpp").read_text()
    src = src.replace("GetWithOffset<float>(1024, 0)", "Get<float>()").replace(
        "GetWithOffset<float>(1024, 4096)", "Get<float>()")
    fits = src.replace("196608", "131072")
    d = only(lint_texts({"k.cpp": fits}, chip="ascend910"), R.UB_OVERFLOW)
    assert d.severity == Severity.WARNING and "the whole UB is 262144 B" in d.message
    over = src.replace("196608", "140000")
    assert only(lint_texts({"k.cpp": over}, chip="ascend910"), R.UB_OVERFLOW).severity == (
        Severity.ERROR)


def test_tail_rounded_to_a_runtime_alignment_or_named_aligned_is_not_reported() -> None:
    texts = texts_of("tail_copy.cpp")
    rounded = replaced(texts, TAIL_PAD_IN, "DataCopy(x, xGm[i * tile], (count + tile - 1) / tile "
                       "* tile);")
    assert R.DATACOPY_ALIGN.value not in codes(lint_texts(rounded))
    named = replaced(texts, TAIL_PAD_IN, "uint32_t countAligned = count;\n"
                     "            DataCopy(x, xGm[i * tile], countAligned);")
    assert R.DATACOPY_ALIGN.value not in codes(lint_texts(named))


def test_tail_message_keeps_the_parentheses_of_the_source() -> None:
    texts = replaced(texts_of("tail_copy.cpp"), TAIL_PAD_IN,
                     "DataCopy(x, xGm[i * tile], length - tile * (tiles - 1));")
    assert "(length - tile * (tiles - 1))" in only(lint_texts(texts), R.DATACOPY_ALIGN).message


def _two_op_folder(grad_block_dim: int, grad_sync: bool) -> dict[str, str]:
    """A forward and its grad in one folder (DrivingSDK multi_scale_deformable_attn): the
    forward is a declared mix kernel with SyncAll on the 24 cube cores, the grad a vector
    kernel on `grad_block_dim` blocks."""
    host = """#include "register/op_def_registry.h"
namespace optiling {{
static ge::graphStatus {fn}(gert::TilingContext* context) {{
    context->SetBlockDim({bd});
    return ge::GRAPH_SUCCESS;
}}
}}
namespace ops {{
class {op} : public OpDef {{
  public:
    explicit {op}(const char* name) : OpDef(name) {{
        this->Input("x").ParamType(REQUIRED).DataType({{ge::DT_FLOAT}});
        this->Output("y").ParamType(REQUIRED).DataType({{ge::DT_FLOAT}});
        this->AICore().SetTiling(optiling::{fn});
    }}
}};
OP_ADD({op});
}}
"""
    kernel = """#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void {entry}(GM_ADDR x, GM_ADDR y, GM_ADDR ws, GM_ADDR tiling) {{
{body}}}
"""
    fwd_body = "    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);\n    SyncAll();\n"
    grad_body = "    SyncAll();\n" if grad_sync else "    int unused = 0;\n"
    return {
        "op_host/attn.cpp": host.format(fn="TilingFwd", bd=24, op="Attn"),
        "op_host/attn_grad.cpp": host.format(fn="TilingGrad", bd=grad_block_dim, op="AttnGrad"),
        "op_kernel/attn.cpp": kernel.format(entry="attn", body=fwd_body),
        "op_kernel/attn_grad.cpp": kernel.format(entry="attn_grad", body=grad_body),
    }


def test_each_op_of_a_folder_is_checked_with_its_own_block_dim_and_kernel() -> None:
    # The grad's blockDim 48 is not the forward's: the forward's SyncAll on 24 cube cores fits.
    assert R.BLOCK_DIM.value not in codes(lint_texts(_two_op_folder(48, grad_sync=False)))
    # A SyncAll in the grad with more blocks than its 48 vector cores is the grad's error.
    d = only(lint_texts(_two_op_folder(60, grad_sync=True)), R.BLOCK_DIM)
    assert d.severity == Severity.ERROR and d.file.endswith("attn_grad.cpp"), d
    assert "SyncAll (op_kernel/attn_grad.cpp:" in d.message, d.message


_SHADOW = """\
#include "kernel_operator.h"
using namespace AscendC;
class KernelRows {
public:
    __aicore__ inline void Init(GM_ADDR x, uint32_t rows) {
        rowNum = 342;
        xGm.SetGlobalBuffer((__gm__ float*)x, rowLength * rowNum);
        pipe.InitBuffer(que, 1, 5 * rowLength * sizeof(float));
    }
    __aicore__ inline void Process(uint32_t step) {
        for (uint32_t i = 0; i < rowNum; i += step) {
            CopyIn(i, step);
        }
    }
    __aicore__ inline void CopyIn(uint32_t progress, uint32_t rowNum) {
        LocalTensor<float> xLocal = que.AllocTensor<float>();
        DataCopy(xLocal, xGm[progress * rowLength], rowLength * rowNum);
        que.EnQue(xLocal);
    }
private:
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> que;
    GlobalTensor<float> xGm;
    uint32_t rowNum = 0;
    uint32_t rowLength = 1024;
};
"""


def test_a_parameter_shadows_the_member_of_its_name() -> None:
    # Ascend/samples LayerNorm kernel launch: CopyIn(progress, rowNum) copies rowLength * rowNum
    # of its parameter (at most 5), not of the member rowNum (342) it shadows.
    assert R.COUNT_EXCEEDS_TENSOR.value not in codes(lint_texts({"k.cpp": _SHADOW}))
    member = _SHADOW.replace("], rowLength * rowNum);", "], rowLength * this->rowNum);")
    assert R.COUNT_EXCEEDS_TENSOR.value in codes(lint_texts({"k.cpp": member}))
