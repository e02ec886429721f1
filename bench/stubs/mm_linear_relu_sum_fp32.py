"""nn.Linear + ReLU, then a sum over the features (keepdim): a matrix product followed by a
row reduction, generated as two stages of one kernel (product to the workspace, SyncAll, the
reduction)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features: int = 37, out_features: int = 45):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.relu(self.linear(x)).sum(dim=1, keepdim=True)


def get_inputs():
    return [torch.randn(7, 37)]


def get_init_inputs():
    return []
