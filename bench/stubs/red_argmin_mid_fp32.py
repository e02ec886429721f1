"""torch.argmin(x, dim=1) on torch.randn(8, 50, 33)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.argmin(x, dim=1)


def get_inputs():
    return [torch.randn(8, 50, 33)]


def get_init_inputs():
    return []
