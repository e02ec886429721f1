import torch


class Model(torch.nn.Module):
    def forward(self, srcList):
        return srcList[0] + srcList[1] + srcList[2]


def get_inputs():
    return [[torch.randn(8, 64) for _ in range(3)]]


def get_init_inputs():
    return []
