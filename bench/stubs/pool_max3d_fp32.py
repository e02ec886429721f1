"""F.max_pool3d(x, 2, 2) on torch.randn(2, 4, 9, 10, 11)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.max_pool3d(x, 2, 2)


def get_inputs():
    return [torch.randn(2, 4, 9, 10, 11)]


def get_init_inputs():
    return []
