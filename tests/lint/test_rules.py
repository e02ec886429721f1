"""Each rule: a failing kernel (a one-line change to a correct corpus kernel) and the passing
original; where the rule offers a fix, the fix is applied and the result re-linted clean."""

from __future__ import annotations

from ascend_tools.diagnostics import RuleCode, Severity
from tests.lint.helpers import (
    CORPUS,
    codes,
    corpus_texts,
    errors,
    fix_and_relint,
    lint_texts,
    mutate,
)

R = RuleCode


def kernel_text(texts: dict[str, str]) -> str:
    return next(t for p, t in texts.items() if "op_kernel" in p)
CORPUS_DIR = CORPUS


def _only(diags, code: RuleCode):
    found = [d for d in diags if d.code == code.value]
    assert found, f"no {code.value} among {[d.compiler_style() for d in diags]}"
    return found


# ---------------------------------------------------------------- UB capacity
def test_ub_overflow_reports_total_with_its_sources_and_fix_shrinks_the_tile() -> None:
    ok = corpus_texts("leaky_relu_tail")
    bad = mutate(ok, "TILE_LENGTH = 4096;", "TILE_LENGTH = 32768;")
    d = _only(lint_texts(bad), R.UB_OVERFLOW)[0]
    assert d.severity == Severity.ERROR
    assert "524288 B" in d.message and "196608 B" in d.message
    assert "TILE_LENGTH = 32768" in d.message and "inQueue: 2 x 131072 B" in d.message
    assert d.fix is not None and "TILE_LENGTH" in d.fix.title
    _, diags = fix_and_relint(bad, R.UB_OVERFLOW.value)
    assert errors(diags) == []
    assert R.UB_NEAR_LIMIT.value not in codes(diags)
    assert R.UB_OVERFLOW.value not in codes(lint_texts(ok))


def test_ub_overflow_depends_on_the_chip() -> None:
    texts = mutate(corpus_texts("leaky_relu_tail"), "TILE_LENGTH = 4096;", "TILE_LENGTH = 14336;")
    assert R.UB_OVERFLOW.value in codes(lint_texts(texts, chip="ascend910b2"))
    assert R.UB_OVERFLOW.value not in codes(lint_texts(texts, chip="ascend310p"))


def test_ub_near_limit_warns_above_184_kb_on_910b() -> None:
    bad = mutate(corpus_texts("leaky_relu_tail"), "TILE_LENGTH = 4096;", "TILE_LENGTH = 12288;")
    d = _only(lint_texts(bad), R.UB_NEAR_LIMIT)[0]
    assert d.severity == Severity.WARNING and "188416 B" in d.message
    _, diags = fix_and_relint(bad, R.UB_NEAR_LIMIT.value)
    assert R.UB_NEAR_LIMIT.value not in codes(diags) and errors(diags) == []
    assert R.UB_NEAR_LIMIT.value not in codes(lint_texts(bad, chip="ascend310p"))


def test_ub_overflow_from_host_tiling_names_the_host_line() -> None:
    texts = corpus_texts("add_custom")
    bad = mutate(texts, "const uint32_t TILE_NUM = 8;", "const uint32_t TILE_NUM = 1;")
    d = _only(lint_texts(bad, shapes=[[64, 8192], [64, 8192]]), R.UB_OVERFLOW)[0]
    assert "op_host/add_custom.cpp" in d.message and "test binding" in d.message
    _, diags = fix_and_relint(bad, R.UB_OVERFLOW.value, shapes=[[64, 8192], [64, 8192]])
    assert R.UB_OVERFLOW.value not in codes(diags)


def test_buffer_count_above_64_per_pipe() -> None:
    ok = corpus_texts("reduce_sum_rows")
    bad = mutate(ok, "pipe->InitBuffer(outQueue, 1, ROWS_PER_CORE * sizeof(float));",
                 "pipe->InitBuffer(outQueue, 70, ROWS_PER_CORE * sizeof(float));")
    assert _only(lint_texts(bad), R.BUFFER_COUNT)[0].severity == Severity.ERROR
    assert R.BUFFER_COUNT.value not in codes(lint_texts(ok))


# ---------------------------------------------------------------- data copies
def test_datacopy_align_error_and_datacopypad_fix() -> None:
    ok = corpus_texts("reduce_sum_rows")
    bad = mutate(ok, "COLS = 1024;", "COLS = 1001;")
    d = _only(lint_texts(bad), R.DATACOPY_ALIGN)[0]
    assert "1001 elements x 4 B = 4004 B" in d.message and "COLS = 1001" in d.message
    fixed, diags = fix_and_relint(bad, R.DATACOPY_ALIGN.value)
    assert "DataCopyPad(xLocal, xGm[r * COLS]" in "".join(fixed.values())
    assert errors(diags) == []
    assert R.DATACOPY_ALIGN.value not in codes(lint_texts(ok))


