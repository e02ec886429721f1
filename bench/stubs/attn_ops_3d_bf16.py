"""Attention written with bmm on [B, S, D] in bfloat16, scores divided by sqrt(D)."""

import math

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, q, k, v):
        s = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(q.shape[-1])
        return torch.bmm(torch.softmax(s, dim=-1), v)


def get_inputs():
    return [
        torch.randn(3, 77, 64).bfloat16(),
        torch.randn(3, 129, 64).bfloat16(),
        torch.randn(3, 129, 64).bfloat16(),
    ]


def get_init_inputs():
    return []
