"""F.interpolate(mode='bilinear', align_corners=True, scale_factor=2), bfloat16."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)


def get_inputs():
    return [torch.randn(1, 3, 7, 10, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
