"""F.interpolate(mode='bilinear', align_corners=False) to a given size."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, x):
        return F.interpolate(x, size=(15, 22), mode="bilinear", align_corners=False)


def get_inputs():
    return [torch.randn(2, 3, 8, 11)]


def get_init_inputs():
    return []
