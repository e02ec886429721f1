"""Plan -> an msopgen-layout operator project (+ torch binding and ModelNew for real NPUs)."""

from __future__ import annotations

import shutil
from pathlib import Path

from pydantic import BaseModel

from ascend_tools.chips import Chip
from kernelgen_lm.lower.attn import AttnEmitter, attn_tiling_header
from kernelgen_lm.lower.conv import ConvEmitter, conv_tiling_header
from kernelgen_lm.lower.conv_slab import ConvSlabEmitter, slab_tiling_header
from kernelgen_lm.lower.host import host_source, tiling_header
from kernelgen_lm.lower.kernel import KernelEmitter
from kernelgen_lm.lower.matmul import MatmulEmitter, matmul_tiling_header
from kernelgen_lm.lower.move import move_host, move_kernel, move_tiling_header
from kernelgen_lm.lower.stages import (
    staged_emitters,
    staged_host,
    staged_kernel,
    staged_tiling_header,
)
from kernelgen_lm.lower.window import window_host, window_kernel, window_tiling_header
from kernelgen_lm.plan.attn import AttnPlan, attn_text
from kernelgen_lm.plan.conv import ConvPlan, conv_text
from kernelgen_lm.plan.ir import KernelPlan, plan_text
from kernelgen_lm.plan.matmul import MatmulPlan, matmul_text
from kernelgen_lm.plan.move import MovePlan, move_text
from kernelgen_lm.plan.stages import StagedPlan, staged_text
from kernelgen_lm.plan.window import WindowPlan, window_text


class LoweredProject(BaseModel):
    root: Path
    files: list[Path]


def _binding(plan: KernelPlan) -> str:
    """A torch_npu extension entry (EXEC_NPU_CMD style) so the op drops into a CANN build."""
    ins = ", ".join(f"const at::Tensor& in{i}" for i in range(len(plan.inputs)))
    outs = []
    for j, o in enumerate(plan.outputs):
        ref = next(
            (i for i, t in enumerate(plan.inputs) if t.shape == o.shape and t.dtype == o.dtype),
            None,
        )
        if ref is not None:
            outs.append(f"    at::Tensor out{j} = at::empty_like(in{ref});")
        else:
            dims = ", ".join(str(s) for s in o.shape)
            outs.append(f"    at::Tensor out{j} = at::empty({{{dims}}}, in0.options());")
    names = ", ".join(
        [f"in{i}" for i in range(len(plan.inputs))] + [f"out{j}" for j in range(len(plan.outputs))]
    )
    ret = (
        "out0"
        if len(plan.outputs) == 1
        else "std::vector<at::Tensor>{"
        + ", ".join(f"out{j}" for j in range(len(plan.outputs)))
        + "}"
    )
    rtype = "at::Tensor" if len(plan.outputs) == 1 else "std::vector<at::Tensor>"
    return "\n".join(
        [
            f"// torch_npu binding of {plan.op_name} (build with the CANN toolkit and torch_npu).",
            "#include <torch/extension.h>",
            '#include "pytorch_npu_helper.hpp"',
            "",
            f"{rtype} {plan.kernel_name}_impl({ins})",
            "{",
            *outs,
            f"    EXEC_NPU_CMD(aclnn{plan.op_name}, {names});",
            f"    return {ret};",
            "}",
            "",
            "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)",
            "{",
            f'    m.def("{plan.kernel_name}", &{plan.kernel_name}_impl,',
            f'          "{plan.op_name} (AscendC)");',
            "}",
            "",
        ]
    )


def _model_new(plan: KernelPlan, ref_name: str) -> str:
    return "\n".join(
        [
            f'"""KernelBench-style ModelNew: calls the generated {plan.op_name} via torch_npu."""',
            "",
            "import torch",
            "import torch.nn as nn",
            f"import {plan.kernel_name}_ext  # built from framework/{plan.kernel_name}_binding.cpp",
            "",
            f"import {ref_name} as reference",
            "",
            "",
            "class ModelNew(nn.Module):",
            "    def __init__(self, *init_inputs):",
            "        super().__init__()",
            "        # Parameters and buffers come from the reference model (same init inputs).",
            "        self.ref = reference.Model(*init_inputs)",
            "",
            "    def forward(self, *inputs):",
            "        extra = [*self.ref.parameters(), *self.ref.buffers()]",
            f"        return {plan.kernel_name}_ext.{plan.kernel_name}(*inputs, *extra)",
            "",
        ]
    )


