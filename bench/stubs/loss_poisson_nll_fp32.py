"""Poisson NLL loss with log input (mean)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, t):
        return F.poisson_nll_loss(x, t)


def get_inputs():
    return [torch.randn(333, 517), torch.rand(333, 517) * 3]


def get_init_inputs():
    return []
