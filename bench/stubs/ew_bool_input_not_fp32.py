"""A bool mask input: where(~m & (x > 0), x, -x)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, m):
        return torch.where(~m & (x > 0), x, -x)


def get_inputs():
    return [torch.randn(129, 257), torch.rand(129, 257) > 0.5]


def get_init_inputs():
    return []
