"""nn.Conv2d with bias in bfloat16: 3 x 3 kernel, padding 1, odd 11 x 21 image."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(6, 10, 3, padding=1).to(torch.bfloat16)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(1, 6, 11, 21, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
