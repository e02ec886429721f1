"""BatchNorm2d inference."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.bn = nn.BatchNorm2d(c)
        self.bn.running_mean.normal_(); self.bn.running_var.uniform_(0.5, 2.0)

    def forward(self, x):
        return self.bn(x)


def get_inputs():
    return [torch.randn((4, 16, 13, 15), dtype=torch.float32)]


def get_init_inputs():
    return [16]
