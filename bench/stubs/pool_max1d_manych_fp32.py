"""F.max_pool1d(x, 4, 2, 1) on torch.randn(4, 256, 300): 1-D, many channels (1024 short rows)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.max_pool1d(x, 4, 2, 1)


def get_inputs():
    return [torch.randn(4, 256, 300)]


def get_init_inputs():
    return []
