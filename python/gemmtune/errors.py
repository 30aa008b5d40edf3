"""The exceptions gemmtune raises: the library's status codes as Python exception classes."""

from __future__ import annotations

import re
from typing import Optional


class GemmtuneError(RuntimeError):
    """A failure reported by libgemmtune; `status` is its gemmtune_status_t value and `status_name`
    the library's name for it. The message is the library's own."""

    def __init__(self, message: str, status: int = 7, status_name: str = "internal error"):
        super().__init__(message)
        self.status = status
        self.status_name = status_name


class InvalidArgumentError(GemmtuneError, ValueError):
    """GEMMTUNE_STATUS_INVALID_ARGUMENT: a bad shape, leading dimension, stride, pointer or option."""


class NoDeviceError(GemmtuneError):
    """GEMMTUNE_STATUS_NO_DEVICE: no CUDA device or driver."""


class NotPreparedError(GemmtuneError):
    """GEMMTUNE_STATUS_NOT_PREPARED: the call would compile or allocate during CUDA Graph capture."""


class LibraryNotFoundError(GemmtuneError, OSError):
    """The operator library or libgemmtune.so (or a library it needs) was not found or could not be loaded."""


# gemmtune_status_t values (gemmtune.h) with a class of their own; the others are GemmtuneError.
STATUS_CLASSES = {1: InvalidArgumentError, 2: NoDeviceError, 8: NotPreparedError}
# The operator library's errors start with this (python/csrc/errors.hpp).
_PREFIX = re.compile(r"^\[gemmtune status (\d+): ([^\]]*)\] ")


def from_torch(error: BaseException) -> Optional[GemmtuneError]:
    """The GemmtuneError of a library failure that an operator raised (RuntimeError or ValueError
    with the "[gemmtune status N: NAME] " prefix); None for any other error."""
    message = str(error)
    found = _PREFIX.match(message)
    if found is None:
        return None
    status = int(found.group(1))
    return STATUS_CLASSES.get(status, GemmtuneError)(message[found.end() :], status, found.group(2))
