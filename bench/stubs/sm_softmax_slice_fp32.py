"""A slice of a softmax's epilogue: torch.softmax(x, -1)[:, :20] on (7, 37) float32 (the row statistics over all 37 columns, the first 20 columns of each tile stored)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, -1)[:, :20]


def get_inputs():
    return [torch.randn(7, 37)]


def get_init_inputs():
    return []