def test_datacopy_align_has_no_datacopypad_fix_where_the_chip_lacks_it() -> None:
    bad = mutate(corpus_texts("reduce_sum_rows"), "COLS = 1024;", "COLS = 1001;")
    d = _only(lint_texts(bad, chip="ascend910"), R.DATACOPY_ALIGN)[0]
    assert d.fix is None


def test_datacopy_into_a_vecout_tensor_is_a_position_error() -> None:
    ok = corpus_texts("softmax_rows")
    bad = mutate(ok, "LocalTensor<float> xLocal = inQueue.AllocTensor<float>();\n        "
                 "DataCopy(xLocal", "LocalTensor<float> xLocal = outQueue.AllocTensor<float>();\n"
                 "        DataCopy(xLocal")
    assert R.TENSOR_POSITION.value in codes(lint_texts(bad))
    assert R.TENSOR_POSITION.value not in codes(lint_texts(ok))


def test_datacopy_params_block_count_above_4095() -> None:
    ok = corpus_texts("leaky_relu_tail")
    bad = mutate(ok, "DataCopyExtParams params{1, static_cast<uint32_t>(len * sizeof(float)), 0, 0,"
                 " 0};\n        DataCopyPadExtParams",
                 "DataCopyExtParams params{5000, static_cast<uint32_t>(len * sizeof(float)), 0, 0,"
                 " 0};\n        DataCopyPadExtParams")
    assert R.PARAM_RANGE.value in codes(lint_texts(bad))
    assert R.PARAM_RANGE.value not in codes(lint_texts(ok))


# ---------------------------------------------------------------- vector calls
def test_ub_offset_alignment_of_operands() -> None:
    ok = corpus_texts("softmax_rows")
    bad = mutate(ok, "Exp(yLocal, yLocal, COLS);", "Exp(yLocal[3], yLocal[3], COLS - 8);")
    d = _only(lint_texts(bad), R.UB_OFFSET_ALIGN)[0]
    assert "12 B" in d.message
    good = mutate(ok, "Exp(yLocal, yLocal, COLS);", "Exp(yLocal[8], yLocal[8], COLS - 8);")
    assert R.UB_OFFSET_ALIGN.value not in codes(lint_texts(good))


def test_count_exceeds_tensor_size() -> None:
    ok = corpus_texts("softmax_rows")
    bad = mutate(ok, "Exp(yLocal, yLocal, COLS);", "Exp(yLocal, yLocal, COLS * 2);")
    d = _only(lint_texts(bad), R.COUNT_EXCEEDS_TENSOR)[0]
    assert "4096" in d.message and "2048" in d.message
    assert R.COUNT_EXCEEDS_TENSOR.value not in codes(lint_texts(ok))


def test_repeat_times_above_255() -> None:
    ok = corpus_texts("softmax_rows")
    bad = mutate(ok, "Exp(yLocal, yLocal, COLS);",
                 "Mul(yLocal, yLocal, yLocal, 64, 300, {1, 1, 1, 8, 8, 8});")
    assert _only(lint_texts(bad), R.REPEAT_RANGE)[0].severity == Severity.ERROR
    good = mutate(ok, "Exp(yLocal, yLocal, COLS);",
                  "Mul(yLocal, yLocal, yLocal, 64, 32, {1, 1, 1, 8, 8, 8});")
    assert R.REPEAT_RANGE.value not in codes(lint_texts(good))


def test_mask_above_lanes_per_repeat() -> None:
    ok = corpus_texts("softmax_rows")
    bad = mutate(ok, "Exp(yLocal, yLocal, COLS);",
                 "Mul(yLocal, yLocal, yLocal, 128, 16, {1, 1, 1, 8, 8, 8});")
    assert "64 lanes" in _only(lint_texts(bad), R.MASK_RANGE)[0].message
    good = mutate(ok, "Exp(yLocal, yLocal, COLS);",
                  "Mul(yLocal, yLocal, yLocal, 64, 32, {1, 1, 1, 8, 8, 8});")
    assert R.MASK_RANGE.value not in codes(lint_texts(good))


def test_reduce_count_zero_is_a_param_range_error() -> None:
    ok = corpus_texts("softmax_rows")
    bad = mutate(ok, "ReduceSum<float>(red, yLocal, work, COLS);",
                 "ReduceSum<float>(red, yLocal, work, 0);")
    assert R.PARAM_RANGE.value in codes(lint_texts(bad))


