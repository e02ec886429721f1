"""SDPA with a full additive half mask [B, H, Sq, Sk] (one per batch and head)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, q, k, v, mask):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def get_inputs():
    return [
        torch.randn(2, 2, 45, 64).half(),
        torch.randn(2, 2, 129, 64).half(),
        torch.randn(2, 2, 129, 64).half(),
        torch.randn(2, 2, 45, 129).half(),
    ]


def get_init_inputs():
    return []
