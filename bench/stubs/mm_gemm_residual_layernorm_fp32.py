"""Gemm -> scale -> residual add (of the scaled result to itself, as KernelBench's
Gemm_Scaling_ResidualAdd writes it) -> LayerNorm over the features: the norm runs as the
kernel's second stage."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features: int = 37, out_features: int = 45, scale: float = 0.5):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.norm = nn.LayerNorm(out_features)
        self.scale = scale

    def forward(self, x):
        y = self.gemm(x)
        y = y * self.scale + y
        return self.norm(y)


def get_inputs():
    return [torch.randn(7, 37)]


def get_init_inputs():
    return []
