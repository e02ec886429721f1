"""torch.stack of three tensors along a middle axis."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, y, z):
        return torch.stack([x, y, z], dim=1)


def get_inputs():
    return [torch.randn(7, 13), torch.randn(7, 13), torch.randn(7, 13)]


def get_init_inputs():
    return []
