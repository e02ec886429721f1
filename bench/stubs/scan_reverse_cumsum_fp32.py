"""torch.cumsum(x.flip(1), dim=1).flip(1) on torch.randn(20, 513)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.cumsum(x.flip(1), dim=1).flip(1)


def get_inputs():
    return [torch.randn(20, 513)]


def get_init_inputs():
    return []
