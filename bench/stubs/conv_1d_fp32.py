"""nn.Conv1d with bias, padding 2, dilation 2, then GELU: odd length 37."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(5, 11, 3, padding=2, dilation=2)

    def forward(self, x):
        return torch.nn.functional.gelu(self.conv(x))


def get_inputs():
    return [torch.randn(3, 5, 37)]


def get_init_inputs():
    return []
