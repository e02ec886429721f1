"""torch.flip over the first and last axes (negative strides)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.flip(x, [0, -1])


def get_inputs():
    return [torch.randn(6, 7, 37)]


def get_init_inputs():
    return []
