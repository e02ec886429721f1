"""Plain helpers of the emulator device-side tests (tensor <-> raw file bytes, source markers)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

CPP = Path(__file__).resolve().parent / "cpp"

TORCH_DTYPES = {
    "float32": torch.float32,
    "float16": torch.float16,
    "bfloat16": torch.bfloat16,
    "int32": torch.int32,
    "int16": torch.int16,
    "int8": torch.int8,
    "uint8": torch.uint8,
}


def to_bytes(t: torch.Tensor) -> bytes:
    t = t.contiguous().cpu()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().tobytes()
    return t.numpy().tobytes()


def from_bytes(data: bytes, dtype: str) -> torch.Tensor:
    if dtype == "bfloat16":
        return torch.from_numpy(np.frombuffer(data, dtype=np.int16).copy()).view(torch.bfloat16)
    np_dtype = {
        "float32": np.float32,
        "float16": np.float16,
        "int32": np.int32,
        "int16": np.int16,
        "int8": np.int8,
        "uint8": np.uint8,
        "uint32": np.uint32,
    }[dtype]
    return torch.from_numpy(np.frombuffer(data, dtype=np_dtype).copy())


def marker_line(source: str, marker: str) -> int:
    """1-based line of the test source whose trailing comment is `// <marker>`, or lists it
    among others (`// BUG: a; BUG: b`: a call shared by cases of two programs)."""
    lines = (CPP / source).read_text().splitlines()
    hits = [
        i + 1
        for i, text in enumerate(lines)
        if "// " in text and marker in text.rstrip().rsplit("// ", 1)[1].split("; ")
    ]
    assert len(hits) == 1, f"marker {marker!r} found {len(hits)} times in {source}"
    return hits[0]
