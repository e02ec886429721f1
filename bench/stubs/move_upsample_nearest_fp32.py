"""F.interpolate(mode='nearest', scale_factor=2) of an NCHW tensor, odd sizes."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=2, mode="nearest")


def get_inputs():
    return [torch.randn(2, 3, 9, 13)]


def get_init_inputs():
    return []
