/* prism-oracle.h — expression-guided pruning: "can this tensor be part of the target?"
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#pragma once

#include <glib.h>

#include "prism-graph.h"

G_BEGIN_DECLS

typedef struct _PrismOracle PrismOracle;

/**
 * prism_oracle_new:
 * @reference: the input program (a concrete kernel graph)
 *
 * Computes the abstract expression of every reference output and saturates
 * one e-graph of them (with the reduction-splitting rules), once.
 *
 * Returns: (transfer full) (nullable): the oracle
 */
PrismOracle *prism_oracle_new     (const PrismGraph *reference,
                                   GError          **error);
void         prism_oracle_free    (PrismOracle      *oracle);

/**
 * prism_oracle_check:
 * @oracle: an oracle
 * @kernel_graph: the partial candidate (kernel level)
 * @block: (nullable): a block graph under construction, not yet a kernel op of @kernel_graph
 * @block_inputs: (array) (nullable): with @block, the kernel tensor ids its INPUT ops' input_index refers to
 * @tensor: a tensor of @block if given, else of @kernel_graph
 *
 * Answers whether the abstract expression of @tensor (sizes evaluated as in
 * the untiled program) is a subexpression of some equivalent form of the
 * target.  Safe to call from several threads at once.
 */
gboolean     prism_oracle_check   (PrismOracle      *oracle,
                                   const PrismGraph *kernel_graph,
                                   const PrismGraph *block,
                                   const guint      *block_inputs,
                                   guint             tensor);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (PrismOracle, prism_oracle_free)

G_END_DECLS
