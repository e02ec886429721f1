"""x plus x shifted right by 20 columns with zeros in front (a 20-element fill, wider than one 32-byte block) on (7, 37) float32."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.cat([torch.zeros_like(x[:, :20]), x], dim=1)[:, :-20] + x


def get_inputs():
    return [torch.randn(7, 37)]


def get_init_inputs():
    return []
