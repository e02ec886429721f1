import torch


class Model(torch.nn.Module):
    def forward(self, x):
        scale = torch.tensor([1.0, 2.0, 3.0, 4.0]).unsqueeze(1)
        return (x.reshape(4, -1) * scale + 0.5).reshape(x.shape)


def get_inputs():
    return [torch.randn(64)]


def get_init_inputs():
    return []
