"""F.interpolate(mode='nearest') to a given size (non-integer ratios), fp16."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x):
        return F.interpolate(x, size=(11, 20), mode="nearest")


def get_inputs():
    return [torch.randn(1, 4, 7, 9, dtype=torch.float16)]


def get_init_inputs():
    return []
