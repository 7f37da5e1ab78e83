# prism_torch — PyTorch in and out of Prism Explorer
#
# SPDX-License-Identifier: GPL-3.0-or-later
"""PyTorch ends of Prism Explorer (see docs/python.md).

capture(fn_or_module, example_inputs) -> dict    a prism-graph program
dump(dir)                                        a torch.compile backend that saves each graph
load(bundle_dir, device="cpu")                   an exported bundle as a torch op
"""

from .capture import CaptureError, capture, from_exported

__all__ = ["capture", "from_exported", "CaptureError", "dump", "load", "save"]


def save(program, path):
    """Writes @program (a dict from capture) as a prism-graph file."""
    import json
    with open(path, "w", encoding="utf-8") as f:
        json.dump(program, f, indent=1)
        f.write("\n")


def dump(directory):
    from .backend import dump as _dump
    return _dump(directory)


def load(bundle_dir, device="cpu"):
    from .bundle import load as _load
    return _load(bundle_dir, device=device)
