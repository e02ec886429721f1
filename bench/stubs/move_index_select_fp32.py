"""torch.index_select of rows (axis 0) with int64 indices, repeats included."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, x, idx):
        return torch.index_select(x, 0, idx)


def get_inputs():
    return [torch.randn(23, 37), torch.randint(0, 23, (11,))]


def get_init_inputs():
    return []
