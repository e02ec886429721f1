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
import inspect
import sys
import uuid
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, Literal

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


ArgKind = Literal["tensor", "tensor_list", "absent", "value"]
ArgSource = Literal["forward", "parameter", "buffer", "init"]


class RefArg(BaseModel):
    """One value the reference computes with: a forward argument (given by get_inputs() or
    left at its default), a module parameter or buffer, or a `Model.__init__` argument.

    Tensors (`tensor`, each element of a `tensor_list`) are the kernel's values (cast to the
    trial dtype); `absent` is a None; `value` is anything else (scalars, lists of numbers)."""

    model_config = {"arbitrary_types_allowed": True}

    name: str
    source: ArgSource
    kind: ArgKind
    tensors: list[torch.Tensor] = []
    value: Any = None
    defaulted: bool = False
    """Not passed by get_inputs()/get_init_inputs(): the parameter's default."""


class RefOutput(BaseModel):
    """One result to compare: `return[i]` (the i-th returned value, a tensor or a tensor list)
    or a forward argument the forward mutated in place (named after it)."""

    model_config = {"arbitrary_types_allowed": True}

    name: str
    tensors: list[torch.Tensor]
    dtypes: list[str]
    is_list: bool = False
    inplace_of: str | None = None


class TrialData(BaseModel):
    """One case's values: every argument of the reference (forward arguments in signature
    order, then parameters, buffers, init arguments) and the expected results (float32 for
    floating values), returned values first, then the arguments mutated in place."""

    model_config = {"arbitrary_types_allowed": True}

    args: list[RefArg]
    outputs: list[RefOutput]

    @property
    def tensor_args(self) -> list[RefArg]:
        return [a for a in self.args if a.kind in ("tensor", "tensor_list")]

    @property
    def inputs(self) -> list[torch.Tensor]:
        """Every input tensor, list elements flattened, in argument order."""
        return [t for a in self.tensor_args for t in a.tensors]

    @property
    def input_names(self) -> list[str]:
        return [
            a.name if a.kind == "tensor" else f"{a.name}[{k}]"
            for a in self.tensor_args
            for k in range(len(a.tensors))
        ]

    @property
    def expected(self) -> list[torch.Tensor]:
        return [t for o in self.outputs for t in o.tensors]

    @property
    def output_dtypes(self) -> list[str]:
        return [d for o in self.outputs for d in o.dtypes]

    def result(self, name: str) -> RefOutput:
        """The result called `name`; a tensor argument the forward leaves as it was is one too,
        its own value (an output its caller fills before the launch that the kernel only
        reads: `binding.OutputBinding.prefill`)."""
        found = next((o for o in self.outputs if o.name == name), None)
        if found is not None:
            return found
        arg = next(a for a in self.tensor_args if a.name == name)
        return RefOutput(
            name=arg.name,
            tensors=[t.float() if t.is_floating_point() else t.clone() for t in arg.tensors],
            dtypes=[dtype_name(t) for t in arg.tensors],
            is_list=arg.kind == "tensor_list",
            inplace_of=arg.name,
        )


def _resample(t: torch.Tensor, shape: Sequence[int], gen: torch.Generator) -> torch.Tensor:
    """A tensor of `shape` drawn from `t`'s own values, so the value range (positive for log,
    small ints for indices) carries over to the new shape."""
    flat = t.reshape(-1)
    if flat.numel() == 0:
        return torch.zeros(tuple(shape), dtype=t.dtype)
    idx = torch.randint(0, flat.numel(), tuple(shape), generator=gen)
    return flat[idx]


def _kind(value: object) -> ArgKind:
    if isinstance(value, torch.Tensor):
        return "tensor"
    if value is None:
        return "absent"
    if (
        isinstance(value, (list, tuple))
        and value
        and all(isinstance(v, torch.Tensor) for v in value)
    ):
        return "tensor_list"
    return "value"


