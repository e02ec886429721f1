"""F.glu(x, dim=-1) on (7, 2*37) float32: both halves read from one input."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.glu(x, dim=-1)


def get_inputs():
    return [torch.randn(7, 74)]


def get_init_inputs():
    return []
