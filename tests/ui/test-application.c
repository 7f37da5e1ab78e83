/* test-application.c — prism-explorer's command line
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <string.h>
#include <glib.h>

#include "prism-workload.h"

static void
run (const char * const *args, int *status, char **out, char **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;

  g_ptr_array_add (argv, (gpointer) PRISM_EXPLORER_PATH);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);

  g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, out, err, status,
                &error);
  g_assert_no_error (error);
}

static void
test_application_version (void)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status;

  run ((const char *[]) { "--version", NULL }, &status, &out, &err);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  g_assert_cmpstr (out, ==, "prism-explorer " PACKAGE_VERSION "\n");
}

static void
test_application_list_workloads (void)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_auto(GStrv) lines = NULL;
  const PrismWorkloadInfo *infos;
  guint n_infos = 0;
  int status;

  run ((const char *[]) { "--list-workloads", NULL }, &status, &out, &err);
  g_assert_true (g_spawn_check_wait_status (status, NULL));

  /* One line per workload, in order, starting with its name. */
  infos = prism_workload_list (&n_infos);
  lines = g_strsplit (out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, n_infos + 1);
  for (guint i = 0; i < n_infos; i++)
    {
      g_autofree char *prefix = g_strconcat (infos[i].name, " ", NULL);
      g_assert_true (g_str_has_prefix (lines[i], prefix));
    }
}

static void
test_application_unknown_workload (void)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status;

  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_test_skip ("needs a display: the check runs in the started application");
      return;
    }

  /* Refused before any window opens, with the exit status of bad input. */
  run ((const char *[]) { "--workload", "no-such-workload", NULL }, &status, &out, &err);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 2);
  g_assert_nonnull (strstr (err, "no-such-workload"));
}

int
main (int argc, char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/explorer/application/version", test_application_version);
  g_test_add_func ("/explorer/application/list-workloads", test_application_list_workloads);
  g_test_add_func ("/explorer/application/unknown-workload", test_application_unknown_workload);

  return g_test_run ();
}
