"""torch.trunc toward zero."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.trunc(x * 3)


def get_inputs():
    return [torch.randn(4097)]


def get_init_inputs():
    return []
