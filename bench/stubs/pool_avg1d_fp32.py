"""F.avg_pool1d(x, 5, 3, 2) on torch.randn(4, 8, 300)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.avg_pool1d(x, 5, 3, 2)


def get_inputs():
    return [torch.randn(4, 8, 300)]


def get_init_inputs():
    return []
