"""torch.addcdiv: x + 0.5 * a / b."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, a, b):
        return torch.addcdiv(x, a, b, value=0.5)


def get_inputs():
    return [torch.randn(333, 517), torch.randn(333, 517), torch.rand(333, 517) + 0.1]


def get_init_inputs():
    return []
