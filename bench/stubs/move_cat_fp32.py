"""torch.cat of three tensors along a middle axis."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, y, z):
        return torch.cat([x, y, z], dim=1)


def get_inputs():
    return [torch.randn(3, 5, 7), torch.randn(3, 4, 7), torch.randn(3, 2, 7)]


def get_init_inputs():
    return []
