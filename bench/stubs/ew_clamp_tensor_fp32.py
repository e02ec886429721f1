"""torch.clamp with tensor bounds (lower full-shaped, upper row-broadcast)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, lo, hi):
        return torch.clamp(x, min=lo, max=hi)


def get_inputs():
    return [torch.randn(333, 517), -torch.rand(333, 517), torch.rand(517)]


def get_init_inputs():
    return []
