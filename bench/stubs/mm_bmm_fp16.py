"""torch.bmm in fp16, odd sizes."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.bmm(a, b)


def get_inputs():
    return [
        torch.randn(3, 33, 20, dtype=torch.float16),
        torch.randn(3, 20, 29, dtype=torch.float16),
    ]


def get_init_inputs():
    return []