def test_compare_count_off_whole_repeats_is_a_warning() -> None:
    ok = corpus_texts("softmax_rows")
    line = "Exp(yLocal, yLocal, COLS);"
    bad = mutate(ok, line, line + "\n        Compare(red, xLocal, yLocal, CMPMODE::LT, 40);")
    [d] = [d for d in lint_texts(bad) if d.code == R.PARAM_RANGE.value]
    assert d.severity == Severity.WARNING and "not a multiple of 256 B" in d.message
    good = mutate(ok, line, line + "\n        Compare(red, xLocal, yLocal, CMPMODE::LT, 64);")
    assert R.PARAM_RANGE.value not in codes(lint_texts(good))


def test_global_tensor_as_vector_operand_is_a_position_error() -> None:
    ok = corpus_texts("softmax_rows")
    bad = mutate(ok, "Exp(yLocal, yLocal, COLS);", "Exp(yLocal, xGm, COLS);")
    assert "GlobalTensor" in _only(lint_texts(bad), R.TENSOR_POSITION)[0].message


# ---------------------------------------------------------------- queues
def test_missing_free_tensor_is_fixed_by_inserting_it() -> None:
    ok = corpus_texts("softmax_rows")
    bad = mutate(ok, "        outQueue.FreeTensor(yLocal);\n", "")
    d = _only(lint_texts(bad), R.QUEUE_PROTOCOL)[0]
    assert "FreeTensor" in d.message and d.fix is not None
    fixed, diags = fix_and_relint(bad, R.QUEUE_PROTOCOL.value)
    assert "outQueue.FreeTensor(yLocal);" in "".join(fixed.values())
    assert errors(diags) == []


def test_free_tensor_through_another_queue_names_the_owning_queue() -> None:
    """FreeTensor pairs with the same queue's AllocTensor; ds_points_in_box frees its two VECIN
    buffers through each other's queue."""
    ok = corpus_texts("softmax_rows")
    bad = mutate(ok, "inQueue.FreeTensor(xLocal);", "outQueue.FreeTensor(xLocal);")
    msgs = [d.message for d in lint_texts(bad) if d.code == R.QUEUE_PROTOCOL.value]
    assert any("outQueue.FreeTensor(xLocal) frees a tensor of inQueue" in m for m in msgs), msgs
    assert not any("frees a tensor of" in d.message for d in lint_texts(ok))


def test_free_through_a_queue_of_the_same_position_is_a_warning() -> None:
    """Two VECIN queues freeing each other's tensor (DrivingSDK points_in_box): each block goes
    back to the queue that owns it and the release synchronises the same way, so nothing is
    observable; lint says so as a warning, with the evidence."""
    ok = corpus_texts("add_custom")
    swapped = mutate(ok, "inQueueX.FreeTensor(xLocal);\n        inQueueY.FreeTensor(yLocal);",
                     "inQueueX.FreeTensor(yLocal);\n        inQueueY.FreeTensor(xLocal);")
    found = [d for d in lint_texts(swapped) if d.code == R.QUEUE_PROTOCOL.value]
    assert [d.severity for d in found] == [Severity.WARNING, Severity.WARNING], found
    assert "inQueueX.FreeTensor(yLocal) frees a tensor of inQueueY" in found[0].message
    assert "both are VECIN queues" in found[0].message


def test_enqueue_without_dequeue_and_tbuf_enqueue() -> None:
    ok = corpus_texts("reduce_sum_rows")
    bad = mutate(ok, "LocalTensor<float> yLocal = outQueue.DeQue<float>();",
                 "LocalTensor<float> yLocal = yLocalSaved;")
    assert R.QUEUE_PROTOCOL.value in codes(lint_texts(bad))
    tbuf = mutate(ok, "LocalTensor<float> sum = sumBuf.Get<float>();",
                  "LocalTensor<float> sum = sumBuf.Get<float>();\n        sumBuf.EnQue(sum);")
    assert "TBuf" in _only(lint_texts(tbuf), R.QUEUE_PROTOCOL)[0].message
    assert R.QUEUE_PROTOCOL.value not in codes(lint_texts(ok))


def test_queue_depth_exceeded_by_back_to_back_enqueues() -> None:
    ok = corpus_texts("gelu_cast")
    bad = mutate(ok, "TQue<QuePosition::VECIN, 2> inQueue;",
                 "TQue<QuePosition::VECIN, 1> inQueue;")
    bad = mutate(bad, "inQueue.EnQue(xLocal);\n",
                 "inQueue.EnQue(xLocal);\n"
                 "        LocalTensor<half> x2 = inQueue.AllocTensor<half>();\n"
                 "        inQueue.EnQue(x2);\n")
    assert R.QUEUE_DEPTH.value in codes(lint_texts(bad))
    assert R.QUEUE_DEPTH.value not in codes(lint_texts(ok))


