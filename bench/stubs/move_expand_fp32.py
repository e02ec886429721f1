"""x.expand(...).contiguous(): broadcast a size-1 middle axis into a copy."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x):
        return x.expand(5, 7, 33).contiguous()


def get_inputs():
    return [torch.randn(5, 1, 33)]


def get_init_inputs():
    return []
