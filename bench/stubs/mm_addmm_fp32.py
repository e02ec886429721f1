"""torch.addmm with beta and alpha: beta * c + alpha * (a @ b)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, c, a, b):
        return torch.addmm(c, a, b, beta=0.5, alpha=2.0)


def get_inputs():
    return [torch.randn(33, 45), torch.randn(33, 17), torch.randn(17, 45)]


def get_init_inputs():
    return []