def _named_values(fn: Any, values: list, what: str, path: Path) -> list[tuple[str, Any, bool]]:
    """(parameter name, value, defaulted) for the positional `values` a call of `fn` gets, and
    for every parameter left at its default. `*args` values are named `args[k]`."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    out: list[tuple[str, Any, bool]] = []
    rest = list(values)
    for p in params:
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            if rest:
                out.append((p.name, rest.pop(0), False))
            elif p.default is not p.empty:
                out.append((p.name, p.default, True))
        elif p.kind == p.VAR_POSITIONAL:
            out += [(f"{p.name}[{k}]", v, False) for k, v in enumerate(rest)]
            rest = []
        elif p.kind == p.KEYWORD_ONLY and p.default is not p.empty:
            out.append((p.name, p.default, True))
    if rest and params:
        raise ReferenceError(
            f"{path.name}: {what} gets {len(values)} values, more than its parameters take"
        )
    out += [(f"input{len(out) + k}", v, False) for k, v in enumerate(rest)]
    return out


def _flat_tensors(values: list) -> list[torch.Tensor]:
    flat: list[torch.Tensor] = []
    for v in values:
        kind = _kind(v)
        flat += [v] if kind == "tensor" else list(v) if kind == "tensor_list" else []
    return flat


def _replace_tensors(values: list, new: list[torch.Tensor]) -> list:
    """`values` with its tensors (in `_flat_tensors` order) replaced by `new`."""
    it = iter(new)
    out: list = []
    for v in values:
        kind = _kind(v)
        if kind == "tensor":
            out.append(next(it))
        elif kind == "tensor_list":
            items = [next(it) for _ in v]
            out.append(tuple(items) if isinstance(v, tuple) else items)
        else:
            out.append(v)
    return out


def _same_storage(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a is b or (
        a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
        and a.shape == b.shape
        and a.storage_offset() == b.storage_offset()
    )


def _changed(now: list[torch.Tensor], before: list[torch.Tensor]) -> bool:
    return any(
        t.shape != b.shape or to_bytes(t) != to_bytes(b) for t, b in zip(now, before, strict=True)
    )


def make_trial(
    ref: Reference,
    model: torch.nn.Module,
    seed: int,
    dtype: str | None = None,
    shapes: Sequence[Sequence[int]] | None = None,
) -> TrialData:
    """Inputs of trial `seed` (torch.manual_seed(seed) before get_inputs), floating tensors cast
    to `dtype`, optionally resampled to `shapes` (one shape per get_inputs() tensor, list
    elements counted one by one), and the float32 reference computed from the cast values:
    what the forward returns, and the arguments it mutates in place."""
    torch.manual_seed(seed)
    try:
        raw = list(ref.get_inputs())
    except Exception as exc:
        raise ReferenceError(f"{ref.path.name}: get_inputs() failed: {exc!r}") from exc
    tensors = _flat_tensors(raw)
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

    def ref_value(k: torch.Tensor) -> torch.Tensor:
        """The kernel's value as the reference computes with it: floats upcast, never shared
        with the kernel's copy (the forward may mutate it)."""
        return k.float() if k.is_floating_point() and k.dtype != torch.float32 else k.clone()

    kernel_tensors = [kernel_value(t) for t in tensors]
    ref_tensors = [ref_value(t) for t in kernel_tensors]
    kernel_dtypes = {id(r): k.dtype for r, k in zip(ref_tensors, kernel_tensors, strict=True)}
    kernel_raw = _replace_tensors(raw, kernel_tensors)
    ref_raw = _replace_tensors(raw, ref_tensors)
    ref_model = copy.deepcopy(model)
    args = []
    for name, v, d in _named_values(ref_model.forward, kernel_raw, "forward", ref.path):
        kind = _kind(v)
        value = v if kind == "value" else None
        args.append(
            RefArg(
                name=name,
                source="forward",
                kind=kind,
                tensors=_flat_tensors([v]),
                value=value.tolist() if isinstance(value, torch.Size) else value,
                defaulted=d,
            )
        )
    watched = [
        (name, _flat_tensors([v]))
        for name, v, _ in _named_values(ref_model.forward, ref_raw, "forward", ref.path)
    ]
    # The reference sees exactly the values the kernel gets, upcast to float32.
    with torch.no_grad():
        for pname, p in list(ref_model.named_parameters()):
            args.append(
                RefArg(name=pname, source="parameter", kind="tensor", tensors=[kernel_value(p)])
            )
            kernel_dtypes[id(p)] = args[-1].tensors[0].dtype
            p.data = ref_value(args[-1].tensors[0])
            watched.append((pname, [p]))
        for mod_name, mod in list(ref_model.named_modules()):
            for bname, b in list(mod.named_buffers(recurse=False)):
                full = f"{mod_name}.{bname}" if mod_name else bname
                k = kernel_value(b)
                args.append(RefArg(name=full, source="buffer", kind="tensor", tensors=[k]))
                setattr(mod, bname, ref_value(k))
                b = getattr(mod, bname)
                kernel_dtypes[id(b)] = k.dtype
                watched.append((full, [b]))
    for name, v, d in _named_values(ref.model_cls, ref.init_inputs(), "Model()", ref.path):
        value = v.tolist() if isinstance(v, (torch.Tensor, torch.Size)) else v
        args.append(RefArg(name=name, source="init", kind="value", value=value, defaulted=d))
    before = {name: [t.detach().clone() for t in ts] for name, ts in watched}
    with torch.no_grad():
        try:
            out = ref_model(*ref_raw)
        except Exception as exc:
            raise ReferenceError(f"{ref.path.name}: Model.forward failed: {exc!r}") from exc

    # The reference runs in float32, so its own output dtype says nothing about the kernel's:
    # floating results take `dtype`, else the one floating dtype of the get_inputs() tensors
    # (an fp16 model's kernel writes fp16), else the reference's.
    input_floats = {t.dtype for t in kernel_tensors if t.is_floating_point()}
    natural = DTYPE_NAMES[input_floats.pop()] if len(input_floats) == 1 else None

    def kernel_dtype(o: torch.Tensor, arg: torch.Tensor | None = None) -> str:
        if arg is not None and id(arg) in kernel_dtypes:
            return DTYPE_NAMES.get(kernel_dtypes[id(arg)], dtype_name(o))
        return (dtype or natural or dtype_name(o)) if o.is_floating_point() else dtype_name(o)

    def expected(o: torch.Tensor) -> torch.Tensor:
        return o.detach().float() if o.is_floating_point() else o.detach().clone()

    mutated = {name: ts for name, ts in watched if ts and _changed(ts, before[name])}
    list_args = {a.name for a in args if a.kind == "tensor_list"}
    returned = [] if out is None else list(out) if isinstance(out, (tuple, list)) else [out]
    outputs = []
    for i, o in enumerate(returned):
        kind = _kind(o)
        if kind not in ("tensor", "tensor_list"):
            raise ReferenceError(
                f"{ref.path.name}: forward returns {type(o).__name__} as value {i}; expected "
                "a tensor, a tuple or list of tensors, or None (an in-place forward)"
            )
        ts = _flat_tensors([o])
        alias = next(
            (
                name
                for name, ms in mutated.items()
                if len(ms) == len(ts) and all(map(_same_storage, ms, ts))
            ),
            None,
        )
        like: list[torch.Tensor | None] = list(mutated[alias]) if alias else [None] * len(ts)
        outputs.append(
            RefOutput(
                name=f"return[{i}]",
                tensors=[expected(t) for t in ts],
                dtypes=[kernel_dtype(t, m) for t, m in zip(ts, like, strict=True)],
                is_list=kind == "tensor_list",
                inplace_of=alias,
            )
        )
    aliased = {o.inplace_of for o in outputs}
    for name, ts in mutated.items():
        if name not in aliased:
            outputs.append(
                RefOutput(
                    name=name,
                    tensors=[expected(t) for t in ts],
                    dtypes=[kernel_dtype(t, t) for t in ts],
                    is_list=name in list_args,
                    inplace_of=name,
                )
            )
    if not outputs:
        raise ReferenceError(
            f"{ref.path.name}: forward returns None and mutates no tensor argument: "
            "nothing to compare"
        )
    return TrialData(args=args, outputs=outputs)


