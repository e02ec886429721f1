"""A two-dim stencil difference: x[:, 1:, 1:] - x[:, :-1, :-1] on (3, 7, 37) float32 (reads at offsets along two dims)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x[:, 1:, 1:] - x[:, :-1, :-1]


def get_inputs():
    return [torch.randn(3, 7, 37)]


def get_init_inputs():
    return []
