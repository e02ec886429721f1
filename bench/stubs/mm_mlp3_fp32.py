"""A three-layer MLP (KernelBench level 3 style): Linear -> ReLU -> Linear -> ReLU -> Linear, as
three product stages of one kernel, each intermediate through the GM workspace."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features: int = 37, hidden: tuple = (45, 33), out_features: int = 29):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(in_features, hidden[0]),
            nn.ReLU(),
            nn.Linear(hidden[0], hidden[1]),
            nn.ReLU(),
            nn.Linear(hidden[1], out_features),
        )

    def forward(self, x):
        return self.net(x)


def get_inputs():
    return [torch.randn(7, 37)]


def get_init_inputs():
    return []
