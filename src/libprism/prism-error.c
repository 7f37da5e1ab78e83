/* prism-error.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "prism-error.h"

G_DEFINE_QUARK (prism-error-quark, prism_error)
