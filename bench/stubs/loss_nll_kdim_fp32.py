"""nll_loss of log_softmax over dim 1 with K-dim targets (N, d)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, t):
        return F.nll_loss(F.log_softmax(x, 1), t)


def get_inputs():
    return [torch.randn(5, 11, 333), torch.randint(0, 11, (5, 333))]


def get_init_inputs():
    return []
