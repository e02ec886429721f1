"""A two-layer MLP block in bfloat16 over tokens (batch x tokens x features): Linear -> ReLU ->
Linear, both products folding the batch into M, as two product stages of one kernel."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features: int = 37, hidden: int = 45, out_features: int = 29):
        super().__init__()
        self.fc1 = nn.Linear(in_features, hidden).to(torch.bfloat16)
        self.fc2 = nn.Linear(hidden, out_features).to(torch.bfloat16)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def get_inputs():
    return [torch.randn(2, 7, 37, dtype=torch.bfloat16)]


def get_init_inputs():
    return []
