"""Checks of the public functions' arguments: a clear TypeError or ValueError that names the argument,
says what was given and what to pass. The operators check tensors and values themselves (in C++);
what is checked here is what PyTorch's argument parsing would refuse with an unclear message (a
Python object of the wrong kind) and what Python alone can see (bytes, paths).

mm, bmm and linear call `operator_failure` only after their operator failed, so that a good call
runs no Python check at all."""

from __future__ import annotations

import numbers
import operator
import os
from typing import Any, Optional

import torch

from . import errors


def _kind(value: Any) -> str:
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def tensor_type_error(function: str, name: str, value: Any) -> Optional[TypeError]:
    """The TypeError for `value` given as the tensor argument `name` of gemmtune.`function`, or None
    when it is a tensor."""
    if isinstance(value, torch.Tensor):
        return None
    hint = " (torch.from_numpy or torch.as_tensor makes one)" if hasattr(value, "__array__") else ""
    return TypeError(f"gemmtune.{function}: {name} is {_kind(value)}, not a torch.Tensor: pass a float32 CUDA tensor{hint}")


def real_type_error(function: str, name: str, value: Any) -> Optional[TypeError]:
    """The TypeError for `value` given as the scalar argument `name`, or None when it is a real number."""
    if isinstance(value, numbers.Real):
        return None
    hint = f" ({name}.item() gives one)" if isinstance(value, torch.Tensor) and value.numel() == 1 else ""
    return TypeError(f"gemmtune.{function}: {name} = {_shown(value)} is {_kind(value)}: pass a Python float{hint}")


def operator_failure(function: str, error: Exception, *, tensors: dict, reals: dict = {}) -> Exception:  # noqa: B006 (read only)
    """The exception to raise when an operator of gemmtune.`function` failed with `error`: a
    TypeError naming an argument of the wrong kind (PyTorch's parser says only which type it
    expected), gemmtune's class for a library failure, else `error` itself."""
    for name, value in tensors.items():
        if value is not None or name in ("a", "b", "x", "weight"):
            found = tensor_type_error(function, name, value)
            if found is not None:
                return found
    for name, value in reals.items():
        found = real_type_error(function, name, value)
        if found is not None:
            return found
    return errors.from_torch(error) or error


def integer(function: str, name: str, value: Any) -> int:
    """`value` as a Python int (ints and objects with __index__, such as NumPy integers; not bool,
    not float: a size is never 64.0 by accident) that fits int64; the operator checks its range."""
    if isinstance(value, bool):
        raise TypeError(f"gemmtune.{function}: {name} = {value} is bool: pass an int")
    try:
        result = operator.index(value)
    except TypeError:
        raise TypeError(f"gemmtune.{function}: {name} = {_shown(value)} is {_kind(value)}: pass an int") from None
    if not -(2**63) <= result < 2**63:  # what an operator's int (int64) holds
        raise ValueError(f"gemmtune.{function}: {name} = {result} is out of range (int64)")
    return result


def integers(function: str, name: str, value: Any) -> list:
    """A sequence of ints (a list, tuple or torch.Size) as a list of Python ints."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or not hasattr(value, "__iter__"):
        raise TypeError(f"gemmtune.{function}: {name} = {_shown(value)} is {_kind(value)}: pass a sequence of ints (a list, tuple or torch.Size)")
    return [integer(function, f"{name}[{i}]", v) for i, v in enumerate(value)]


def flag(function: str, name: str, value: Any) -> bool:
    """A bool option: True or False only (bool("no") would be True)."""
    if not isinstance(value, bool):
        raise TypeError(f"gemmtune.{function}: {name} = {_shown(value)} is {_kind(value)}: pass True or False")
    return value


def choice(function: str, name: str, value: Any, allowed: tuple) -> str:
    """A string option among `allowed`."""
    if not isinstance(value, str):
        raise TypeError(f"gemmtune.{function}: {name} = {_shown(value)} is {_kind(value)}: pass one of {', '.join(allowed)}")
    if value not in allowed:
        raise ValueError(f"{name} = {value!r}: use one of {', '.join(allowed)}")
    return value


def text(function: str, name: str, value: Any, *, one_line: bool = False) -> str:
    """A str argument; with `one_line`, without line breaks (it goes into one line of a file)."""
    if not isinstance(value, str):
        raise TypeError(f"gemmtune.{function}: {name} = {_shown(value)} is {_kind(value)}: pass a str")
    if one_line and any(c in value for c in "\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"):
        raise ValueError(f"gemmtune.{function}: {name} = {_shown(value)} has a line break: it is written on one line; pass one line")
    return value


def path(function: str, name: str, value: Any, *, utf8: bool = False) -> str:
    """A file path as str: a str, bytes (decoded as the file system does, os.fsdecode) or an
    os.PathLike. Refused: another kind, an empty path, a NUL byte (which would cut the path where
    C reads it); with `utf8` (a path for the library, whose paths are UTF-8), a name that is not
    valid UTF-8."""
    try:
        result = os.fsdecode(os.fspath(value))
    except TypeError:
        raise TypeError(
            f"gemmtune.{function}: {name} = {_shown(value)} is {_kind(value)}: pass a path (str, bytes or os.PathLike)"
        ) from None
    if not result:
        raise ValueError(f"gemmtune.{function}: {name} is empty: pass a file path")
    if "\0" in result:
        raise ValueError(f"gemmtune.{function}: {name} = {_shown(result)} holds a NUL byte, which no file name can: pass the path without it")
    try:
        if utf8:
            result.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"gemmtune.{function}: {name} = {_shown(result)} is not valid UTF-8: rename the file or pick a UTF-8 path") from None
    return result
