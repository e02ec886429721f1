"""F.scaled_dot_product_attention with a bool mask (True attends) [B, 1, Sq, Sk], in half."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, q, k, v, mask):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def get_inputs():
    return [
        torch.randn(2, 3, 45, 64).half(),
        torch.randn(2, 3, 77, 64).half(),
        torch.randn(2, 3, 77, 64).half(),
        torch.rand(2, 1, 45, 77) > 0.3,
    ]


def get_init_inputs():
    return []
