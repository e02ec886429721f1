"""Which AscendC APIs a prompt should document, as data: torch names -> catalog entry names.

Every prompt gets the skeleton APIs; a torch function, method or module named in the
reference adds the vector APIs that usually implement it (docs/ASCENDC_SPEC.md sections 3-5).
"""

from __future__ import annotations

import re

SKELETON_APIS: tuple[str, ...] = (
    "TPipe",
    "TQue",
    "TBuf",
    "GlobalTensor",
    "LocalTensor",
    "InitBuffer",
    "AllocTensor",
    "EnQue",
    "DeQue",
    "FreeTensor",
    "SetGlobalBuffer",
    "DataCopy",
    "DataCopyPad",
    "GetBlockIdx",
    "GetBlockNum",
)

TORCH_TO_ASCENDC: dict[str, tuple[str, ...]] = {
    "add": ("Add", "Adds"),
    "sub": ("Sub", "Adds"),
    "mul": ("Mul", "Muls"),
    "div": ("Div", "Muls", "Reciprocal"),
    "maximum": ("Max",),
    "minimum": ("Min",),
    "clamp": ("Maxs", "Mins"),
    "relu": ("Relu",),
    "ReLU": ("Relu",),
    "leaky_relu": ("LeakyRelu",),
    "LeakyReLU": ("LeakyRelu",),
    "exp": ("Exp",),
    "log": ("Ln",),
    "abs": ("Abs",),
    "sqrt": ("Sqrt",),
    "rsqrt": ("Rsqrt",),
    "reciprocal": ("Reciprocal",),
    "sigmoid": ("Sigmoid", "Exp", "Adds", "Reciprocal"),
    "Sigmoid": ("Sigmoid", "Exp", "Adds", "Reciprocal"),
    "tanh": ("Tanh",),
    "Tanh": ("Tanh",),
    "gelu": ("Gelu",),
    "GELU": ("Gelu",),
    "softmax": ("ReduceMax", "Exp", "ReduceSum", "Div", "WholeReduceMax", "WholeReduceSum"),
    "Softmax": ("ReduceMax", "Exp", "ReduceSum", "Div", "WholeReduceMax", "WholeReduceSum"),
    "sum": ("ReduceSum", "WholeReduceSum"),
    "mean": ("ReduceSum", "Muls"),
    "amax": ("ReduceMax",),
    "max": ("ReduceMax", "Max"),
    "min": ("ReduceMin", "Min"),
    "where": ("Compare", "Select"),
    "to": ("Cast",),
    "float": ("Cast",),
    "half": ("Cast",),
    "matmul": ("Matmul", "MatmulType"),
    "mm": ("Matmul", "MatmulType"),
    "bmm": ("Matmul", "MatmulType"),
    "Linear": ("Matmul", "MatmulType"),
    "layer_norm": ("LayerNorm", "ReduceSum", "Rsqrt"),
    "LayerNorm": ("LayerNorm", "ReduceSum", "Rsqrt"),
}

_OPERATORS: dict[str, tuple[str, ...]] = {
    "+": TORCH_TO_ASCENDC["add"],
    "-": TORCH_TO_ASCENDC["sub"],
    "*": TORCH_TO_ASCENDC["mul"],
    "/": TORCH_TO_ASCENDC["div"],
    "@": TORCH_TO_ASCENDC["matmul"],
}
_FORWARD = re.compile(r"def\s+forward\s*\(.*?(?=\n(?:def|class)\s|\Z)", re.S)


def apis_for_reference(source: str) -> list[str]:
    """Skeleton APIs, then the APIs for the torch names and operators used in `forward`."""
    body = m.group(0) if (m := _FORWARD.search(source)) else source
    names: list[str] = list(SKELETON_APIS)
    for word in re.findall(r"[A-Za-z_]\w*", body):
        names += TORCH_TO_ASCENDC.get(word, ())
    for op, apis in _OPERATORS.items():
        if re.search(rf"[\w)\]]\s*{re.escape(op)}(?!=)\s*[\w(]", body):
            names += apis
    return list(dict.fromkeys(names))