# ---------------------------------------------------------------- tiling
def test_missing_tail_warns_without_shapes_and_errors_on_indivisible_shapes() -> None:
    texts = corpus_texts("add_custom")
    assert _only(lint_texts(texts), R.MISSING_TAIL)[0].severity == Severity.WARNING
    d = _only(lint_texts(texts, shapes=[[1000], [1000]]), R.MISSING_TAIL)[0]
    assert d.severity == Severity.ERROR and "125 / 8" in d.message
    assert "op_host/add_custom.cpp" in d.message
    assert R.MISSING_TAIL.value not in codes(lint_texts(texts, shapes=[[8, 2048], [8, 2048]]))
    assert R.MISSING_TAIL.value not in codes(lint_texts(corpus_texts("leaky_relu_tail")))


def test_kernel_reading_an_undefined_tiling_field() -> None:
    ok = corpus_texts("add_custom")
    bad = mutate(ok, "tiling_data.totalLength", "tiling_data.totalLen")
    d = _only(lint_texts(bad), R.TILING_MISMATCH)[0]
    assert "totalLen" in d.message and "did you mean totalLength" in d.message
    assert R.TILING_MISMATCH.value not in codes(lint_texts(ok))


def test_kernel_parameter_order() -> None:
    ok = corpus_texts("add_custom")
    swapped = mutate(ok, "void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace,\n"
                     "                                                 GM_ADDR tiling)",
                     "void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR tiling,\n"
                     "                                                 GM_ADDR workspace)")
    assert "workspace, tiling" in _only(lint_texts(swapped), R.TILING_MISMATCH)[0].message
    _, diags = fix_and_relint(swapped, R.TILING_MISMATCH.value)
    assert R.TILING_MISMATCH.value not in codes(diags)
    reordered = mutate(ok, "void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z,",
                       "void add_custom(GM_ADDR x, GM_ADDR z, GM_ADDR y,")
    assert "OpDef order" in _only(lint_texts(reordered), R.TILING_MISMATCH)[0].message
    fixed, diags = fix_and_relint(reordered, R.TILING_MISMATCH.value)
    assert R.TILING_MISMATCH.value not in codes(diags)
    assert "add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR workspace," in kernel_text(fixed)


def test_workspace_and_tiling_are_the_last_two_parameters_whatever_their_names() -> None:
    """The framework passes workspace and tiling after the OpDef's tensors by position, so a
    kernel's `tiling_data` (DrivingSDK's graph_softmax) or `tilingGm` is the tiling pointer, not
    one more tensor."""
    ok = corpus_texts("add_custom")
    renamed = mutate(ok, "GM_ADDR z, GM_ADDR workspace,\n", "GM_ADDR z, GM_ADDR usrWorkspace,\n")
    renamed = mutate(renamed, "                                                 GM_ADDR tiling)",
                     "                                                 GM_ADDR tilingGm)")
    renamed = mutate(renamed, "GET_TILING_DATA(tiling_data, tiling)",
                     "GET_TILING_DATA(tiling_data, tilingGm)")
    assert R.TILING_MISMATCH.value not in codes(lint_texts(renamed))
    extra = mutate(renamed, "GM_ADDR z, GM_ADDR usrWorkspace,", "GM_ADDR z, GM_ADDR w, "
                   "GM_ADDR usrWorkspace,")
    message = _only(lint_texts(extra), R.TILING_MISMATCH)[0].message
    assert "kernel takes 4 tensor parameters (x, y, z, w)" in message


GRAD_OPDEF = """namespace ops {
class AddCustomGrad : public OpDef {
public:
    explicit AddCustomGrad(const char* name) : OpDef(name)
    {
        this->Input("dz").ParamType(REQUIRED).DataType({ge::DT_FLOAT});
        this->Output("dx").ParamType(REQUIRED).DataType({ge::DT_FLOAT});
    }
};
OP_ADD(AddCustomGrad);
}
"""


