/* main.c — the explorer's entry point
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <locale.h>
#include <glib/gi18n.h>

#include "prism-application.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(PrismApplication) app = NULL;

  setlocale (LC_ALL, "");
  /* PRISM_LOCALEDIR: the build tree's po/, for running without installing. */
  bindtextdomain (GETTEXT_PACKAGE, g_getenv ("PRISM_LOCALEDIR") ? g_getenv ("PRISM_LOCALEDIR") : LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  g_set_application_name (_("Prism Explorer"));

  app = prism_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