def write_window_project(
    plan: WindowPlan, chip: Chip, out: Path, ref: Path | None = None
) -> LoweredProject:
    """Writes a pooling project under `out`."""
    return _write(
        _files(
            plan.kernel_name,
            window_tiling_header(plan),
            window_host(plan, chip),
            window_kernel(plan, chip),
            window_text(plan),
        ),
        out,
        ref,
    )


def write_matmul_project(
    plan: MatmulPlan, chip: Chip, out: Path, ref: Path | None = None
) -> LoweredProject:
    """Writes a matrix-product project under `out`."""
    em = MatmulEmitter(plan, chip)
    return _write(
        _files(
            plan.kernel_name, matmul_tiling_header(plan), em.host(), em.kernel(), matmul_text(plan)
        ),
        out,
        ref,
    )


def write_staged_project(
    plan: StagedPlan, chip: Chip, out: Path, ref: Path | None = None
) -> LoweredProject:
    """Writes a staged (matrix product, then more) project under `out`."""
    ems = staged_emitters(plan, chip)
    kernel = staged_kernel(plan, chip, ems)  # first: the emitters size their UB pools
    return _write(
        _files(
            plan.kernel_name,
            staged_tiling_header(plan),
            staged_host(plan, chip, ems),
            kernel,
            staged_text(plan),
        ),
        out,
        ref,
    )


def write_move_project(
    plan: MovePlan, chip: Chip, out: Path, ref: Path | None = None
) -> LoweredProject:
    """Writes a data-movement project (transpose, cat, slice) under `out`."""
    return _write(
        _files(
            plan.kernel_name,
            move_tiling_header(plan),
            move_host(plan, chip),
            move_kernel(plan, chip),
            move_text(plan),
        ),
        out,
        ref,
    )


def write_attn_project(
    plan: AttnPlan, chip: Chip, out: Path, ref: Path | None = None
) -> LoweredProject:
    """Writes a fused-attention project under `out`."""
    em = AttnEmitter(plan, chip)
    return _write(
        _files(plan.kernel_name, attn_tiling_header(plan), em.host(), em.kernel(), attn_text(plan)),
        out,
        ref,
    )


def _files(kernel: str, tiling: str, host: str, device: str, plan: str) -> dict[Path, str]:
    """The files every family writes: tiling header, host source, kernel source, plan text."""
    return {
        Path("op_host") / f"{kernel}_tiling.h": tiling,
        Path("op_host") / f"{kernel}.cpp": host,
        Path("op_kernel") / f"{kernel}.cpp": device,
        Path("plan.txt"): plan + "\n",
    }


def _write(files: dict[Path, str], out: Path, ref: Path | None) -> LoweredProject:
    for d in ("op_host", "op_kernel", "framework"):
        if (out / d).is_dir():
            shutil.rmtree(out / d)
    for rel, text in files.items():
        p = out / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    if ref is not None and ref.is_file():
        shutil.copyfile(ref, out / "ref.py")
        files[Path("ref.py")] = ""
    return LoweredProject(root=out, files=sorted(files))


def write_project(
    plan: KernelPlan, chip: Chip, out: Path, ref: Path | None = None
) -> LoweredProject:
    """Writes the project under `out` (replacing generated files there)."""
    em = KernelEmitter(plan, chip)
    tiling_struct = f"{plan.op_name}TilingData"
    kernel = em.emit(tiling_struct)
    k = plan.kernel_name
    files = _files(k, tiling_header(plan), host_source(plan, chip, em), kernel, plan_text(plan))
    files |= {
        Path("framework") / f"{k}_binding.cpp": _binding(plan),
        Path("framework") / "model_new.py": _model_new(plan, ref.stem if ref else "ref"),
    }
    return _write(files, out, ref)


def write_conv_project(
    plan: ConvPlan, chip: Chip, out: Path, ref: Path | None = None
) -> LoweredProject:
    """Writes a convolution project under `out`: the slab lowering (Load3D from L1) where the
    plan chose it, else implicit GEMM over a gathered im2col workspace."""
    em = ConvSlabEmitter(plan, chip) if plan.slab else ConvEmitter(plan, chip)
    header = slab_tiling_header(plan) if plan.slab else conv_tiling_header(plan)
    return _write(
        _files(plan.kernel_name, header, em.host(), em.kernel(), conv_text(plan)),
        out,
        ref,
    )
