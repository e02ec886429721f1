"""The PyTorch reference: load a KernelBench-format file, make the inputs of a trial, compute the
expected outputs, and compare a kernel's outputs with them.

Tolerances (`TOLERANCES`): an element fails only if its absolute error exceeds atol AND its
relative error exceeds rtol (NPUKernelBench's rule). That rule alone passes outputs that are
wrong everywhere by a little less than atol (a softmax of long rows 10% too small, an all-zero
output of values below atol), so the whole tensor must also pass: the relative L2 error
||actual - expected||_2 / ||expected||_2 must not exceed rtol, with `expected` first rounded to
the output dtype (rounding the result is not an error of the kernel). A legitimate kernel's
errors are mostly far below rtol, so the root-mean-square error sits well under it.
- float32 1e-4 / 1e-4: the value MultiKernelBench's current code uses; about 800 fp32 ulps at 1.0,
  room for another reduction order or a hardware exp/ln approximation, while any indexing, tail
  or sync bug gives errors of order 1.
- float16 1e-3 / 2e-3: rounding the output alone costs up to 2^-11 (4.9e-4) relative; 2e-3 leaves
  room for a few intermediate fp16 roundings (NPUKernelBench's 1e-3 fails kernels that compute in
  fp16 at all); atol 1e-3 is one ulp at 1.0 for values that come out of cancellation.
- bfloat16 8e-3 / 1.6e-2: bf16 has 8 significant bits (output rounding alone up to 3.9e-3);
  1.6e-2 is torch.testing's bf16 default, atol one ulp at 1.0.
- integers and bool: exact.
"""

from __future__ import annotations

import copy
import importlib.util
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import numpy as np
import torch
from pydantic import BaseModel

from ascend_tools.toolchain.dtypes import DTYPES

TOLERANCES: dict[str, tuple[float, float]] = {
    "float32": (1e-4, 1e-4),
    "float16": (1e-3, 2e-3),
    "bfloat16": (8e-3, 1.6e-2),
}
EXACT = (0.0, 0.0)

# The dtype table's names are torch's attribute names (torch.float16, torch.uint32, ...).
TORCH_DTYPES: dict[str, torch.dtype] = {name: getattr(torch, name) for name in DTYPES}
DTYPE_NAMES = {v: k for k, v in TORCH_DTYPES.items()}


class ReferenceError(ValueError):
    """The reference file is unusable; the message says why."""


def dtype_name(t: torch.Tensor) -> str:
    if t.dtype not in DTYPE_NAMES:
        raise ReferenceError(f"tensor dtype {t.dtype} has no AscendC counterpart")
    return DTYPE_NAMES[t.dtype]


def tolerance(
    dtype: str, atol: float | None = None, rtol: float | None = None
) -> tuple[float, float]:
    a, r = TOLERANCES.get(dtype, EXACT)
    return (a if atol is None else atol, r if rtol is None else rtol)


class Reference:
    """A loaded reference module: `Model`, `get_inputs`, `get_init_inputs` (optional)."""

    def __init__(self, path: Path, module: ModuleType) -> None:
        self.path = path
        self.module = module
        self.model_cls = module.Model
        self.get_inputs = module.get_inputs
        self.get_init_inputs = getattr(module, "get_init_inputs", list)

    def init_inputs(self) -> list:
        return list(self.get_init_inputs())

    def build_model(self) -> torch.nn.Module:
        """The module with deterministic parameters (seed 0), in eval mode."""
        torch.manual_seed(0)
        try:
            model = self.model_cls(*self.init_inputs())
        except Exception as exc:
            raise ReferenceError(
                f"{self.path.name}: Model(*get_init_inputs()) failed: {exc!r}"
            ) from exc
        return model.eval()


def load_reference(path: Path) -> Reference:
    path = Path(path).expanduser().resolve()
    if not path.is_file():
        raise ReferenceError(f"reference file not found: {path}")
    name = f"kernelgen_ref_{uuid.uuid4().hex}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ReferenceError(f"{path} is not a loadable Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise ReferenceError(
            f"{path.name}:{exc.lineno}: syntax error: {exc.msg} (the file failed to import)"
        ) from None
    except Exception as exc:
        raise ReferenceError(f"{path.name} failed to import: {exc!r}") from exc
    finally:
        sys.modules.pop(name, None)
    if not isinstance(getattr(module, "Model", None), type):
        raise ReferenceError(f"{path.name} defines no `class Model(nn.Module)`")
    if not callable(getattr(module, "get_inputs", None)):
        raise ReferenceError(f"{path.name} defines no `get_inputs()`")
    return Reference(path, module)