def test_the_kernel_is_checked_against_its_own_opdef_in_a_folder_of_several_ops() -> None:
    """DrivingSDK keeps an op and its grad in one folder: add_custom pairs with AddCustom (its
    kernel name), not with the OpDef read first; its own mismatch is still found."""
    ok = corpus_texts("add_custom")
    host = next(p for p in ok if p.endswith("op_host/add_custom.cpp"))
    both = {host.replace("add_custom.cpp", "add_custom_grad.cpp"): GRAD_OPDEF, **ok}
    assert R.TILING_MISMATCH.value not in codes(lint_texts(both))
    extra = mutate(both, "GM_ADDR z, GM_ADDR workspace,",
                   "GM_ADDR z, GM_ADDR w, GM_ADDR workspace,")
    message = _only(lint_texts(extra), R.TILING_MISMATCH)[0].message
    assert "OpDef declares 3 (x, y, z)" in message


def test_opdef_parameters_in_another_chips_branch_are_not_counted() -> None:
    """fbgemm-ascend's offsets_range declares its Input/Output twice, under `#ifdef SUPPORT_950`
    and `#else`: the build compiles one of them."""
    ok = corpus_texts("add_custom")
    branched = mutate(ok, '        this->Output("z")', '#ifdef SUPPORT_950\n'
                      '        this->Output("z").ParamType(REQUIRED).DataType({ge::DT_BF16});\n'
                      '#else\n        this->Output("z")')
    branched = mutate(branched, "        this->SetInferShape(ge::InferShape);",
                      "#endif\n        this->SetInferShape(ge::InferShape);")
    assert R.TILING_MISMATCH.value not in codes(lint_texts(branched))


def test_block_dim_range_and_core_count() -> None:
    ok = corpus_texts("add_custom")
    huge = mutate(ok, "BLOCK_DIM = 8;", "BLOCK_DIM = 70000;")
    assert _only(lint_texts(huge), R.BLOCK_DIM)[0].severity == Severity.ERROR
    waves = mutate(ok, "BLOCK_DIM = 8;", "BLOCK_DIM = 64;")
    d = _only(lint_texts(waves), R.BLOCK_DIM)[0]
    assert d.severity == Severity.WARNING and "48 vector cores" in d.message
    sync = mutate(waves, "op.Process();", "op.Process();\n    SyncAll();")
    assert _only(lint_texts(sync), R.BLOCK_DIM)[0].severity == Severity.ERROR
    assert R.BLOCK_DIM.value not in codes(lint_texts(ok))


# ---------------------------------------------------------------- pipe, matmul
def test_two_tpipes_alive() -> None:
    ok = corpus_texts("softmax_rows")
    bad = mutate(ok, "    TPipe pipe;\n    KernelSoftmax op;", "    TPipe pipe;\n    TPipe other;\n"
                 "    KernelSoftmax op;")
    assert R.SINGLE_TPIPE.value in codes(lint_texts(bad))
    assert R.SINGLE_TPIPE.value not in codes(lint_texts(ok))


def test_regist_matmul_obj_after_init_buffer() -> None:
    ok = corpus_texts("matmul_custom")
    bad = mutate(ok, "    REGIST_MATMUL_OBJ(", "    TBuf<TPosition::VECCALC> tmp;\n"
                 "    pipe.InitBuffer(tmp, 1024);\n    REGIST_MATMUL_OBJ(")
    assert "REGIST_MATMUL_OBJ" in _only(lint_texts(bad), R.MATMUL_REGISTER_ORDER)[0].message
    assert R.MATMUL_REGISTER_ORDER.value not in codes(lint_texts(ok))


# ---------------------------------------------------------------- APIs and chips
def test_unknown_member_names_closest_and_fix_renames() -> None:
    ok = corpus_texts("softmax_rows")
    bad = mutate(ok, "inQueue.EnQue(xLocal);", "inQueue.EnQueue(xLocal);")
    d = _only(lint_texts(bad), R.UNKNOWN_API)[0]
    assert "no member named EnQueue in TQue" in d.message and "EnQue" in d.message
    assert d.column > 1 and d.end_column - d.column == len("EnQueue")
    _, diags = fix_and_relint(bad, R.UNKNOWN_API.value)
    assert errors(diags) == []
    assert R.UNKNOWN_API.value not in codes(lint_texts(ok))


def test_unknown_free_function_names_closest() -> None:
    ok = corpus_texts("softmax_rows")
    bad = mutate(ok, "Exp(yLocal, yLocal, COLS);", "AscendC::Exps(yLocal, yLocal, COLS);")
    d = _only(lint_texts(bad), R.UNKNOWN_API)[0]
    assert "did you mean" in d.message and "Exp" in d.message
    _, diags = fix_and_relint(bad, R.UNKNOWN_API.value)
    assert R.UNKNOWN_API.value not in codes(diags)


