/* prism-io-binding.h — which input and output of a candidate is which of the reference's
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph.h"

G_BEGIN_DECLS

/**
 * PrismIoBinding:
 * @n_inputs: inputs of both graphs
 * @n_outputs: outputs of both graphs
 * @inputs: (array length=n_inputs): candidate input k is reference input inputs[k]
 * @outputs: (array length=n_outputs): candidate output k is reference output outputs[k]
 * @by_name: TRUE when inputs and outputs were matched by their names
 *
 * Inputs (and outputs) are matched by name when both graphs name every one of
 * them, with distinct names: a reader orders a file's ops topologically, so
 * the position of an input says nothing about which one it is.  Graphs that
 * leave names out, or that use the Mirage reader's placeholders (in0, in1, …
 * and out0, out1, … in file order), are matched by position (docs/format.md).
 */
typedef struct
{
  guint n_inputs;
  guint n_outputs;
  guint *inputs;
  guint *outputs;
  gboolean by_name;
} PrismIoBinding;

/**
 * prism_io_binding_new:
 * @reference: a kernel graph
 * @candidate: a kernel graph
 * @error: set, with a message naming the input or output, when the two
 *   interfaces differ: another number of inputs or outputs, a name the other
 *   graph lacks, another shape or another dtype
 *
 * Returns: (transfer full) (nullable): the binding, or %NULL with @error set
 */
PrismIoBinding *prism_io_binding_new  (const PrismGraph *reference,
                                       const PrismGraph *candidate,
                                       GError          **error);
void            prism_io_binding_free (PrismIoBinding   *binding);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismIoBinding, prism_io_binding_free)

G_END_DECLS
