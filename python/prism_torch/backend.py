# prism_torch/backend.py — a torch.compile backend that saves every graph as a program
#
# SPDX-License-Identifier: GPL-3.0-or-later
"""torch.compile(model, backend=prism_torch.dump(DIR)): each FX graph that
TorchDynamo captures is written as DIR/graphN.json (a prism-graph program,
through capture()) and run unchanged.  A graph prism cannot express is
written as DIR/graphN.refused.txt with the reason (the node, its op and the
source line), and still runs."""

import itertools
import os
import re

import torch

from .capture import CaptureError, from_exported


def _input_name(placeholder):
    """L_self_modules_norm_parameters_weight_ -> norm.weight; L_x_ -> x."""
    name = re.sub(r"^[lL]_", "", placeholder).strip("_")
    name = re.sub(r"^self_", "", name)
    name = name.replace("_modules_", ".").replace("_parameters_", ".").replace("_buffers_", ".")
    name = re.sub(r"^(modules|parameters|buffers)_", "", name)
    return name or placeholder


def _real(t):
    """A real tensor like @t (dynamo may hand the backend fake ones)."""
    if isinstance(t, torch.Tensor):
        return torch.randn(tuple(int(d) for d in t.shape), dtype=t.dtype) \
            if t.is_floating_point() else torch.zeros(tuple(int(d) for d in t.shape), dtype=t.dtype)
    return t


def dump(directory):
    """The backend; @directory is created when missing."""
    os.makedirs(directory, exist_ok=True)
    counter = itertools.count()

    def backend(gm, example_inputs):
        index = next(counter)
        base = os.path.join(directory, f"graph{index}")
        names = [_input_name(n.name) for n in gm.graph.nodes if n.op == "placeholder"]
        try:
            with torch._subclasses.fake_tensor.unset_fake_temporarily():
                inputs = tuple(_real(t) for t in example_inputs)
                ep = torch.export.export(gm, inputs)
                program = from_exported(ep, name=f"graph{index}", input_names=names)
        except CaptureError as e:
            with open(base + ".refused.txt", "w", encoding="utf-8") as f:
                f.write(str(e) + "\n")
            return gm
        from . import save
        save(program, base + ".json")
        return gm

    return backend
