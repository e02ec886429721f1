"""x + torch.arange(cols) on (7, 74) float32 (an int64 arange, promoted)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x + torch.arange(x.shape[1])


def get_inputs():
    return [torch.randn(7, 74)]


def get_init_inputs():
    return []
