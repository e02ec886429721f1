"""masked_fill with a comparison mask of another tensor."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return x.masked_fill(y < 0, -1.5)


def get_inputs():
    return [torch.randn(333, 517), torch.randn(333, 517)]


def get_init_inputs():
    return []
