"""x * logical_and(x > 0, y < 0.5): a bool mask of two comparisons used as a factor."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return x * torch.logical_and(x > 0, y < 0.5)


def get_inputs():
    return [torch.randn(333, 517), torch.randn(333, 517)]


def get_init_inputs():
    return []
