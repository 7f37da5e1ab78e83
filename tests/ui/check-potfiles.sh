#!/bin/sh
# Fails if a file with translatable strings is missing from po/POTFILES.in,
# or if POTFILES.in names a file that does not exist.
srcdir="${1:-.}"
cd "$srcdir" || exit 1
status=0
listed=$(grep -v '^#' po/POTFILES.in | grep -v '^$')
for f in $listed; do
  if [ ! -f "$f" ]; then
    echo "po/POTFILES.in lists $f, which does not exist"
    status=1
  fi
done
for f in $(grep -rlE '(^|[^A-Za-z0-9_])(N_|C_|NC_|_)\(|g_dngettext|translatable="yes"' \
             --include='*.c' --include='*.h' --include='*.ui' src ui 2>/dev/null | sort); do
  if ! printf '%s\n' $listed | grep -qx "$f"; then
    echo "$f has translatable strings but is not in po/POTFILES.in"
    status=1
  fi
done
exit $status
