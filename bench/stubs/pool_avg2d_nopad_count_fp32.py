"""F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False) on torch.randn(2, 3, 20, 21)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False)


def get_inputs():
    return [torch.randn(2, 3, 20, 21)]


def get_init_inputs():
    return []
