"""2 ** x and 0.5 ** x (a scalar base, tensor exponent)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return 2 ** x + 0.5 ** x


def get_inputs():
    return [torch.randn(333, 517)]


def get_init_inputs():
    return []
