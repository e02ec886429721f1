"""LayerNorm over the last two dims."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, a, b):
        super().__init__()
        self.ln = nn.LayerNorm((a, b))

    def forward(self, x):
        return self.ln(x)


def get_inputs():
    return [torch.randn((16, 12, 33), dtype=torch.float32)]


def get_init_inputs():
    return [12, 33]
