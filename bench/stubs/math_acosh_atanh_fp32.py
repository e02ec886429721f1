"""torch.acosh of values >= 1 and torch.atanh of values in (-1, 1)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return (torch.acosh(x), torch.atanh(y))


def get_inputs():
    return [torch.rand(333, 517) * 5 + 1, torch.rand(333, 517) * 1.8 - 0.9]


def get_init_inputs():
    return []
