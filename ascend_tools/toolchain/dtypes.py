"""Data types as the case file, the kernel build (`DTYPE_<NAME>` macros) and torch name them."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class DType(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    c_type: str
    ge_type: str
    size: int
    floating: bool


_TABLE = [
    ("float32", "float", "ge::DT_FLOAT", 4, True),
    ("float16", "half", "ge::DT_FLOAT16", 2, True),
    ("bfloat16", "bfloat16_t", "ge::DT_BF16", 2, True),
    ("int8", "int8_t", "ge::DT_INT8", 1, False),
    ("int16", "int16_t", "ge::DT_INT16", 2, False),
    ("int32", "int32_t", "ge::DT_INT32", 4, False),
    ("int64", "int64_t", "ge::DT_INT64", 8, False),
    ("uint8", "uint8_t", "ge::DT_UINT8", 1, False),
    ("uint16", "uint16_t", "ge::DT_UINT16", 2, False),
    ("uint32", "uint32_t", "ge::DT_UINT32", 4, False),
    ("uint64", "uint64_t", "ge::DT_UINT64", 8, False),
    ("bool", "bool", "ge::DT_BOOL", 1, False),
]
DTYPES: dict[str, DType] = {
    n: DType(name=n, c_type=c, ge_type=g, size=s, floating=f) for n, c, g, s, f in _TABLE
}
FLOAT_DTYPES = tuple(n for n, d in DTYPES.items() if d.floating)


class UnknownDTypeError(ValueError):
    pass


def get_dtype(name: str) -> DType:
    if name not in DTYPES:
        raise UnknownDTypeError(f"unknown dtype {name!r}; known: {', '.join(DTYPES)}")
    return DTYPES[name]


def dtype_of_c_type(c_type: str) -> DType | None:
    """The dtype a kernel's C element type names (`half`, `float`, `int32_t`), if any."""
    return next((d for d in DTYPES.values() if d.c_type == c_type), None)
