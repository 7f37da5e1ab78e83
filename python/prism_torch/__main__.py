# python -m prism_torch FILE.pt2 --out prog.json
#
# SPDX-License-Identifier: GPL-3.0-or-later
"""Reads a program saved by torch.export.save and writes it as a prism-graph
file.  Exit status: 0 written; 1 the program has an op prism cannot express
(one line on standard error naming the node, its op and the source line) or
the file cannot be read; 2 usage.  `prism import FILE.pt2` runs this."""

import argparse
import os
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m prism_torch",
                                     description="Convert a torch.export .pt2 file to a prism-graph program.")
    parser.add_argument("file", help="a .pt2 file written by torch.export.save")
    parser.add_argument("--out", required=True, help="the prism-graph JSON file to write")
    parser.add_argument("--name", help="the program's name (default: the file's name)")
    args = parser.parse_args(argv)

    import torch
    from . import CaptureError, from_exported, save

    try:
        ep = torch.export.load(args.file)
    except Exception as e:  # noqa: BLE001 (torch raises many kinds for a bad file)
        print(f"prism_torch: {args.file}: cannot read it as a torch.export program: {e}", file=sys.stderr)
        return 1
    name = args.name or os.path.splitext(os.path.basename(args.file))[0]
    try:
        program = from_exported(ep, name=name)
    except CaptureError as e:
        print(f"{args.file}: {e}", file=sys.stderr)
        return 1
    program["provenance"]["file"] = os.path.basename(args.file)
    save(program, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
