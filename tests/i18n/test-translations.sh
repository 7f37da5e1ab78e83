#!/usr/bin/env bash
# test-translations — the translations load from the build tree.
#
# PRISM_LOCALEDIR points prism (and the explorer, which build-aux/run starts
# with it) at the build tree's po/; with LANGUAGE=ru, `prism help` and a
# command's error speak Russian; without it, English.
#
# Arguments: prism, the build tree's po/ folder.
#
# SPDX-License-Identifier: GPL-3.0-or-later
set -u
prism=$1
localedir=$2

fail () { echo "FAIL: $*"; exit 1; }

[ -f "$localedir/ru/LC_MESSAGES/prism-explorer.mo" ] || fail "no $localedir/ru/LC_MESSAGES/prism-explorer.mo"
# gettext ignores LANGUAGE in the C locale; C.UTF-8 is present on every Debian.
export LC_ALL=C.UTF-8

en=$(LANGUAGE= "$prism" help 2>&1)
case "$en" in *"Usage: prism COMMAND"*) ;; *) fail "English help: $en" ;; esac

ru=$(PRISM_LOCALEDIR=$localedir LANGUAGE=ru "$prism" help 2>&1)
case "$ru" in *"Использование: prism"*) ;; *) fail "no Russian help with PRISM_LOCALEDIR: $ru" ;; esac

err=$(PRISM_LOCALEDIR=$localedir LANGUAGE=ru "$prism" run no-such-workload 2>&1)
case "$err" in *[А-Яа-я]*) ;; *) fail "the error is not translated: $err" ;; esac

# The engine's reason for no GPU (the explorer's GPU tooltip, bench,
# calibrate) is translated too: it was English in a Russian window.  With
# the driver missing (PRISM_CUDA_LIBRARY names a library that is not there).
nogpu=$(PRISM_CUDA_LIBRARY=/nonexistent/libcuda.so.1 PRISM_LOCALEDIR=$localedir LANGUAGE=ru "$prism" calibrate 2>&1)
case "$nogpu" in *"нет GPU"*) ;; *) fail "the no-GPU reason is not translated: $nogpu" ;; esac

echo "ok: translations load from $localedir"
