"""nn.Linear + ReLU in bfloat16, then the max over the features (torch.max(..., dim=1,
keepdim=True)[0], as KernelBench's Gemm_Max models write it): a second, reducing stage."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features: int = 37, out_features: int = 45):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features).to(torch.bfloat16)

    def forward(self, x):
        return torch.max(torch.relu(self.linear(x)), dim=1, keepdim=True)[0]


def get_inputs():
    return [torch.randn(7, 37, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
