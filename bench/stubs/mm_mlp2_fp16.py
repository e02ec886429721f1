"""A two-layer MLP block in half precision: Linear -> GELU -> Linear, two matrix products in a
row, generated as two stages of one kernel (the hidden activations go through the workspace)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features: int = 37, hidden: int = 45, out_features: int = 29):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden).half()
        self.fc2 = nn.Linear(hidden, out_features).half()

    def forward(self, x):
        return self.fc2(torch.nn.functional.gelu(self.fc1(x)))


def get_inputs():
    return [torch.randn(7, 37, dtype=torch.float16)]


def get_init_inputs():
    return []
