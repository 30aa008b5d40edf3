"""Entry points for `python -m gemmtune capture` in the tests."""

import torch


def mlp():
    """A two-layer MLP head with a GPT-2-sized vocabulary: (model, example_inputs)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(257, 1000), torch.nn.ReLU(), torch.nn.Linear(1000, 50257, bias=False))
    return model, (torch.randn(3, 4, 257),)


def not_a_pair():
    return torch.nn.Linear(2, 2)


def not_a_model():
    return "model", (torch.ones(2),)
