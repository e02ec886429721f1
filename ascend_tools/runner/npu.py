"""The NPU backend probe: whether this machine can run an op through torch_npu, and if not, why."""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping

from pydantic import BaseModel

from ascend_tools.toolchain.cann import probe_cann


class NpuStatus(BaseModel):
    available: bool
    missing: list[str]

    def summary(self) -> str:
        return "NPU available" if self.available else "no NPU: " + "; ".join(self.missing)


def probe_npu(env: Mapping[str, str] | None = None) -> NpuStatus:
    """Checks, cheapest first: torch_npu installed, a complete CANN toolkit, a visible device."""
    missing = []
    if importlib.util.find_spec("torch_npu") is None:
        missing.append("python package torch_npu is not installed")
    cann = probe_cann(env)
    if not cann.complete:
        missing.append(cann.summary())
    if not missing:
        import torch
        import torch_npu  # type: ignore[import-not-found]  # noqa: F401

        if not torch.npu.is_available():  # type: ignore[attr-defined]
            missing.append("torch_npu reports no NPU device (torch.npu.is_available() is False)")
    return NpuStatus(available=not missing, missing=missing)
