"""torch.mm with a small K (3): rank-3 update shape."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.mm(a, b)


def get_inputs():
    return [torch.randn(70, 3), torch.randn(3, 41)]


def get_init_inputs():
    return []
