"""The foreach family: a list of tensors times a scalar, returned as a new list."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, xs: list[torch.Tensor], scalar: float) -> list[torch.Tensor]:
        return [x * scalar for x in xs]


def get_inputs():
    return [[torch.randn(2, 32), torch.randn(2, 32), torch.randn(2, 32)], 1.5]


def get_init_inputs():
    return []
