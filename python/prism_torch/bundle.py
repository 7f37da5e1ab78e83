# prism_torch/bundle.py — an exported bundle as a PyTorch op
#
# SPDX-License-Identifier: GPL-3.0-or-later
"""prism_torch.load: imports the bundle's own PREFIX.py (written by
`prism export`, see bundle_loader.py) and returns its op."""

import importlib.util
import json
import os
import sys


def load(bundle_dir, device="cpu"):
    """A callable running the bundle in @bundle_dir: it takes the program's
    inputs as tensors, in the program's input order, and returns its output
    tensor (a tuple for several).  @device: "cpu" (the CPU build, made with
    `make cpu` when missing) or "cuda"."""
    manifest_path = os.path.join(bundle_dir, "manifest.json")
    try:
        with open(manifest_path, encoding="utf-8") as f:
            prefix = json.load(f)["prefix"]
    except (OSError, ValueError, KeyError) as e:
        raise FileNotFoundError(f"prism_torch.load: {bundle_dir} is not an exported bundle "
                                f"(no readable manifest.json: {e})") from e
    path = os.path.join(bundle_dir, f"{prefix}.py")
    if not os.path.exists(path):
        raise FileNotFoundError(f"prism_torch.load: {path} is missing: export the bundle again "
                                "with this version of prism")
    name = f"_prism_bundle_{prefix}_{abs(hash(os.path.abspath(bundle_dir)))}"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    return module.load(device)
