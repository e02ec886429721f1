"""The case file the runner writes for the harness (format in `emu/README.md`)."""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, model_validator

from ascend_tools.chips import Chip, gm_allocation, gm_segments
from ascend_tools.reference import filled_bytes
from ascend_tools.toolchain.dtypes import get_dtype

AttrValue = bool | int | float | str | list[int] | list[float]


class CaseTensor(BaseModel):
    name: str
    dtype: str
    shape: list[int]
    slot: str = ""
    """Key of its data (runner inputs and outputs) and stem of its file; the name unless the
    case repeats the name (a dynamic list: `xs.0`, `xs.1`; an output named like an input:
    `x.out`). `Case` assigns it."""

    initial: float | bytes | None = None
    """Outputs: the value every element holds before the launch (`[binding.initial]`), or the
    raw bytes it holds (a reference argument fills it: `OutputBinding.prefill`); None: the
    harness's poison."""

    alias: str = ""
    """Outputs: the input whose buffer it is under another name (the case's `alias` record:
    it starts as that input and the kernel updates it in place); an output the op does not
    declare is that input read back after the launch."""

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * get_dtype(self.dtype).size

    @property
    def stem(self) -> str:
        return self.slot or self.name

    @property
    def file(self) -> str:
        return f"{self.stem}.bin"

    @property
    def initial_file(self) -> str:
        """The file of its initial bytes ("" when it starts as poison)."""
        return "" if self.initial is None else f"{self.stem}.initial.bin"


class CaseAttr(BaseModel):
    name: str
    type: str  # int, float, bool, str, list_int, list_float (OpDef attr types)
    value: AttrValue


CaseParamKind = Literal["input", "input_list", "output", "workspace", "tiling", "host", "null"]


class CaseParam(BaseModel):
    """One pointer parameter of a single-file entry, in entry order: the case input or output
    named `name` (an in-place parameter is its output, which starts as the input of its name),
    every case input named `name` as one tensor-list descriptor (`input_list`), the
    harness's workspace or tiling buffer, (`host`, `name` the entry parameter's index) the
    buffer the host program passed there at its launch, or a null pointer (`null`: the
    reference passes None there)."""

    kind: CaseParamKind
    name: str = ""
    fallback: Literal["tiling"] | None = None
    """(`host`) the harness's buffer to take where the host program passes none there."""


class Case(BaseModel):
    """One launch: chip, op, entry, tensors in binding order and attributes in OpDef order;
    `params`: a single-file entry's pointer parameters (None: inputs, outputs, then a trailing
    workspace and tiling as the entry's arity asks)."""

    chip: Chip
    op: str | None
    kernel: str
    block_dim: int | None = None
    inputs: list[CaseTensor]
    outputs: list[CaseTensor]
    attrs: list[CaseAttr] = []
    params: list[CaseParam] | None = None

    @model_validator(mode="after")
    def _distinct_files(self) -> Case:
        """Every tensor gets its own file even where names repeat (see `CaseTensor.slot`)."""
        input_names = {t.name for t in self.inputs}
        for tensors, kind in ((self.inputs, ""), (self.outputs, ".out")):
            count = Counter(t.name for t in tensors)
            seen: Counter[str] = Counter()
            for t in tensors:
                stem = t.name + (kind if kind and t.name in input_names else "")
                t.slot = f"{stem}.{seen[t.name]}" if count[t.name] > 1 else stem
                seen[t.name] += 1
        for p in self.params or []:
            self.param_slot(p)
        return self

    def param_slot(self, p: CaseParam) -> str:
        """The `params` word of `p`: its tensor's stem, `workspace`/`tiling`, or a tensor
        list's stems in brackets (`[xs.0,xs.1]`)."""
        if p.kind in ("workspace", "tiling", "null"):
            return p.kind
        if p.kind == "host":
            return f"host:{p.name}" + (f":{p.fallback}" if p.fallback else "")
        found = [t.stem for t in (self.outputs if p.kind == "output" else self.inputs)
                 if t.name == p.name]
        if p.kind == "input_list":
            if not found:
                raise ValueError(f"param {p.name}: no case inputs of that name")
            return "[" + ",".join(found) + "]"
        if len(found) != 1:
            raise ValueError(f"param {p.name}: {len(found)} case {p.kind}s of that name, not 1")
        return found[0]


