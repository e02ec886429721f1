"""nn.Linear over a 3-D fp16 activation (batch x tokens x features)."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features).half()

    def forward(self, x):
        return self.fc(x)


def get_inputs():
    return [torch.randn(2, 37, 24, dtype=torch.float16)]


def get_init_inputs():
    return [24, 35]
