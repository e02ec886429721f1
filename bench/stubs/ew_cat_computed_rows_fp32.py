"""A cat of computed tensors along the rows: cat([exp(x), sigmoid(y)], 0) on two (7, 37) float32 inputs (the parts stored at rows 0 and 7 of the (14, 37) output)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return torch.cat([torch.exp(x), torch.sigmoid(y)], 0)


def get_inputs():
    return [torch.randn(7, 37), torch.randn(7, 37)]


def get_init_inputs():
    return []
