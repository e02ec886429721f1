"""Cross entropy with K-dim targets and class weights (weighted mean)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, t, w):
        return F.cross_entropy(x, t, weight=w)


def get_inputs():
    return [torch.randn(4, 19, 301), torch.randint(0, 19, (4, 301)), torch.rand(19) + 0.1]


def get_init_inputs():
    return []
