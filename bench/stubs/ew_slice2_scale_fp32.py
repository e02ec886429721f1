"""A slice along two dims inside compute: x[:, 1:, :-1] * 2 on (3, 7, 37) float32 (rows from 1, the last column dropped)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x[:, 1:, :-1] * 2


def get_inputs():
    return [torch.randn(3, 7, 37)]


def get_init_inputs():
    return []
