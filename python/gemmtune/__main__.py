"""python -m gemmtune: capture a model's matrix products for `gemmtune sweep`; say what is found.

    python -m gemmtune capture my_models:build -o shapes.csv   # build() returns (model, example_inputs)
    python -m gemmtune capture path/to/model.py:build --backward
    python -m gemmtune info
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from typing import Callable, List, Optional

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def load_entry_point(spec: str) -> Callable:
    """The function named by "module:function" (a dotted module on sys.path) or
    "path/to/file.py:function"."""
    module_name, sep, function = spec.rpartition(":")
    if not sep or not module_name or not function:
        raise ValueError(f"entry point {spec!r}: expected module:function or path/to/file.py:function")
    if module_name.endswith(".py") or os.sep in module_name:
        if not os.path.isfile(module_name):
            raise ValueError(f"entry point {spec!r}: no file {module_name}")
        name = os.path.splitext(os.path.basename(module_name))[0]
        loader_spec = importlib.util.spec_from_file_location(name, module_name)
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[name] = module
        loader_spec.loader.exec_module(module)
    else:
        sys.path.insert(0, os.getcwd())  # as `python -m` would: modules of the current folder
        module = importlib.import_module(module_name)
    try:
        return getattr(module, function)
    except AttributeError:
        raise ValueError(f"entry point {spec!r}: {module_name} has no {function}") from None


def _capture(args: argparse.Namespace) -> int:
    import gemmtune

    try:
        entry = load_entry_point(args.entry_point)
    except (ValueError, ImportError) as error:
        print(f"gemmtune capture: {error}", file=sys.stderr)
        return EXIT_USAGE
    built = entry()
    if not (isinstance(built, (tuple, list)) and len(built) == 2):
        print(
            f"gemmtune capture: {args.entry_point} returned {type(built).__name__}; it must return (model, example_inputs)",
            file=sys.stderr,
        )
        return EXIT_USAGE
    model, inputs = built
    try:
        mode = gemmtune.capture(model, inputs, args.output, backward=args.backward, title=args.entry_point)
    except TypeError as error:  # what the entry point returned is not a model
        print(f"gemmtune capture: {args.entry_point}: {error}", file=sys.stderr)
        return EXIT_USAGE
    except ValueError as error:
        print(f"gemmtune capture: {error}", file=sys.stderr)
        return EXIT_FAILED
    if args.output is None:
        sys.stdout.write(mode.csv(args.entry_point))
        return EXIT_OK
    calls = sum(p.calls for p in mode.problems)
    print(f"{len(mode.problems)} problems from {calls} float32 matrix products written to {args.output}")
    print(f"{'problem (MxNxK)':<20} {'layout':<6} {'batch':>5} {'calls':>5}  ops")
    for p in mode.problems:
        print(f"{f'{p.m}x{p.n}x{p.k}':<20} {p.layout:<6} {p.batch:>5} {p.calls:>5}  {', '.join(p.ops)}")
    for why, count in mode.skipped.items():
        print(f"skipped: {count} x {why}")
    print(f"tune them: gemmtune sweep --file {args.output}")
    return EXIT_OK


def _info(args: argparse.Namespace) -> int:
    import torch

    import gemmtune

    print(f"gemmtune (Python) {gemmtune.__version__}, Python {sys.version.split()[0]}")
    print(f"PyTorch   {torch.__version__} (CUDA {torch.version.cuda or 'none'})")
    try:
        print(f"operators {gemmtune.ops_library_path()}")
        print(f"library   {gemmtune.library_path()}")
    except gemmtune.LibraryNotFoundError as error:
        print(f"library   not found: {error}")
        return EXIT_FAILED
    if torch.cuda.device_count() == 0:
        print("database  the library's default: $GEMMTUNE_DB, else $XDG_CACHE_HOME/gemmtune/tuning.db, else ~/.cache/gemmtune/tuning.db")
        try:  # the library's own word on it
            gemmtune.explain(1, 1, 1)
        except gemmtune.NoDeviceError as error:
            print(f"GPUs      none: {error}")
            return EXIT_OK
    for device in range(torch.cuda.device_count()):
        try:
            text = gemmtune.explain(1024, 1024, 1024, device=device)
        except gemmtune.GemmtuneError as error:
            print(f"GPU {device}     {error}")
            return EXIT_FAILED
        if device == 0:  # the database every dispatcher reads, as the library names it
            print("database  " + next((line.split(None, 1)[1] for line in text.splitlines() if line.startswith("database")), "?"))
        print(f"GPU {device}     {torch.cuda.get_device_name(device)}: dispatcher ready")
    return EXIT_OK


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gemmtune", description="gemmtune for PyTorch")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    cap = commands.add_parser(
        "capture",
        help="record a model's float32 matrix products as a problem file for `gemmtune sweep --file`",
        description="Imports ENTRY_POINT, calls it, and runs the model it returns on its example inputs "
        "under gemmtune.capture. Shapes need no GPU: the model may run on CPU.",
    )
    cap.add_argument(
        "entry_point",
        metavar="ENTRY_POINT",
        help="module:function or path/to/file.py:function; the function takes no argument and returns "
        "(model, example_inputs): a tuple/list of positional arguments, a dict of keyword arguments, or one argument",
    )
    cap.add_argument("-o", "--output", metavar="FILE", help="the problem file to write (default: print it)")
    cap.add_argument("--backward", action="store_true", help="also record the backward pass's products (training)")
    cap.set_defaults(run=_capture)
    info = commands.add_parser("info", help="the library found, PyTorch, the GPUs and the database")
    info.set_defaults(run=_info)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return EXIT_USAGE
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
