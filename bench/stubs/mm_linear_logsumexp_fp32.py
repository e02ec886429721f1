"""nn.Linear over a 3-D activation (batch x tokens x features) + sigmoid, then logsumexp over
the features: the product folds its batch into M in stage one, the row logsumexp is stage two."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features: int = 37, out_features: int = 29):
        super().__init__()
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return torch.logsumexp(torch.sigmoid(self.linear(x)), dim=-1)


def get_inputs():
    return [torch.randn(3, 7, 37)]


def get_init_inputs():
    return []
