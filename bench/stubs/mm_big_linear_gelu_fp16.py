"""GELU(nn.Linear) at a transformer-like size, fp16: the cube's time shows next to launch."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features).half()

    def forward(self, x):
        return F.gelu(self.fc(x))


def get_inputs():
    return [torch.randn(767, 1024, dtype=torch.float16)]


def get_init_inputs():
    return [1024, 1023]
