"""torch.baddbmm with beta and alpha."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, c, a, b):
        return torch.baddbmm(c, a, b, beta=0.25, alpha=1.5)


def get_inputs():
    return [torch.randn(3, 21, 30), torch.randn(3, 21, 11), torch.randn(3, 11, 30)]


def get_init_inputs():
    return []
