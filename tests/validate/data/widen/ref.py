"""Widen half to float: the kernel writes float32 although its only input is float16."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.float()


def get_inputs():
    return [torch.randn(1024).half()]


def get_init_inputs():
    return []
