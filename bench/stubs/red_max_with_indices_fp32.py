"""torch.max(x, dim=1) on torch.randn(40, 300)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.max(x, dim=1)


def get_inputs():
    return [torch.randn(40, 300)]


def get_init_inputs():
    return []
