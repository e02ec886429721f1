"""LAMB step (t=3) on a 333x517 weight: one trust ratio for the whole tensor; returns (param, m, v)."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.b1, self.b2, self.lr, self.eps, self.wd, self.t = 0.9, 0.999, 1e-3, 1e-6, 0.01, 3

    def forward(self, p, g, m, v):
        m2 = self.b1 * m + (1 - self.b1) * g
        v2 = self.b2 * v + (1 - self.b2) * g * g
        mhat = m2 / (1 - self.b1 ** self.t)
        vhat = v2 / (1 - self.b2 ** self.t)
        update = mhat / (torch.sqrt(vhat) + self.eps) + self.wd * p
        w_norm = torch.norm(p)
        u_norm = torch.norm(update)
        trust = torch.where((w_norm > 0) & (u_norm > 0), w_norm / u_norm, torch.ones_like(w_norm))
        return p - self.lr * trust * update, m2, v2


def get_inputs():
    return [torch.randn(333, 517), torch.randn(333, 517), torch.randn(333, 517) * 0.1, torch.rand(333, 517)]


def get_init_inputs():
    return []
