"""F.scaled_dot_product_attention in bfloat16, [B, H, S, D], Sk > one key block (online rescale)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v)


def get_inputs():
    return [
        torch.randn(1, 3, 77, 64).bfloat16(),
        torch.randn(1, 3, 150, 64).bfloat16(),
        torch.randn(1, 3, 150, 64).bfloat16(),
    ]


def get_init_inputs():
    return []