def to_bytes(t: torch.Tensor) -> bytes:
    """Raw little-endian row-major bytes (the case file's tensor format)."""
    t = t.detach().contiguous().cpu()
    if t.dtype == torch.bfloat16:
        t = t.view(torch.int16)
    return t.numpy().tobytes()


def filled_bytes(dtype: str, shape: Sequence[int], value: float) -> bytes:
    """The case-file bytes of a `shape` tensor of `dtype` every element of which is `value`;
    ValueError when the dtype cannot hold it (a fraction or an out-of-range integer)."""
    td = TORCH_DTYPES[dtype]
    if not td.is_floating_point:
        info = torch.iinfo(td) if td != torch.bool else None
        if not float(value).is_integer() or (
            info is not None and not info.min <= value <= info.max
        ):
            raise ValueError(f"{value!r} is not a value of {dtype}")
        value = int(value)
    return to_bytes(torch.full(tuple(shape), value, dtype=td))


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
    err = float(np.linalg.norm(a[both] - ev[both]))  # inf - inf never computed
    ref = float(np.linalg.norm(ev[both]))
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
    # The error figures cover the elements finite on both sides: say so when others differ.
    n_nonfinite = int((bad & ~both).sum())
    over = f"; over the {int(both.sum())} finite on both sides: " if n_nonfinite else " ("
    msg = (
        f"{n_bad} of {total} elements ({100.0 * n_bad / total:.3g}%) differ beyond "
        f"atol={atol:g} and rtol={rtol:g}"
        + (f" ({n_nonfinite} of them inf or NaN against the reference)" if n_nonfinite else "")
        + f"{over}max abs err {max_abs:.3g}, max rel err {max_rel:.3g}, relative L2 error "
        f"{l2:.3g}{'' if n_nonfinite else ')'}; first at {index}: "
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
