"""Poisson NLL loss on rates (log_input=False) with the Stirling term (full=True)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, t):
        return F.poisson_nll_loss(x, t, log_input=False, full=True)


def get_inputs():
    return [torch.rand(333, 517) + 0.1, torch.rand(333, 517) * 3]


def get_init_inputs():
    return []
