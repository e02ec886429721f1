"""A cat of computed tensors: cat([relu(x), y * 2], -1) on two (7, 37) float32 inputs (each part's tile stored into its column range of the (7, 74) output)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return torch.cat([torch.relu(x), y * 2], -1)


def get_inputs():
    return [torch.randn(7, 37), torch.randn(7, 37)]


def get_init_inputs():
    return []
