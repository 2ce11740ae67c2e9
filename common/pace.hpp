// What sets a kernel's pace by its hardware counters' shares of peak, and how the tables and the
// prompts say it: the share of DRAM peak a memory-bound kernel should reach, and for one below
// it the unit that is busier than DRAM.
#pragma once

#include <optional>
#include <string>

#include "common/json.hpp"

namespace kforge {

/// The share of DRAM peak a memory-bound kernel should reach (issue 36's mark; eager's own
/// memory-bound kernels reach 85-90 % on an H100/H200).
inline constexpr double kDramTargetPct = 85;

/// Points by which L2 must be busier than DRAM to be called the limiter: a streaming kernel's L2
/// share runs a few points above its DRAM share (KernelBench's 94_MSELoss 97 / 97 %,
/// 5_Matrix_scalar 88 / 92 % on an H200).
inline constexpr double kL2OverDramPct = 10;

/// The unit that sets a kernel's pace (a counters summary's kernel with "sm_pct", "dram_pct" and
/// "l2_pct", evaluation/counter_summary.hpp): "sm" where the SM's pipes are busier than DRAM and
/// L2 (its instructions, not memory, limit it), "l2" where L2 is at least kL2OverDramPct points
/// busier than DRAM (more of its traffic goes through L2 than through DRAM), else "dram"; nothing
/// where the kernel lacks the shares (profiles archived before they were kept).
std::optional<std::string> limiter_of(const json::Value& kernel);

/// Why a memory-bound kernel stays under kDramTargetPct, by its limiter and that unit's share of
/// its peak: "; L2 is busier (96% of peak): more traffic goes through L2 than through DRAM (...)";
/// empty for an unknown limiter. The words name where the traffic goes, not one cause: on
/// KernelBench's 82_conv_depthwise_2D by hand, windows staged once in shared memory and stores
/// of whole sectors took L2 from 97 to 88 % and DRAM only from 69 to 71 % (BENCHMARKS.md, issue
/// 36's forty-first step).
std::string below_dram_target_why(const std::string& limiter, double limiter_pct);

}  // namespace kforge
