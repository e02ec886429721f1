"""A two-layer MLP block in float32: Linear -> ReLU -> Linear (both biases added by the Matmul
API), generated as two product stages of one kernel."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features: int = 37, hidden: int = 45, out_features: int = 29):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(in_features, hidden), nn.ReLU(), nn.Linear(hidden, out_features)
        )

    def forward(self, x):
        return self.net(x)


def get_inputs():
    return [torch.randn(7, 37)]


def get_init_inputs():
    return []
