#include "common/pace.hpp"

#include "common/numbers.hpp"

namespace kforge {

std::optional<std::string> limiter_of(const json::Value& kernel) {
  if (!kernel.contains("sm_pct") || !kernel.contains("l2_pct")) return std::nullopt;
  const double sm = kernel["sm_pct"].as_number(), dram = kernel["dram_pct"].as_number(),
               l2 = kernel["l2_pct"].as_number();
  if (sm > dram && sm > l2) return "sm";
  if (l2 >= dram + kL2OverDramPct) return "l2";
  return "dram";
}

std::string below_dram_target_why(const std::string& limiter, double limiter_pct) {
  const std::string busy = " (" + format_number("%.0f%%", limiter_pct) + " of peak)";
  if (limiter == "sm") return "; its SM is busier" + busy + ": its instructions set its pace";
  if (limiter == "l2")
    return "; L2 is busier" + busy +
           ": more traffic goes through L2 than through DRAM (windows its threads share read "
           "again, stores that fill part of a sector)";
  if (limiter == "dram")
    return "; no unit is busier than DRAM: it waits on loads without keeping DRAM busy (too few "
           "in flight)";
  return "";
}

}  // namespace kforge
