"""Exclusive cumsum: cat([zeros, x], 1)[:, :-1].cumsum(1) on (7, 74) float32."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.cat([torch.zeros_like(x[:, :1]), x], dim=1)[:, :-1].cumsum(dim=1)


def get_inputs():
    return [torch.randn(7, 74)]


def get_init_inputs():
    return []
