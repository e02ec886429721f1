"""F.max_pool1d(x, 4, 2, 1) on torch.randn(8, 16, 257)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.max_pool1d(x, 4, 2, 1)


def get_inputs():
    return [torch.randn(8, 16, 257)]


def get_init_inputs():
    return []
