"""AdamW step (t=2): returns (param, m, v)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self, ):
        super().__init__()
        self.b1, self.b2, self.lr, self.eps, self.t, self.wd = 0.9, 0.999, 1e-3, 1e-8, 2, 0.01

    def step(self, p, g, m, v):
        m2 = self.b1 * m + (1 - self.b1) * g
        v2 = self.b2 * v + (1 - self.b2) * g * g
        mhat = m2 / (1 - self.b1 ** self.t)
        vhat = v2 / (1 - self.b2 ** self.t)
        p0 = p * (1 - self.lr * self.wd)
        return p0 - self.lr * mhat / (torch.sqrt(vhat) + self.eps), m2, v2

    def forward(self, p, g, m, v):
        return self.step(p, g, m, v)


def get_inputs():
    return [torch.randn((300, 31), dtype=torch.float32), torch.randn((300, 31), dtype=torch.float32), torch.randn((300, 31), dtype=torch.float32), torch.rand(300, 31)]


def get_init_inputs():
    return []
