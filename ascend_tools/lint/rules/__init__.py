"""Lint rules: each module holds one family; `ALL_RULES` is the order they run in."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ascend_tools.catalog.vendor import vendor_internal_source
from ascend_tools.diagnostics import Diagnostic
from ascend_tools.lint.context import LintContext
from ascend_tools.lint.rules import api, copy, cube, pipe, queue, sync, tiling, ub, vector

Rule = Callable[[LintContext], Iterable[Diagnostic]]

# Rules over one analysis unit (a kernel class with its methods, or a free function): their
# results are cached per unit and re-run only for the unit an edit touched.
UNIT_RULES: tuple[Rule, ...] = (
    ub.check_ub_capacity,
    ub.check_buffer_count,
    cube.check_cube_capacity,
    cube.check_cube_operands,
    cube.check_matmul_share,
    ub.check_tensors_per_position,
    copy.check_data_copies,
    vector.check_vector_calls,
    vector.check_gather_mask,
    vector.check_dtype_support,
    vector.check_cast_support,
    sync.check_pipe_hazards,
    sync.check_auto_sync_inline,
    queue.check_queue_protocol,
    api.check_unknown_api,
    api.check_vendor_internal,
    api.check_vendor_constants,
    api.check_chip_support,
)
# Rules over the whole project (host and kernel together), run on every lint.
PROJECT_RULES: tuple[Rule, ...] = (
    tiling.check_missing_tail,
    tiling.check_tiling_mismatch,
    tiling.check_block_dim,
    pipe.check_pipe_and_matmul,
    api.check_unknown_host_api,
    api.check_vendor_headers,
)
ALL_RULES: tuple[Rule, ...] = UNIT_RULES + PROJECT_RULES

# What each code the linter emits means (for hovers, code descriptions and the README).
RULE_DOCS: dict[str, str] = {
    "ub-overflow": "InitBuffer sizes on UB positions add up to more than the chip's Unified Buffer",
    "ub-near-limit": "UB use above 184 KB on 910B, where basic APIs keep scratch data",
    "buffer-count": "more than 64 buffers in a TPipe, or more tensors allocated at once at one "
                    "position than the chip allows (8, 4 on Ascend 910)",
    "datacopy-align": "DataCopy count * sizeof(T) not a multiple of 32 bytes (the NPU drops the "
                      "tail); a warning when a tail count may be unaligned",
    "ub-offset-align": "a UB operand local[off] whose byte offset is not 32-byte aligned",
    "count-exceeds-tensor": "a count larger than an operand's element count",
    "repeat-range": "repeatTimes above 255",
    "mask-range": "a mask above the lanes of one 256-byte repeat",
    "param-range": "DataCopy blockCount above 4095, Compare count not 256-byte aligned, a "
                   "reduction over 0 elements",
    "tensor-position": "a GlobalTensor as a vector operand, copies into or out of the wrong "
                       "queue position",
    "queue-protocol": "AllocTensor/EnQue/DeQue/FreeTensor out of order or missing, EnQue/DeQue "
    "on a TBuf, or FreeTensor of a tensor another queue gave (a warning when both queues have "
    "the same positions: the buffer returns to its owner)",
    "queue-depth": "more EnQue in flight than the queue's depth",
    "gm-extent": "a copy past the extent SetGlobalBuffer gave the GlobalTensor "
    "(a fault only past the allocation)",
    "block-dim": "blockDim outside [1, 65535], or above the core count",
    "single-tpipe": "two TPipes alive at once",
    "l1-overflow": "InitBuffer sizes on A1/B1/C1 (L1), with the Matmul API's own A1/B1 share "
                   "from its TCubeTiling, add up to more than the chip's L1 (512 KB on 910B, "
                   "1 MB on 910/310P)",
    "l0-overflow": "InitBuffer sizes on A2 (L0A), B2 (L0B) or CO1 (L0C), or one Matmul base "
                   "block, add up to more than that buffer on the chip (64 / 64 / 128 KB on 910B)",
    "matmul-object-count": "more than 4 Matmul objects in one REGIST_MATMUL_OBJ, one class or "
                           "alive at once on one path",
    "matmul-register-order": "REGIST_MATMUL_OBJ after an InitBuffer on the same path, on the "
                             "split-core chips where it must come first",
    "fractal-align": "a LoadData/Mmad/Fixpipe operand whose start breaks its memory's alignment "
                     "(L1 32 B, L0A/L0B 512 B, L0C 64 B: AscendC general restrictions, table 2), "
                     "or a Matmul TCubeTiling baseM/baseN not a multiple of 16 or baseK not of "
                     "C0 = 32 B / sizeof(A) (TCubeTiling: base blocks follow the fractal layout)",
    "chip-support": "an API or data type the chip does not have (DataCopyPad, bfloat16)",
    "missing-tail": "work divided by cores or tiles with no remainder path",
    "tiling-mismatch": "kernel and host tiling disagree (fields, layout, parameter order)",
    "unknown-api": "a call or member the API catalog does not know",
    "vendor-internal": "a helper CANN's kernel_operator.h defines but the AscendC API reference "
                       "does not document (DivCeil, AlignUp, two-argument Ceil, likely/unlikely, "
                       "ParamOffset), or a constant its headers declare that the project uses "
                       "undeclared (PI): it builds, and the emulator provides it, but a release "
                       "may drop it (catalog/tables/vendor_internal.json; reference searched: "
                       f"{vendor_internal_source()})",
    "pipe-hazard": "a read on one pipe (V, MTE2, MTE3, S; MTE1, M, FIX on the cube path) of "
                   "on-chip data another pipe wrote, "
                   "or a write of data another pipe still reads, with no SetFlag/WaitFlag, queue "
                   "EnQue/DeQue or PipeBarrier<PIPE_ALL> between",
    "dtype-support": "a vector API called on an element type the catalog does not list for it "
                     "on the chip (Exp on int32_t, Add on bfloat16_t), or a Cast pair or "
                     "RoundMode the chip's documented Cast table lacks",
    "operand-overlap": "a vector op whose source and destination overlap only partly (only "
                       "the same start, an in-place call, is allowed)",
    "workspace-size": "a ReduceSum/ReduceMax/ReduceMin sharedTmpBuffer below the documented "
                      "minimum (one element per 256-byte repeat, rounded up to 32 bytes)",
    "auto-sync-inline": "a non-inline __aicore__ function doing vector or scalar LocalTensor "
                        "work with no flag or barrier of its own: the compiler's automatic "
                        "synchronization (--cce-auto-sync) needs every function the kernel "
                        "calls to be inline",
    "gm-race": "a block reads or rewrites GM another block wrote with no SyncAll (or cross-core "
               "flag) between, other than atomic accumulation",
}
