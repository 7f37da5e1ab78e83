#!/bin/sh
# run-tests.sh PRISM_CLI — the prism_torch tests with the project's .venv
# (build-aux/setup makes it, with torch); skips (77) only when .venv has no torch.
#
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
src=${PRISM_SOURCE_DIR:?PRISM_SOURCE_DIR is not set}
py=$src/.venv/bin/python
if ! [ -x "$py" ] || ! "$py" -c 'import torch' 2>/dev/null; then
  echo "skip: $src/.venv has no Python with torch (run build-aux/setup)"
  exit 77
fi
cli=$(realpath "$1")
shift
cd "$src" || exit 1
PRISM_CLI=$cli PYTHONPATH=$src/python exec "$py" tests/python/test_prism_torch.py "$@"
