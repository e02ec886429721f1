import torch


class Model(torch.nn.Module):
    def forward(self, a, b):
        return torch.matmul(a.float(), b.float())


def get_inputs():
    return [torch.randint(-4, 5, (96, 64)).half(), torch.randint(-4, 5, (64, 128)).half()]


def get_init_inputs():
    return []
