"""Frobenius norm of the whole tensor."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.norm(x)


def get_inputs():
    return [torch.randn((77, 130), dtype=torch.float32)]


def get_init_inputs():
    return []
