"""Casts: x.long() truncates toward zero, x.bool() tests != 0 (both back to float)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return (x * 4).long().float() + torch.relu(x).bool().float()


def get_inputs():
    return [torch.randn(333, 517)]


def get_init_inputs():
    return []
