"""F.avg_pool2d(x, (2, 3), (1, 2), (1, 1), ceil_mode=True) on a bfloat16 (2, 6, 15, 33) input: bf16, ceil mode windows clipped by the right padding."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.avg_pool2d(x, (2, 3), (1, 2), (1, 1), ceil_mode=True)


def get_inputs():
    return [torch.randn(2, 6, 15, 33, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
