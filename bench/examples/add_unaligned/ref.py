"""z = x + y on 1000 x 33 elements: 33000 is no multiple of the per-core block split."""

import torch
import torch.nn as nn

M = 1000
N = 33


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return x + y


def get_inputs():
    return [torch.randn(M, N), torch.randn(M, N)]


def get_init_inputs():
    return []
