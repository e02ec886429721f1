"""x[:, 2:-1]: a step-1 slice of a middle axis (negative end)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x[:, 2:-1]


def get_inputs():
    return [torch.randn(3, 19, 7)]


def get_init_inputs():
    return []
