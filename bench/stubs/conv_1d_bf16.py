"""nn.Conv1d (bias, padding 1, groups 2) in bfloat16, odd length 29."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 6, 3, padding=1, groups=2).to(torch.bfloat16)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(2, 4, 29, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
