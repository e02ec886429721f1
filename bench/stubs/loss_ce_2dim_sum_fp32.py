"""Cross entropy over (N, C, H, W) logits with (N, H, W) targets, sum reduction."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, t):
        return F.cross_entropy(x, t, reduction='sum')


def get_inputs():
    return [torch.randn(3, 7, 9, 13), torch.randint(0, 7, (3, 9, 13))]


def get_init_inputs():
    return []
