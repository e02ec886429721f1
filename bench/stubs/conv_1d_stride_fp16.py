"""F.conv1d with stride 3 and no bias in fp16 (weight as a forward input)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, w):
        return F.conv1d(x, w, stride=3)


def get_inputs():
    return [torch.randn(2, 4, 41, dtype=torch.float16), torch.randn(6, 4, 5, dtype=torch.float16)]


def get_init_inputs():
    return []
