"""torch.var_mean over the last dim: (var, mean)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.var_mean(x, dim=-1)


def get_inputs():
    return [torch.randn(333, 517)]


def get_init_inputs():
    return []