class TrialData(BaseModel):
    """One case's tensors, in binding order: kernel inputs (get_inputs, then parameters, then
    buffers) and expected outputs (float32 reference), plus the kernel output dtypes."""

    model_config = {"arbitrary_types_allowed": True}

    inputs: list[torch.Tensor]
    input_names: list[str]
    expected: list[torch.Tensor]
    output_dtypes: list[str]


def _resample(t: torch.Tensor, shape: Sequence[int], gen: torch.Generator) -> torch.Tensor:
    """A tensor of `shape` drawn from `t`'s own values, so the value range (positive for log,
    small ints for indices) carries over to the new shape."""
    flat = t.reshape(-1)
    if flat.numel() == 0:
        return torch.zeros(tuple(shape), dtype=t.dtype)
    idx = torch.randint(0, flat.numel(), tuple(shape), generator=gen)
    return flat[idx]


def make_trial(
    ref: Reference,
    model: torch.nn.Module,
    seed: int,
    dtype: str | None = None,
    shapes: Sequence[Sequence[int]] | None = None,
) -> TrialData:
    """Inputs of trial `seed` (torch.manual_seed(seed) before get_inputs), cast to `dtype`,
    optionally resampled to `shapes` (one shape per get_inputs() tensor), and the float32
    reference computed from the cast values."""
    torch.manual_seed(seed)
    try:
        raw = list(ref.get_inputs())
    except Exception as exc:
        raise ReferenceError(f"{ref.path.name}: get_inputs() failed: {exc!r}") from exc
    tensors = [x for x in raw if isinstance(x, torch.Tensor)]
    if len(tensors) != len(raw):
        raise ReferenceError(f"{ref.path.name}: get_inputs() must return tensors only")
    if shapes is not None:
        if len(shapes) != len(tensors):
            raise ReferenceError(
                f"shape override lists {len(shapes)} shapes, "
                f"get_inputs() returns {len(tensors)} tensors"
            )
        gen = torch.Generator().manual_seed(seed)
        tensors = [_resample(t, s, gen) for t, s in zip(tensors, shapes, strict=True)]
    cast = TORCH_DTYPES[dtype] if dtype else None

    def kernel_value(t: torch.Tensor) -> torch.Tensor:
        t = t.detach().contiguous()
        return t.to(cast) if cast is not None and t.is_floating_point() else t

    kernel_inputs = [kernel_value(t) for t in tensors]
    names = [f"input{i}" for i in range(len(tensors))]
    ref_model = copy.deepcopy(model)
    for pname, p in list(ref_model.named_parameters()):
        kernel_inputs.append(kernel_value(p))
        names.append(pname)
    for bname, b in list(ref_model.named_buffers()):
        kernel_inputs.append(kernel_value(b))
        names.append(bname)
    # The reference sees exactly the values the kernel gets, upcast to float32.
    with torch.no_grad():
        for p in ref_model.parameters():
            if p.is_floating_point():
                p.data = kernel_value(p.data).float()
        for mod in ref_model.modules():
            for bname, b in list(mod.named_buffers(recurse=False)):
                if b.is_floating_point():
                    setattr(mod, bname, kernel_value(b).float())
        args = [kernel_value(t).float() if t.is_floating_point() else t for t in tensors]
        try:
            out = ref_model(*args)
        except Exception as exc:
            raise ReferenceError(f"{ref.path.name}: Model.forward failed: {exc!r}") from exc
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    if not all(isinstance(o, torch.Tensor) for o in outs):
        raise ReferenceError(f"{ref.path.name}: forward must return a tensor or a tuple of tensors")
    # The reference runs in float32, so its own output dtype says nothing about the kernel's:
    # floating outputs take `dtype`, else the one floating dtype of the get_inputs() tensors
    # (an fp16 model's kernel writes fp16), else the reference's.
    input_floats = {kernel_value(t).dtype for t in tensors if t.is_floating_point()}
    natural = DTYPE_NAMES[input_floats.pop()] if len(input_floats) == 1 else None
    out_dtypes = []
    for o in outs:
        if o.is_floating_point():
            out_dtypes.append(dtype or natural or dtype_name(o))
        else:
            out_dtypes.append(dtype_name(o))
    expected = [o.detach().float() if o.is_floating_point() else o.detach() for o in outs]
    return TrialData(
        inputs=kernel_inputs, input_names=names, expected=expected, output_dtypes=out_dtypes
    )


def to_bytes(t: torch.Tensor) -> bytes:
    """Raw little-endian row-major bytes (the case file's tensor format)."""
    t = t.detach().contiguous().cpu()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    return t.numpy().tobytes()


