/* prism-cmd-workloads.c — `prism workloads`: the built-in programs
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include <stdio.h>
#include <glib/gi18n.h>
#include <json-glib/json-glib.h>

#include "prism-cli.h"
#include "prism-json-reader.h"
#include "prism-workload.h"

static void
print_json (const PrismWorkloadInfo *list, guint n)
{
  g_autoptr(JsonBuilder) builder = json_builder_new ();
  g_autoptr(JsonNode) root = NULL;
  g_autofree char *text = NULL;

  json_builder_begin_array (builder);
  for (guint i = 0; i < n; i++)
    {
      json_builder_begin_object (builder);
      json_builder_set_member_name (builder, "name");
      json_builder_add_string_value (builder, list[i].name);
      json_builder_set_member_name (builder, "params");
      json_builder_add_string_value (builder, list[i].shape_params);
      json_builder_set_member_name (builder, "reference");
      json_builder_add_boolean_value (builder, list[i].has_reference);
      /* Machine-readable output stays untranslated. */
      json_builder_set_member_name (builder, "description");
      json_builder_add_string_value (builder, list[i].description);
      json_builder_end_object (builder);
    }
  json_builder_end_array (builder);
  root = json_builder_get_root (builder);
  text = prism_json_to_text (root, TRUE, NULL);
  printf ("%s\n", text);
}

int
prism_cmd_workloads (int argc, char **argv)
{
  gboolean json = FALSE;
  GOptionEntry entries[] = {
    { "json", 0, 0, G_OPTION_ARG_NONE, &json, N_("Print a JSON array instead of a table"), NULL },
    G_OPTION_ENTRY_NULL
  };
  const PrismWorkloadInfo *list;
  guint n;

  if (!prism_cli_parse ("workloads", NULL,
                        _("Lists the built-in workloads: name, default shape parameters, whether a "
                          "hand-written fused graph exists (prism run --reference) and what it "
                          "computes."),
                        entries, &argc, &argv))
    return PRISM_EXIT_BAD_INPUT;
  if (argc > 1)
    return prism_cli_fail ("workloads", _("unexpected argument; the command takes none"));

  list = prism_workload_list (&n);
  if (json)
    {
      print_json (list, n);
      return PRISM_EXIT_OK;
    }
  /* TRANSLATORS: column headings of `prism workloads` */
  printf ("%-18s %-27s %-6s %s\n", _("NAME"), _("PARAMETERS"), _("FUSED"), _("DESCRIPTION"));
  for (guint i = 0; i < n; i++)
    printf ("%-18s %-27s %-6s %s\n", list[i].name, list[i].shape_params,
            list[i].has_reference ? _("yes") : _("no"), _(list[i].description));
  return PRISM_EXIT_OK;
}
