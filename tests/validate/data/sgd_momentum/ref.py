"""SGD with momentum in place: the forward updates param and buf and returns None; lr and
momentum are float arguments of forward."""

import torch
import torch.nn as nn


class Model(nn.Module):
    def forward(self, param, grad, buf, lr: float, momentum: float) -> None:
        buf.mul_(momentum).add_(grad)
        param.sub_(lr * buf)


def get_inputs():
    return [torch.randn(8, 32), torch.randn(8, 32), torch.randn(8, 32), 0.1, 0.9]


def get_init_inputs():
    return []