def from_bytes(data: bytes, dtype: str, shape: Sequence[int]) -> torch.Tensor:
    td = TORCH_DTYPES[dtype]
    if td == torch.bfloat16:
        arr = np.frombuffer(data, dtype=np.int16).copy()
        return torch.from_numpy(arr).view(torch.bfloat16).reshape(tuple(shape))
    return torch.frombuffer(bytearray(data), dtype=td).reshape(tuple(shape)).clone()


class Comparison(BaseModel):
    ok: bool
    max_abs_err: float
    max_rel_err: float
    mismatches: int
    total: int
    rel_l2_err: float = 0.0
    first_mismatch: list[int] | None = None
    message: str = ""


def relative_l2(actual: torch.Tensor, expected: torch.Tensor) -> float:
    """||actual - expected||_2 / ||expected||_2 over the elements finite in both, with
    `expected` rounded to actual's floating dtype; 0 when both are zero, inf when only
    `expected` is."""
    e = expected
    if actual.is_floating_point() and expected.is_floating_point():
        e = expected.to(actual.dtype)
    a = actual.double().reshape(-1).numpy()
    ev = e.double().reshape(-1).numpy()
    both = np.isfinite(a) & np.isfinite(ev)
    err = float(np.linalg.norm(np.where(both, a - ev, 0.0)))
    ref = float(np.linalg.norm(np.where(both, ev, 0.0)))
    if ref == 0.0:
        return 0.0 if err == 0.0 else float("inf")
    return err / ref


def compare(actual: torch.Tensor, expected: torch.Tensor, atol: float, rtol: float) -> Comparison:
    """Element-wise check; non-finite values must match exactly where the reference has them,
    and fail wherever the reference is finite."""
    total = expected.numel()
    if tuple(actual.shape) != tuple(expected.shape):
        return Comparison(
            ok=False,
            max_abs_err=float("nan"),
            max_rel_err=float("nan"),
            mismatches=total,
            total=total,
            message=f"shape {list(actual.shape)} != expected {list(expected.shape)}",
        )
    a = actual.double().reshape(-1).numpy()
    e = expected.double().reshape(-1).numpy()
    fin_e = np.isfinite(e)
    both = fin_e & np.isfinite(a)
    with np.errstate(invalid="ignore", divide="ignore"):
        abs_err = np.where(both, np.abs(a - e), 0.0)
        rel_err = np.where(both & (e != 0), abs_err / np.abs(e), np.where(abs_err > 0, np.inf, 0.0))
    bad = both & (abs_err > atol) & (rel_err > rtol)
    bad |= fin_e & ~np.isfinite(a)
    nonfin_e = ~fin_e
    same_nonfinite = (np.isnan(e) & np.isnan(a)) | (np.isinf(e) & (a == e))
    bad |= nonfin_e & ~same_nonfinite
    n_bad = int(bad.sum())
    max_abs = float(abs_err.max()) if total else 0.0
    finite_rel = rel_err[np.isfinite(rel_err)]
    max_rel = float(finite_rel.max()) if finite_rel.size else 0.0
    # An all-zero reference has no scale: there the whole-tensor check is the elementwise one.
    l2 = relative_l2(actual, expected) if total else 0.0
    l2_bad = actual.is_floating_point() and l2 > rtol and np.any(np.abs(e[fin_e]) > 0)
    if n_bad == 0 and not l2_bad:
        return Comparison(
            ok=True,
            max_abs_err=max_abs,
            max_rel_err=max_rel,
            mismatches=0,
            total=total,
            rel_l2_err=l2,
        )
    whole = (
        f"relative L2 error {l2:.3g} over the whole tensor exceeds rtol={rtol:g} "
        f"(the output is off everywhere, by less than atol={atol:g} per element)"
    )
    if n_bad == 0:
        return Comparison(
            ok=False,
            max_abs_err=max_abs,
            max_rel_err=max_rel,
            mismatches=0,
            total=total,
            rel_l2_err=l2,
            message=f"{whole}; max abs err {max_abs:.3g}, max rel err {max_rel:.3g}",
        )
    flat = int(np.flatnonzero(bad)[0])
    index = (
        [int(i) for i in np.unravel_index(flat, tuple(expected.shape))] if expected.dim() else []
    )
    msg = (
        f"{n_bad} of {total} elements ({100.0 * n_bad / total:.3g}%) differ beyond "
        f"atol={atol:g} and rtol={rtol:g} (max abs err {max_abs:.3g}, max rel err "
        f"{max_rel:.3g}, relative L2 error {l2:.3g}); first at {index}: "
        f"got {a[flat]:.6g}, expected {e[flat]:.6g}"
    )
    return Comparison(
        ok=False,
        max_abs_err=max_abs,
        max_rel_err=max_rel,
        mismatches=n_bad,
        total=total,
        rel_l2_err=l2,
        first_mismatch=index,
        message=msg,
    )