def test_datacopypad_is_a_chip_support_error_on_910() -> None:
    texts = corpus_texts("leaky_relu_tail")
    assert R.CHIP_SUPPORT.value in codes(lint_texts(texts, chip="ascend910"))
    assert R.CHIP_SUPPORT.value in codes(lint_texts(texts, chip="ascend310p"))
    assert R.CHIP_SUPPORT.value not in codes(lint_texts(texts, chip="ascend910b2"))


def test_bfloat16_is_a_chip_support_error_on_310p() -> None:
    texts = mutate(corpus_texts("rms_norm"), "KernelRmsNorm<half> op;",
                   "KernelRmsNorm<bfloat16_t> op;")
    assert R.CHIP_SUPPORT.value in codes(lint_texts(texts, chip="ascend310p"))
    assert R.CHIP_SUPPORT.value not in codes(lint_texts(texts, chip="ascend910b2"))


# ---------------------------------------------------------------- no false positives
def test_member_set_in_init_wins_over_its_default_initialiser() -> None:
    src = (CORPUS_DIR / "softmax_rows.cpp").read_text()
    src = src.replace("uint32_t rowCount = 0;", "uint32_t rowCount = 0;\n    uint32_t cols = 0;")
    src = src.replace("pipe = pipeIn;", "pipe = pipeIn;\n        cols = COLS;")
    src = src.replace("Exp(yLocal, yLocal, COLS);", "Exp(yLocal, yLocal, cols);")
    assert errors(lint_texts({"k.cpp": src})) == []


def test_helpers_that_are_not_ascendc_are_not_unknown_apis() -> None:
    src = (CORPUS_DIR / "softmax_rows.cpp").read_text().replace(
        "Exp(yLocal, yLocal, COLS);",
        "Exp(yLocal, yLocal, COLS);\n        MY_MACRO(yLocal);\n        helper_fn(1);\n"
        "        std::max(1, 2);\n        kernelgen::read_bytes(0);")
    src = src.replace("constexpr int32_t BUFFER_NUM = 2;",
                      "constexpr int32_t BUFFER_NUM = 2;\n#define MY_MACRO(x) (void)(x)")
    assert R.UNKNOWN_API.value not in codes(lint_texts({"k.cpp": src}))


def test_one_tpipe_per_function_is_fine_across_functions() -> None:
    src = (CORPUS_DIR / "softmax_rows.cpp").read_text()
    src += "\nvoid other_kernel() {\n    TPipe pipe;\n}\n"
    assert R.SINGLE_TPIPE.value not in codes(lint_texts({"k.cpp": src}))


def test_kernel_side_tiling_struct_must_match_the_host_fields() -> None:
    ok = corpus_texts("add_custom")
    struct = "struct AddCustomTilingData {\n    uint32_t tileNum;\n    uint32_t totalLength;\n};\n"
    anchor = "constexpr int32_t BUFFER_NUM = 2;"
    bad = mutate(ok, anchor, struct + anchor)
    d = _only(lint_texts(bad), R.TILING_MISMATCH)[0]
    assert "wrong offsets" in d.message
    good = mutate(ok, "constexpr int32_t BUFFER_NUM = 2;",
                  struct.replace("tileNum;\n    uint32_t totalLength", "totalLength;\n    uint32_t "
                                 "tileNum") + "constexpr int32_t BUFFER_NUM = 2;")
    assert R.TILING_MISMATCH.value not in codes(lint_texts(good))


def test_unknown_members_through_call_chains_in_host_and_kernel() -> None:
    ok = corpus_texts("add_custom")
    host = mutate(ok, "GetStorageShape().GetShapeSize()", "GetStorageShap().GetShapeSize()")
    d = _only(lint_texts(host), R.UNKNOWN_API)[0]
    assert d.severity == Severity.WARNING and "in StorageShape" in d.message
    assert d.fix is not None and d.fix.edits[0].new_text == "GetStorageShape"
    assert "op_host" in d.file
    soft = corpus_texts("softmax_rows")
    chain = mutate(soft, "FetchEventID(HardEvent::V_S)", "FetchEventId(HardEvent::V_S)")
    d = _only(lint_texts(chain), R.UNKNOWN_API)[0]
    assert d.severity == Severity.ERROR and "in TPipe" in d.message and "FetchEventID" in d.message
    assert R.UNKNOWN_API.value not in codes(lint_texts(ok) + lint_texts(soft))


