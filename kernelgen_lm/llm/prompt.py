"""Chat prompts for writing and repairing an AscendC kernel.

The system message fixes the answer format (`tagged.py`) and the rules the emulator enforces;
the task message carries the reference, its shapes and dtypes, the plan summary, the API
reference entries and retrieved examples. A repair turn appends the model's previous answer
and a concise account of what failed, so the model sees its own code next to the errors.
"""

from __future__ import annotations

from pydantic import BaseModel

from ascend_tools.chips import Chip
from kernelgen_lm.backends import ChatMessage
from kernelgen_lm.llm.examples import Example
from kernelgen_lm.llm.tagged import FORMAT_EXAMPLE, render_files

# The last line of each user turn; a model (and the test model) keys its behaviour on them.
TASK_CLOSING = (
    "Reason first inside <reasoning>...</reasoning>, then write every file of the project as "
    '<file path="...">...</file> blocks.'
)
REPAIR_CLOSING = (
    "Reason about each failure above inside <reasoning>...</reasoning>, then write the complete "
    'corrected files as <file path="...">...</file> blocks.'
)
MAX_PREVIOUS_ANSWER_CHARS = 12000

SYSTEM_TEMPLATE = """You write AscendC kernels for Huawei Ascend NPUs.

Target chip: {chip}.

Answer format, exactly:
{format_example}

Layout: the msopgen project `op_host/<op>_tiling.h`, `op_host/<op>.cpp` (TilingFunc reads the
input shapes, OpDef) and `op_kernel/<op>.cpp` (entry parameters: inputs, outputs, workspace,
tiling). Paths are relative to the project. The validator runs two trials, each also at other
shapes (leading dim + 3, last dim + 1): sizes must come from the shapes, never be constants. (A
single file `<op>.cpp` whose entry takes `GM_ADDR` inputs then outputs, first line
`// kernelgen: block_dim=N`, only passes if it reads no fixed sizes.)

Rules the validator enforces:
- `#include "kernel_operator.h"`, namespace AscendC, entry `extern "C" __global__ __aicore__ void`.
- DataCopy moves a multiple of 32 bytes; use DataCopyPad for unaligned lengths{pad_note}.
- UB offsets used as operands are 32-byte aligned; sum of UB buffers (num * len) <= {ub} bytes
  (keep under {ub_safe} bytes).
- Queue protocol: AllocTensor -> EnQue -> DeQue -> FreeTensor.
- Pipes run concurrently: between a DataCopy into a TBuf and a vector op reading it, a vector op
  and a DataCopy out of its result, or GetValue/SetValue and the vector unit, put
  SetFlag/WaitFlag<HardEvent::MTE2_V / V_MTE3 / V_S / S_V> (queues EnQue/DeQue do this).
- Blocks run concurrently: reading GM another block wrote needs SyncAll() between.
- Each vector API has documented element types (no Exp/Ln/Div on int32_t, no bfloat16_t
  arithmetic: Cast to float first).
- GM->UB copies go into VECIN, UB->GM copies come from VECOUT.
- Vector count <= every operand's size; repeatTimes <= 255; one TPipe.
- Handle tails: lengths that do not divide evenly across blocks and tiles must still be exact.
- Only APIs that exist: names that do not exist are the most common compile error."""


def chip_facts(chip: Chip) -> str:
    return (
        f"{chip.name} ({chip.arch}, __CCE_AICORE__={chip.cce_aicore}), UB {chip.ub_bytes} bytes, "
        f"L1 {chip.l1_bytes} bytes, {chip.vector_cores} vector cores, {chip.cube_cores} cube "
        f"cores, {'split' if chip.split_cores else 'coupled'} cube/vector cores, "
        f"DataCopyPad {'available' if chip.has_datacopypad else 'NOT available'}, "
        f"bfloat16 {'supported' if chip.has_bf16 else 'NOT supported'}"
    )


class PromptContext(BaseModel):
    """Everything the task turn shows, already gathered and rendered."""

    op_name: str
    reference_source: str
    signature: str = ""
    plan_summary: str | None = None
    api_reference: list[str] = []
    examples: list[Example] = []


def system_message(chip: Chip) -> ChatMessage:
    text = SYSTEM_TEMPLATE.format(
        chip=chip_facts(chip),
        format_example=FORMAT_EXAMPLE,
        pad_note="" if chip.has_datacopypad else " (not on this chip: pad the tiling instead)",
        ub=chip.ub_bytes,
        ub_safe=chip.ub_safe_bytes,
    )
    return ChatMessage(role="system", content=text)


def task_message(ctx: PromptContext) -> ChatMessage:
    parts = [
        f"Write an AscendC kernel named `{ctx.op_name}` that computes the same outputs as this "
        "PyTorch reference (inputs bind to kernel inputs in order, then parameters and buffers; "
        "outputs to kernel outputs in order):",
        f"```python\n{ctx.reference_source.rstrip()}\n```",
    ]
    if ctx.signature:
        parts.append(f"Inputs and parameters of the reference:\n{ctx.signature}")
    if ctx.plan_summary:
        parts.append(
            f"Plan from the rule-based planner (follow it where it helps):\n{ctx.plan_summary}"
        )
    if ctx.api_reference:
        parts.append(
            "AscendC API reference (only these signatures are known to exist):\n"
            + "\n".join(ctx.api_reference)
        )
    for ex in ctx.examples:
        parts.append(
            f"Example of a validated kernel ({ex.name}), for this reference:\n"
            f"```python\n{ex.reference.rstrip()}\n```\n{render_files(ex.files)}"
        )
    parts.append(TASK_CLOSING)
    return ChatMessage(role="user", content="\n\n".join(parts))


def initial_messages(ctx: PromptContext, chip: Chip) -> list[ChatMessage]:
    return [system_message(chip), task_message(ctx)]


def _clip(answer: str) -> str:
    if len(answer) <= MAX_PREVIOUS_ANSWER_CHARS:
        return answer
    half = MAX_PREVIOUS_ANSWER_CHARS // 2
    return answer[:half] + "\n[... answer shortened ...]\n" + answer[-half:]


def repair_messages(
    history: list[ChatMessage], previous_answer: str, feedback: str
) -> list[ChatMessage]:
    """The conversation so far plus the failed answer and what the validator said about it."""
    turn = (
        "Your files were validated on the emulator and failed:\n\n"
        f"{feedback.strip()}\n\n{REPAIR_CLOSING}"
    )
    return [
        *history,
        ChatMessage(role="assistant", content=_clip(previous_answer)),
        ChatMessage(role="user", content=turn),
    ]
