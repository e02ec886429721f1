"""x * weight + bias with weight a parameter and bias a buffer: they bind after the inputs."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, cols: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(cols))
        self.register_buffer("bias", torch.randn(cols))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.weight + self.bias


def get_inputs():
    return [torch.randn(64, 256)]


def get_init_inputs():
    return [256]
