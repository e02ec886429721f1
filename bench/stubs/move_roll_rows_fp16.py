"""torch.roll along axis 0 by a negative shift, fp16 (rows copied from rotated positions)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return torch.roll(x, -2, dims=0)


def get_inputs():
    return [torch.randn(13, 35, dtype=torch.float16)]


def get_init_inputs():
    return []
