"""Masked cumulative sum: cumsum(x * mask) with a bool mask."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, mask):
        return torch.cumsum(x * mask, dim=1)


def get_inputs():
    return [torch.randn(32, 777), torch.randint(0, 2, (32, 777)).bool()]


def get_init_inputs():
    return []