def test_more_tensors_allocated_at_one_position_than_the_chip_allows() -> None:
    ok = corpus_texts("add_custom")
    extra = "".join(
        f"        LocalTensor<DTYPE_X> t{i} = inQueueX.AllocTensor<DTYPE_X>();\n" for i in range(3)
    )
    anchor = "        LocalTensor<DTYPE_Y> yLocal = inQueueY.AllocTensor<DTYPE_Y>();\n"
    bad = mutate(ok, anchor, anchor + extra)
    d = _only(lint_texts(bad, chip="ascend910"), R.BUFFER_COUNT)[0]
    assert "5 tensors of position VECIN" in d.message and "allows 4" in d.message
    assert R.BUFFER_COUNT.value not in codes(lint_texts(bad, chip="ascend910b2"))
    assert R.BUFFER_COUNT.value not in codes(lint_texts(ok, chip="ascend910"))


def test_gm_access_past_the_set_global_buffer_extent_is_a_warning() -> None:
    # #8 (apply_rotary_pos_emb_ms): the NPU does not check the extent, so a copy past it faults
    # only past the allocation, which lint does not know: gm-extent, never an error.
    ok = corpus_texts("add_custom")
    shapes = [[8, 2048], [8, 2048]]
    copy_out = "DataCopy(zGm[progress * this->tileLength], zLocal, this->tileLength);"
    bad = mutate(ok, copy_out,
                 "DataCopy(zGm[progress * this->tileLength + 8], zLocal, this->tileLength);")
    d = _only(lint_texts(bad, shapes=shapes), R.GM_EXTENT)[0]
    assert d.severity == Severity.WARNING
    assert "writes zGm" in d.message and "up to element 2056" in d.message
    assert "2048 elements" in d.message and "offset 8..1928" in d.message
    assert R.GM_EXTENT.value not in codes(lint_texts(ok, shapes=shapes))
    copy_in = "DataCopy(xLocal, xGm[progress * this->tileLength], this->tileLength);"
    fixed_offset = mutate(ok, copy_in, "DataCopy(xLocal, xGm[2000], this->tileLength);")
    diags = lint_texts(fixed_offset, shapes=shapes)
    d = _only(diags, R.GM_EXTENT)[0]
    assert d.severity == Severity.WARNING
    assert "reads xGm[2000]" in d.message and "past the 2048 elements" in d.message
    assert "the NPU does not check that size" in d.message
    assert R.GM_OUT_OF_BOUNDS.value not in codes(diags)


def test_unqualified_unknown_function_is_only_a_warning() -> None:
    ok = corpus_texts("softmax_rows")
    bad = mutate(ok, "Exp(yLocal, yLocal, COLS);", "Exps(yLocal, yLocal, COLS);")
    d = _only(lint_texts(bad), R.UNKNOWN_API)[0]
    assert d.severity == Severity.WARNING and "Exp" in d.message


def test_tensors_allocated_together_in_one_branch_body_count_as_a_warning() -> None:
    # #8: DrivingSDK's roi_align_rotated_v2 allocates 21 VECCALC tensors at once inside
    # `if (rois_num_per_core > 0) { ... }`; before, allocations under a branch were not counted.
    ok = corpus_texts("add_custom")
    extra = "".join(
        f"            LocalTensor<DTYPE_X> t{i} = inQueueX.AllocTensor<DTYPE_X>();\n"
        for i in range(5)
    )
    anchor = "        LocalTensor<DTYPE_Y> yLocal = inQueueY.AllocTensor<DTYPE_Y>();\n"
    bad = mutate(ok, anchor, anchor + "        if (progress >= 0) {\n" + extra + "        }\n")
    d = _only(lint_texts(bad, chip="ascend910"), R.BUFFER_COUNT)[0]
    assert d.severity == Severity.WARNING
    assert "5 tensors of position VECIN" in d.message and "whenever this branch runs" in d.message
    assert R.BUFFER_COUNT.value not in codes(lint_texts(bad, chip="ascend910b2"))


def test_veccalc_queue_tensors_past_the_position_limit_are_a_warning() -> None:
    # #8: the limit is the pool of events queue buffers hold between pipes; a VECCALC queue
    # crosses no pipe, so holding more than the chip's count is not a proved fault.
    ok = corpus_texts("add_custom")
    decl = "".join(f"    TQue<TPosition::VECCALC, 1> calc{i};\n" for i in range(5))
    init = "".join(f"        pipe.InitBuffer(calc{i}, 1, 256);\n" for i in range(5))
    alloc = "".join(
        f"        LocalTensor<DTYPE_X> c{i} = calc{i}.AllocTensor<DTYPE_X>();\n" for i in range(5)
    )
    free = "".join(f"        calc{i}.FreeTensor(c{i});\n" for i in range(5))
    anchor = "        LocalTensor<DTYPE_Y> yLocal = inQueueY.AllocTensor<DTYPE_Y>();\n"
    bad = mutate(ok, anchor, anchor + alloc + free)
    bad = mutate(bad, "    TPipe pipe;\n", "    TPipe pipe;\n" + decl)
    first_init = "        pipe.InitBuffer(inQueueX,"
    bad = mutate(bad, first_init, init + first_init)
    d = _only(lint_texts(bad, chip="ascend910"), R.BUFFER_COUNT)[0]
    assert d.severity == Severity.WARNING
    assert "5 tensors of position VECCALC" in d.message and "crosses no pipe" in d.message


