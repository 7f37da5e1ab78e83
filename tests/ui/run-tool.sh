#!/bin/sh
# Runs a validation tool, or skips (exit 77) when the machine lacks it.
tool="$1"
if ! command -v "$tool" >/dev/null 2>&1; then
  echo "$tool is not installed; skipping"
  exit 77
fi
exec "$@"
