"""gemmtune.nn.Linear, a drop-in for torch.nn.Linear whose float32 CUDA products run through
gemmtune, and swap_linear(), which puts it in place of a model's torch.nn.Linear layers."""

from __future__ import annotations

from typing import Callable, Optional

import torch

from ._arguments import operator_failure
from ._library import ops


def linear(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor] = None) -> torch.Tensor:
    """torch.nn.functional.linear (x @ weight^T + bias) through the gemmtune::linear operator: float32
    CUDA tensors outside of CUDA autocast run the product on gemmtune (where it measured faster
    than cuBLAS, else PyTorch's; configure(fallback=...)) and add the bias after it; anything else
    (CPU, another dtype, autocast's lower precision) runs PyTorch's own linear.
    x (..., in) is flattened to (tokens, in): one row-major x times transposed-weight product, the
    "nt" problem that `gemmtune.capture` records for PyTorch's own linear layers."""
    try:
        return ops().linear(x, weight, bias)
    except (RuntimeError, ValueError, TypeError) as error:
        raise operator_failure("nn.linear", error, tensors={"x": x, "weight": weight, "bias": bias}) from None


class Linear(torch.nn.Linear):
    """torch.nn.Linear with its forward through gemmtune.nn.linear: same parameters, state dict,
    initialization and autograd; float32 CUDA inputs run on gemmtune's tuned kernels."""

    def forward(self, input: torch.Tensor) -> torch.Tensor:  # noqa: A002 (torch's name)
        return linear(input, self.weight, self.bias)

    @classmethod
    def from_linear(cls, layer: torch.nn.Linear) -> "Linear":
        """A gemmtune Linear sharing `layer`'s parameters (no copy: an optimizer holding them
        still updates this one) and training mode."""
        if not isinstance(layer, torch.nn.Linear):
            raise TypeError(f"gemmtune.nn.Linear.from_linear: layer is {type(layer).__name__}, not a torch.nn.Linear: pass a Linear layer")
        new = cls(layer.in_features, layer.out_features, bias=layer.bias is not None, device="meta")
        new.weight = layer.weight
        new.bias = layer.bias
        new.train(layer.training)
        return new


def swap_linear(module: torch.nn.Module, *, where: Optional[Callable[[str, torch.nn.Linear], bool]] = None) -> int:
    """Replaces, in place, every torch.nn.Linear inside `module` (exactly that class; subclasses
    with their own forward are left alone) by a gemmtune.nn.Linear sharing its parameters.
    `where(name, layer)`, when given, chooses which (name as in named_modules()). Returns how many
    were replaced. `module` itself cannot be replaced in place: use Linear.from_linear on it."""
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"gemmtune.nn.swap_linear: module is {type(module).__name__}, not a torch.nn.Module: pass the model")
    if where is not None and not callable(where):
        raise TypeError(f"gemmtune.nn.swap_linear: where is {type(where).__name__}: pass a function where(name, layer) -> bool, or None")
    if type(module) is torch.nn.Linear:
        raise TypeError("swap_linear replaces the layers inside a module; for a lone Linear use gemmtune.nn.Linear.from_linear(layer)")
    swapped = 0
    for parent_name, parent in list(module.named_modules()):
        for child_name, child in list(parent.named_children()):
            name = f"{parent_name}.{child_name}" if parent_name else child_name
            if type(child) is torch.nn.Linear and (where is None or where(name, child)):
                setattr(parent, child_name, Linear.from_linear(child))
                swapped += 1
    return swapped
