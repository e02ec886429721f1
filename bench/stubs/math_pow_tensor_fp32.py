"""x ** y with tensor exponents: negative bases with integral exponents, NaN for fractional ones, x ** 0 = 1."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return torch.pow(x, y)


def get_inputs():
    return [torch.randn(129, 257) * 2, torch.where(torch.rand(129, 257) < 0.7, torch.randint(-3, 4, (129, 257)).float(), torch.rand(129, 257) * 2)]


def get_init_inputs():
    return []
