"""x.transpose(-1, -2).contiguous(): batched last-two-axes transpose, odd sizes."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x.transpose(-1, -2).contiguous()


def get_inputs():
    return [torch.randn(3, 70, 45)]


def get_init_inputs():
    return []
