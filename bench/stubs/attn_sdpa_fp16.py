"""F.scaled_dot_product_attention in half, [B, H, S, D] with D = 128, Sq != Sk, default scale."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v)


def get_inputs():
    return [
        torch.randn(2, 2, 129, 128).half(),
        torch.randn(2, 2, 77, 128).half(),
        torch.randn(2, 2, 77, 128).half(),
    ]


def get_init_inputs():
    return []
