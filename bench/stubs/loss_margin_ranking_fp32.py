"""Margin ranking loss, margin 0.3."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b, y):
        return F.margin_ranking_loss(a, b, y, margin=0.3)


def get_inputs():
    return [torch.randn(4097), torch.randn(4097), torch.randint(0, 2, (4097,)).float() * 2 - 1]


def get_init_inputs():
    return []
