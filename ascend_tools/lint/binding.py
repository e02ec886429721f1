"""Input shapes of a test binding, used to evaluate host tiling values."""

from __future__ import annotations

import re
from pathlib import Path


class BindingError(ValueError):
    """The shapes could not be read; the message says why."""


def parse_shapes(text: str) -> list[list[int]]:
    """`8x2048,8x2048` -> [[8, 2048], [8, 2048]] (`1` for a scalar tensor of one element)."""
    shapes = []
    for part in text.split(","):
        part = part.strip()
        if not re.fullmatch(r"\d+(x\d+)*", part):
            raise BindingError(
                f"bad shape {part!r}: expected dimensions joined by 'x', e.g. 8x2048")
        shapes.append([int(d) for d in part.split("x")])
    return shapes


def reference_shapes(ref: Path) -> list[list[int]]:
    """Shapes of the tensors `get_inputs()` of a KernelBench reference returns (runs it)."""
    from ascend_tools.reference import ReferenceError, load_reference

    try:
        inputs = load_reference(ref).get_inputs()
    except ReferenceError as exc:
        raise BindingError(str(exc)) from exc
    except Exception as exc:  # the reference is user code: any failure is bad input
        raise BindingError(f"{ref}: get_inputs() failed: {type(exc).__name__}: {exc}") from exc
    return [list(t.shape) for t in inputs if hasattr(t, "shape")]
