/* prism-error.c
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <gio/gio.h>

#include "prism-error.h"

G_DEFINE_QUARK (prism-error-quark, prism_error)

gboolean
prism_cancelled (void)
{
  GCancellable *cancellable = g_cancellable_get_current ();

  return cancellable != NULL && g_cancellable_is_cancelled (cancellable);
}
