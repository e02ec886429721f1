"""The diagnostic vocabulary shared by the emulator, the toolchain and the static analyzer.

Rule codes are one kebab-case vocabulary: a runtime failure recorded by the emulator and a
static finding of the linter for the same mistake carry the same code. Lines and columns are
1-based (compiler style); the language server converts to LSP's 0-based positions.
"""

from __future__ import annotations

from enum import Enum

from pydantic import BaseModel


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    HINT = "hint"


class RuleCode(str, Enum):
    # Runtime rules (docs/ASCENDC_SPEC.md section 7), checked by the emulator and, where possible,
    # by lint.
    UB_OVERFLOW = "ub-overflow"
    BUFFER_COUNT = "buffer-count"
    QUEUE_PROTOCOL = "queue-protocol"
    QUEUE_DEPTH = "queue-depth"
    DATACOPY_ALIGN = "datacopy-align"
    UB_OFFSET_ALIGN = "ub-offset-align"
    COUNT_EXCEEDS_TENSOR = "count-exceeds-tensor"
    REPEAT_RANGE = "repeat-range"
    MASK_RANGE = "mask-range"
    TENSOR_POSITION = "tensor-position"
    GM_OUT_OF_BOUNDS = "gm-out-of-bounds"
    GM_EXTENT = "gm-extent"  # past the SetGlobalBuffer size, inside the allocation (warning)
    # a read past the allocation's block, inside the allocator's segment (warning, emulator)
    GM_READ_PAST_ALLOCATION = "gm-read-past-allocation"
    BLOCK_DIM = "block-dim"
    SINGLE_TPIPE = "single-tpipe"
    CHIP_SUPPORT = "chip-support"
    PARAM_RANGE = "param-range"
    PIPE_HAZARD = "pipe-hazard"  # a read on one pipe of data another pipe wrote, unordered
    DTYPE_SUPPORT = "dtype-support"  # an element type the API does not have on the chip
    OPERAND_OVERLAP = "operand-overlap"  # source and destination share UB only partly
    WORKSPACE_SIZE = "workspace-size"  # a work buffer below the API's documented minimum
    GM_RACE = "gm-race"  # a block reads or rewrites GM another block wrote, with no SyncAll
    L1_OVERFLOW = "l1-overflow"  # InitBuffer on A1/B1/C1 (L1) past the chip's L1
    L0_OVERFLOW = "l0-overflow"  # InitBuffer on A2/B2/CO1 past the chip's L0A/L0B/L0C
    MATMUL_OBJECT_COUNT = "matmul-object-count"  # more than 4 Matmul objects
    MATMUL_REGISTER_ORDER = "matmul-register-order"  # REGIST_MATMUL_OBJ after InitBuffer
    FRACTAL_ALIGN = "fractal-align"  # a cube operand or Matmul base block off the fractal layout
    # Runs that hang or die.
    TIMEOUT = "timeout"
    ASSERT_FAILED = "assert-failed"  # a kernel's ASSERT / assert(expr, ...) evaluated false
    CRASH = "crash"
    # Static-only rules.
    MISSING_TAIL = "missing-tail"
    TILING_MISMATCH = "tiling-mismatch"
    TILING_FAILED = "tiling-failed"  # the host TilingFunc (or TilingParse) returned failure
    INFER_SHAPE = "infer-shape"  # InferShape/InferDataType disagree with the expected outputs
    UNKNOWN_API = "unknown-api"
    AUTO_SYNC_INLINE = "auto-sync-inline"  # auto-sync relied on inside a non-inline function
    VENDOR_INTERNAL = "vendor-internal"  # an undocumented helper of CANN's headers (warning)
    UB_NEAR_LIMIT = "ub-near-limit"
    # Toolchain.
    COMPILE_ERROR = "compile-error"
    COMPILE_WARNING = "compile-warning"


class TextRange(BaseModel):
    """A span in a file; 1-based lines and columns, end exclusive."""

    line: int
    column: int = 1
    end_line: int
    end_column: int = 1


class TextEdit(BaseModel):
    file: str
    range: TextRange
    new_text: str


class Fix(BaseModel):
    title: str
    edits: list[TextEdit]


class Diagnostic(BaseModel):
    file: str
    line: int
    column: int = 1
    end_line: int
    end_column: int = 1
    severity: Severity
    code: str
    message: str
    source: str
    fix: Fix | None = None

    @property
    def range(self) -> TextRange:
        return TextRange(
            line=self.line, column=self.column, end_line=self.end_line, end_column=self.end_column
        )

    def compiler_style(self) -> str:
        """`file:line:col: severity: message [code]`, the format editors and CI logs parse."""
        where = f"{self.file}:{self.line}:{self.column}"
        return f"{where}: {self.severity.value}: {self.message} [{self.code}]"
