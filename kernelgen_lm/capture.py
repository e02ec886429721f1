"""Capture: a KernelBench-format PyTorch file -> a core-ATen op graph with shapes and dtypes.

The file defines `Model`, `get_inputs()` and `get_init_inputs()`. It is exported with
`torch.export` and decomposed to the core ATen op set. Kernel inputs are the forward inputs,
then the module's parameters and buffers in `named_parameters()`/`named_buffers()` order
(docs/ARCHITECTURE.md, test binding); outputs are the forward's tensor outputs in order.
"""

from __future__ import annotations

import logging
import re
import warnings
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from ascend_tools import reference

# The dtypes the lowering can declare (lower/host.py GE_DTYPE); others are refused here.
LOWERABLE_DTYPES = frozenset(
    ("float32", "float16", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "bool")
)
DTYPE_NAMES = {t: n for t, n in reference.DTYPE_NAMES.items() if n in LOWERABLE_DTYPES}


GENERIC_STEMS = ("ref", "reference", "model", "stub")


class CaptureError(ValueError):
    """The stub cannot be captured; the message names the op or construct and the line."""


class NodeRef(BaseModel):
    """A reference to another node's (or placeholder's) value, by name."""

    ref: str


# NodeRef, a scalar, None, or a (nested) list of those.
ArgValue = Any


class TensorSpec(BaseModel):
    name: str
    shape: list[int]
    dtype: str
    kind: Literal["input", "parameter", "buffer"] = "input"
    target: str = ""


class OpNode(BaseModel):
    """One call in the exported graph: `name = target(*args)`."""

    name: str
    target: str
    args: list[ArgValue]
    kwargs: dict[str, ArgValue] = {}
    shape: list[int] | None = None
    dtype: str | None = None
    line: int | None = None


class CapturedGraph(BaseModel):
    op_name: str
    source: str
    inputs: list[TensorSpec]
    nodes: list[OpNode]
    outputs: list[str]
    init_values: list[Any] = []
    # The same forward before decomposition to core ATen: the ops PyTorch eager launches (one
    # fused kernel for mse_loss, softmax, layer_norm, ...), for the modelled eager baseline.
    eager_nodes: list[OpNode] = []

    def input_names(self) -> list[str]:
        return [t.name for t in self.inputs]

    def node(self, name: str) -> OpNode | None:
        return next((n for n in self.nodes if n.name == name), None)


def load_module(path: Path) -> reference.Reference:
    """The stub as a loaded KernelBench reference; its errors become CaptureError."""
    try:
        return reference.load_reference(path)
    except reference.ReferenceError as e:
        raise CaptureError(str(e)) from None


def _dtype(value: Any) -> str:
    name = DTYPE_NAMES.get(value)
    if name is None:
        raise CaptureError(f"unsupported dtype {value}")
    return name


def _user_line(stack: str | None, path: Path) -> int | None:
    if not stack:
        return None
    hits = re.findall(r'File "([^"]+)", line (\d+)', stack)
    for file, line in reversed(hits):
        if Path(file).name == path.name:
            return int(line)
    return None


def _arg(value: Any) -> ArgValue:
    import torch

    if isinstance(value, torch.fx.Node):
        return NodeRef(ref=value.name)
    if isinstance(value, (list, tuple)):
        return [_arg(v) for v in value]
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, torch.dtype):
        return _dtype(value)
    if isinstance(value, (torch.device, torch.layout, torch.memory_format)):
        return str(value)
    raise CaptureError(f"unsupported argument of type {type(value).__name__}")


def camel(stem: str) -> str:
    parts = [p for p in re.split(r"[^0-9a-zA-Z]+", stem) if p]
    name = "".join(p[:1].upper() + p[1:] for p in parts) or "Op"
    if name[0].isdigit():
        name = "Op" + name
    return name + "Custom"


