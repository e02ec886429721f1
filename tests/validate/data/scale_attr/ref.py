"""y = x * scale, the scale a float argument of forward (bound to the attribute scale by name)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x: torch.Tensor, scale: float) -> torch.Tensor:
        return x * scale


def get_inputs():
    return [torch.randn(4, 64), 0.375]


def get_init_inputs():
    return []
