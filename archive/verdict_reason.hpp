// How an evaluation verdict's reason carries the worker's flags (library calls at run time, ...):
// the failure message, then "flag: F" per flag, joined by "; ". Written when the verdict is
// archived (actors/archive_actor.cpp), read back by the suite's rows (archive/views.cpp).
#pragma once

#include <string>
#include <vector>

namespace kforge::archive {

inline std::string reason_with_flags(std::string message, const std::vector<std::string>& flags) {
  for (const auto& f : flags) message += (message.empty() ? "flag: " : "; flag: ") + f;
  return message;
}

/// The flags of a reason written by reason_with_flags, in order.
inline std::vector<std::string> flags_of_reason(const std::string& reason) {
  std::vector<std::string> out;
  const std::string mark = "flag: ";
  size_t at = reason.rfind(mark, 0) == 0 ? 0 : reason.find("; " + mark);
  if (at != std::string::npos && at != 0) at += 2;
  while (at != std::string::npos) {
    const size_t next = reason.find("; " + mark, at);
    out.push_back(reason.substr(at + mark.size(),
                                next == std::string::npos ? next : next - at - mark.size()));
    at = next == std::string::npos ? next : next + 2;
  }
  return out;
}

}  // namespace kforge::archive
