"""torch.round(x, decimals=1) in bfloat16."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.round(x, decimals=1)


def get_inputs():
    return [torch.randn(129, 257, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
