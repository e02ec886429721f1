"""Dice loss of sigmoid probabilities against a 0/1 mask (smooth 1)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, t):
        return 1 - (2 * (torch.sigmoid(x) * t).sum() + 1) / (torch.sigmoid(x).sum() + t.sum() + 1)


def get_inputs():
    return [torch.randn(333, 517), torch.rand(333, 517).round()]


def get_init_inputs():
    return []
