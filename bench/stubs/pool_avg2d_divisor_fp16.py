"""F.avg_pool2d(x, 3, 2, 1, divisor_override=5) on a float16 (2, 4, 9, 11) input."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.avg_pool2d(x, 3, 2, 1, divisor_override=5)


def get_inputs():
    return [torch.randn(2, 4, 9, 11, dtype=torch.float16)]


def get_init_inputs():
    return []
