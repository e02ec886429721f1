"""NLL loss with sum reduction on log-probabilities."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, t):
        return F.nll_loss(torch.log_softmax(x, dim=1), t, reduction="sum")


def get_inputs():
    return [torch.randn(64, 33), torch.randint(0, 33, (64,))]


def get_init_inputs():
    return []
