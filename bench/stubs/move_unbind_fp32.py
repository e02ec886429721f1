"""torch.unbind along a middle axis: one output per index."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.unbind(x, dim=1)


def get_inputs():
    return [torch.randn(9, 3, 13)]


def get_init_inputs():
    return []
