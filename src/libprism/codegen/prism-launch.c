/* prism-launch.c — one launch of a generated program, as the code generator plans it
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include "config.h"

#include "prism-launch.h"

const char *
prism_mma_path_to_string (PrismMmaPath path)
{
  switch (path)
    {
    case PRISM_MMA_FMA:
      return "fma";
    case PRISM_MMA_WMMA:
      return "wmma";
    case PRISM_MMA_MMA:
      return "mma";
    case PRISM_MMA_WGMMA:
      return "wgmma";
    case PRISM_MMA_VENDOR:
      return "vendor";
    case PRISM_MMA_NONE:
    default:
      return "none";
    }
}

guint
prism_launch_blocks_by_registers (guint registers, guint warps, guint registers_per_sm)
{
  guint per_warp = (registers * 32 + 255) / 256 * 256;

  return registers_per_sm / MAX (per_warp * MAX (warps, 1), 1);
}

void
prism_launch_set_registers (PrismLaunch *l, guint registers, gint64 spill_bytes, guint registers_per_sm,
                            guint sm_count)
{
  guint64 blocks = (guint64) l->grid[0] * l->grid[1] * l->grid[2];
  guint64 per_sm = (blocks + sm_count - 1) / MAX (sm_count, 1);

  l->registers = registers;
  l->registers_measured = TRUE;
  l->spill_bytes = spill_bytes;
  if (l->role != PRISM_LAUNCH_BLOCK_GRAPH)
    return;
  l->occupancy = MAX (1, MIN (l->occupancy_without_registers,
                              prism_launch_blocks_by_registers (registers, l->warps, registers_per_sm)));
  l->blocks_per_sm = (guint) MAX (1, MIN ((guint64) l->occupancy, per_sm));
  l->bytes_in_flight_per_sm = l->blocks_per_sm * l->bytes_in_flight_per_block;
}

static void
add_int (JsonBuilder *b, const char *name, gint64 v)
{
  json_builder_set_member_name (b, name);
  json_builder_add_int_value (b, v);
}

void
prism_launch_add_report (const PrismLaunch *l, JsonBuilder *b)
{
  add_int (b, "loop_iterations", l->loop_iterations);
  add_int (b, "stages", l->stages);
  add_int (b, "stage_bytes", (gint64) l->stage_bytes);
  add_int (b, "sync_load_bytes", (gint64) l->sync_bytes);
  add_int (b, "blocks_per_sm", l->blocks_per_sm);
  add_int (b, "occupancy_blocks_per_sm", l->occupancy);
  add_int (b, "bytes_in_flight_per_sm", (gint64) l->bytes_in_flight_per_sm);
  add_int (b, "warps", l->warps);
  add_int (b, "work_warps", l->work_warps);
  json_builder_set_member_name (b, "mma");
  json_builder_add_string_value (b, prism_mma_path_to_string (l->mma));
  add_int (b, "split_outputs", l->split_outputs);
  json_builder_set_member_name (b, "stages_limited_by_shared_memory");
  json_builder_add_boolean_value (b, l->smem_limited);
  /* Registers and spills are facts only once ptxas has compiled the code. */
  json_builder_set_member_name (b, "registers");
  if (l->registers_measured)
    json_builder_add_int_value (b, l->registers);
  else
    json_builder_add_null_value (b);
  add_int (b, "registers_estimated", l->registers_estimate);
  json_builder_set_member_name (b, "spill_bytes");
  if (l->spill_bytes >= 0)
    json_builder_add_int_value (b, l->spill_bytes);
  else
    json_builder_add_null_value (b);
  /* What the templates do; unknown for a vendor GEMM. */
  json_builder_set_member_name (b, "longest_thread_chain");
  if (l->role == PRISM_LAUNCH_BLOCK_GRAPH)
    json_builder_add_int_value (b, l->longest_thread_chain);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "global_sector_efficiency");
  if (l->role == PRISM_LAUNCH_BLOCK_GRAPH)
    json_builder_add_double_value (b, l->global_sector_efficiency);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "fewest_active_blocks");
  if (l->role == PRISM_LAUNCH_BLOCK_GRAPH)
    json_builder_add_int_value (b, l->fewest_active_blocks);
  else
    json_builder_add_null_value (b);
  json_builder_set_member_name (b, "dram_bytes");
  json_builder_add_double_value (b, l->dram_bytes);
  json_builder_set_member_name (b, "l2_bytes");
  json_builder_add_double_value (b, l->l2_bytes);
  json_builder_set_member_name (b, "flops");
  json_builder_add_double_value (b, l->tensor_flops + l->fma_flops + l->other_flops);
  json_builder_set_member_name (b, "tensor_flops");
  json_builder_add_double_value (b, l->tensor_flops);
}
