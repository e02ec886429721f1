"""A four-layer MLP (KernelBench level 3 style) in float32: four product stages in one kernel,
the most Matmul objects one kernel registers; each gets a quarter of L1 and L0 (at 260 rows
the four default base blocks overflow L0A together)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, sizes: tuple = (64, 300, 200, 150, 19)):
        super().__init__()
        layers: list[nn.Module] = []
        for a, b in zip(sizes[:-2], sizes[1:-1], strict=True):
            layers += [nn.Linear(a, b), nn.GELU()]
        layers.append(nn.Linear(sizes[-2], sizes[-1]))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def get_inputs():
    return [torch.randn(260, 64)]


def get_init_inputs():
    return []