def _attr_text(a: CaseAttr) -> str:
    v = a.value
    if a.type == "bool":
        return f"bool {int(bool(v))}"
    if a.type == "int":
        return f"int {int(v)}"  # type: ignore[arg-type]
    if a.type == "float":
        return f"float {float(v)!r}"  # type: ignore[arg-type]
    if a.type == "str":
        text = str(v)
        if not text or any(c.isspace() for c in text):
            raise ValueError(f"attr {a.name}: string attributes must be non-empty without spaces")
        return f"str {text}"
    if a.type in ("list_int", "list_float"):
        items = list(v)  # type: ignore[arg-type]
        conv = int if a.type == "list_int" else float
        return " ".join([a.type, str(len(items)), *(repr(conv(x)) for x in items)])
    raise ValueError(f"attr {a.name}: unsupported attribute type {a.type!r}")


def chip_fields(c: Chip) -> list[str]:
    """The fields of the case file's `chip` line, in the harness's order."""
    return [
        str(v)
        for v in (
            c.name,
            c.soc_version,
            c.cce_aicore,
            c.ub_bytes,
            c.ub_safe_bytes,
            c.l1_bytes,
            c.l0a_bytes,
            c.l0b_bytes,
            c.l0c_bytes,
            c.cube_cores,
            c.vector_cores,
            int(c.split_cores),
            c.max_tensors_per_position,
            int(c.has_datacopypad),
            int(c.has_bf16),
            int(c.local_address_wrap),
        )
    ]


def case_text(case: Case) -> str:
    lines = [
        "chip " + " ".join(chip_fields(case.chip)),
        "gm_block " + " ".join(map(str, gm_allocation())),
        "gm_segment " + " ".join(map(str, gm_segments())),
        f"op {case.op or '-'}",
        f"kernel {case.kernel}",
    ]
    if case.block_dim is not None:
        lines.append(f"block_dim {case.block_dim}")
    for kind, tensors in (("input", case.inputs), ("output", case.outputs)):
        for t in tensors:
            dims = " ".join(map(str, t.shape))
            fields = (kind, t.name, t.dtype, str(len(t.shape)), dims, t.file, t.initial_file)
            lines.append(" ".join(x for x in fields if x))
    lines += [f"alias {t.name} {t.alias}" for t in case.outputs if t.alias]
    lines += [f"attr {a.name} {_attr_text(a)}" for a in case.attrs]
    if case.params is not None:
        lines.append(" ".join(["params", *(case.param_slot(p) for p in case.params)]))
    return "\n".join(lines) + "\n"


def write_case(directory: Path, case: Case, inputs: dict[str, bytes]) -> Path:
    """Writes `case.txt`, one raw file per input (`inputs` keyed by `CaseTensor.stem`) and one
    per output with an initial value into `directory`; returns the case path."""
    for t in case.inputs:
        data = inputs[t.stem]
        if len(data) != t.nbytes:
            raise ValueError(
                f"input {t.name}: {len(data)} bytes given, shape {t.shape} needs {t.nbytes}"
            )
        (directory / t.file).write_bytes(data)
    for t in case.outputs:
        if isinstance(t.initial, bytes):
            if len(t.initial) != t.nbytes:
                raise ValueError(
                    f"output {t.name}: {len(t.initial)} initial bytes given, shape {t.shape} "
                    f"needs {t.nbytes}"
                )
            (directory / t.initial_file).write_bytes(t.initial)
        elif t.initial is not None:
            (directory / t.initial_file).write_bytes(filled_bytes(t.dtype, t.shape, t.initial))
    path = directory / "case.txt"
    path.write_text(case_text(case))
    return path
