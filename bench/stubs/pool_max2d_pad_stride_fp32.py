"""F.max_pool2d(x, 3, 2, 1) on torch.randn(2, 16, 29, 30)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.max_pool2d(x, 3, 2, 1)


def get_inputs():
    return [torch.randn(2, 16, 29, 30)]


def get_init_inputs():
    return []
