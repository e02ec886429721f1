"""Cross entropy with K-dim targets: logits (N, C, d), targets (N, d), mean."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, t):
        return F.cross_entropy(x, t)


def get_inputs():
    return [torch.randn(5, 11, 333), torch.randint(0, 11, (5, 333))]


def get_init_inputs():
    return []
