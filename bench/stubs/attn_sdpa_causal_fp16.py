"""Causal self-attention: F.scaled_dot_product_attention(is_causal=True), [B, S, D], half."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


def get_inputs():
    return [
        torch.randn(2, 129, 64).half(),
        torch.randn(2, 129, 64).half(),
        torch.randn(2, 129, 64).half(),
    ]


def get_init_inputs():
    return []
