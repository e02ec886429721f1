"""torch.sinh and torch.cosh of 10x, two outputs (finite up to the float32 range)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return (torch.sinh(x * 10), torch.cosh(x * 10))


def get_inputs():
    return [torch.randn(333, 517)]


def get_init_inputs():
    return []
