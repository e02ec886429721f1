"""Causal SDPA in bfloat16 with D = 128, Sq > Sk (the last query rows see every key)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def get_inputs():
    return [
        torch.randn(1, 2, 129, 128).bfloat16(),
        torch.randn(1, 2, 77, 128).bfloat16(),
        torch.randn(1, 2, 77, 128).bfloat16(),
    ]


def get_init_inputs():
    return []