def capture(path: Path) -> CapturedGraph:
    """Exports the stub's Model on its own example inputs and decomposes to core ATen."""
    import torch

    module = load_module(path)
    try:
        init = module.init_inputs()
        model = module.model_cls(*init)
        example = list(module.get_inputs())
    except Exception as e:
        raise CaptureError(f"{path}: building the model or its inputs failed: {e}") from None
    if not all(isinstance(t, torch.Tensor) for t in example):
        raise CaptureError(f"{path}: get_inputs() must return tensors only")
    model.eval()
    # torch logs failed meta kernels at ERROR level before raising; the raised error is reported.
    logging.getLogger("torch._subclasses.fake_tensor").setLevel(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            eager = torch.export.export(model, tuple(example), strict=False)
            exported = eager.run_decompositions()
    except Exception as e:
        text = str(e).strip().splitlines()
        line = next((ln for ln in text if path.name in ln), "")
        first = text[0] if text else type(e).__name__
        hint = ""
        if "data-dependent" in str(e).lower() or "guard" in str(e).lower():
            hint = " (data-dependent control flow is not supported)"
        raise CaptureError(f"{path}: torch.export failed{hint}: {first} {line}".strip()) from None

    sig = exported.graph_signature
    kinds: dict[str, tuple[str, str]] = {}
    for spec in sig.input_specs:
        kind = spec.kind.name
        arg_name = getattr(spec.arg, "name", "")
        if kind == "USER_INPUT":
            kinds[arg_name] = ("input", "")
        elif kind == "PARAMETER":
            kinds[arg_name] = ("parameter", spec.target or "")
        elif kind == "BUFFER":
            kinds[arg_name] = ("buffer", spec.target or "")
        else:
            raise CaptureError(f"{path}: unsupported graph input kind {kind} ({arg_name})")

    user: list[TensorSpec] = []
    params: dict[str, TensorSpec] = {}
    nodes: list[OpNode] = []
    outputs: list[str] = []
    for node in exported.graph.nodes:
        val = node.meta.get("val")
        if node.op == "placeholder":
            kind, target = kinds.get(node.name, ("input", ""))
            if not isinstance(val, torch.Tensor):
                raise CaptureError(f"{path}: input {node.name} is not a tensor")
            spec = TensorSpec(
                name=node.name,
                shape=list(val.shape),
                dtype=_dtype(val.dtype),
                kind=kind,
                target=target,
            )
            (user.append(spec) if kind == "input" else params.__setitem__(target, spec))
        elif node.op == "call_function":
            nodes.append(_op_node(node, path))
        elif node.op == "output":
            for out in node.args[0]:
                if not isinstance(out, torch.fx.Node):
                    raise CaptureError(f"{path}: forward must return tensors only")
                outputs.append(out.name)
    # Parameters and buffers follow the forward inputs, in named_parameters/named_buffers order.
    ordered = [n for n, _ in model.named_parameters()] + [n for n, _ in model.named_buffers()]
    extra = [params[t] for t in ordered if t in params]
    scalars = [v for v in init if isinstance(v, (bool, int, float))]
    return CapturedGraph(
        op_name=camel(path.parent.name if path.stem in GENERIC_STEMS else path.stem),
        source=str(path),
        inputs=user + extra,
        nodes=nodes,
        outputs=outputs,
        init_values=scalars,
        eager_nodes=[_op_node(n, path) for n in eager.graph.nodes if n.op == "call_function"],
    )


def _op_node(node: Any, path: Path) -> OpNode:
    """One `call_function` node of an exported FX graph."""
    import torch

    val = node.meta.get("val")
    tensor = isinstance(val, torch.Tensor)
    return OpNode(
        name=node.name,
        target=str(node.target),
        args=[_arg(a) for a in node.args],
        kwargs={k: _arg(v) for k, v in node.kwargs.items()},
        shape=list(val.shape) if tensor else None,
        dtype=_dtype(val.dtype) if tensor else None,
        line=_user_line(node.meta.get("stack_trace"), path),
    )