ROUNDED_BUFFER = """#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void rounded(GM_ADDR x, GM_ADDR y) {
    TPipe pipe;
    TQue<QuePosition::VECIN, 1> inQ;
    GlobalTensor<float> xGm, yGm;
    xGm.SetGlobalBuffer((__gm__ float*)x, 64);
    yGm.SetGlobalBuffer((__gm__ float*)y, 64);
    pipe.InitBuffer(inQ, 1, 8);
    LocalTensor<float> box = inQ.AllocTensor<float>();
    DataCopy(box, xGm, COUNT);
    inQ.EnQue(box);
    box = inQ.DeQue<float>();
    DataCopy(yGm, box, 8);
    inQ.FreeTensor(box);
}
"""


def test_count_is_checked_against_the_32_byte_block_initbuffer_reserves() -> None:
    # InitBuffer(inQ, 1, 8) reserves one 32-byte block (as the emulator does): 8 floats fit
    # (DrivingSDK border_align_grad passes 8, meaning elements, as the length in bytes), 16 do not.
    fits = lint_texts({"/k/rounded.cpp": ROUNDED_BUFFER.replace("COUNT", "8")})
    assert R.COUNT_EXCEEDS_TENSOR.value not in codes(fits)
    over = lint_texts({"/k/rounded.cpp": ROUNDED_BUFFER.replace("COUNT", "16")})
    d = _only(over, R.COUNT_EXCEEDS_TENSOR)[0]
    assert "16" in d.message and "8 elements" in d.message


def test_a_count_past_a_source_warns_and_past_the_dst_is_an_error() -> None:
    """Reading past a source tensor reads the UB bytes that follow, as the NPU does (it checks no
    LocalTensor length; Compare/CompareScalar counts of whole 256-byte repeats do it routinely):
    a warning, as in the emulator. Writing past the dst overwrites another buffer: an error."""
    ok = corpus_texts("softmax_rows")
    line = "Exp(yLocal, yLocal, COLS);"
    call = "\n        CompareScalar(red, xLocal[2032], 0.0f, CMPMODE::LT, {});"
    for count in (64, 128):
        past = mutate(ok, line, line + call.format(count))
        diags = [d for d in lint_texts(past) if d.code == R.COUNT_EXCEEDS_TENSOR.value]
        assert [d.severity for d in diags] == [Severity.WARNING], count
        assert f"count {count} exceeds the 16 elements of xLocal[2032]" in diags[0].message
        assert "reads the UB bytes that follow" in diags[0].message
    written = mutate(ok, line, line + "\n        Adds(xLocal[2032], yLocal, 1.0f, 64);")
    assert R.COUNT_EXCEEDS_TENSOR.value in codes(lint_texts(written), Severity.ERROR)


def _gather_mask(pattern: str, reduce_mode: str, mask: int, chip: str = "ascend910b2") -> list[str]:
    ok = corpus_texts("softmax_rows")
    line = "Exp(yLocal, yLocal, COLS);"
    call = (f"\n        uint64_t cnt = 0;\n        GatherMask(yLocal, xLocal, {pattern}, "
            f"{reduce_mode}, {mask}, {{1, 2, 12, 0}}, cnt);")
    diags = lint_texts(mutate(ok, line, line + call), chip=chip)
    return [d.code for d in diags if d.code in (R.PARAM_RANGE.value, R.MASK_RANGE.value)]


def test_gather_mask_counter_mask_may_span_more_than_a_repeat() -> None:
    assert _gather_mask("1", "true", 96) == []  # A2: 96 lanes a repeat (API reference)
    assert _gather_mask("1", "false", 0) == []  # Normal mode ignores mask
    assert _gather_mask("1", "true", 0) == [R.MASK_RANGE.value]


def test_gather_mask_builtin_pattern_range_follows_the_chip() -> None:
    assert _gather_mask("7", "false", 0) == []
    assert _gather_mask("8", "false", 0) == [R.PARAM_RANGE.value]
    assert _gather_mask("7", "false", 0, chip="ascend310p") == [R.PARAM_RANGE.value]
