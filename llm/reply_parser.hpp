// Reads what an LLM answered: the kernel source, its name and rationale from a proposer's reply,
// the strategies from a meta-generation's, the verdict and reasons from a verifier's. A truncated
// or garbled reply is rejected with a reason a user can act on; nothing here throws or crashes on
// any input.
#pragma once

#include <string>
#include <vector>

#include "llm/chat.hpp"

namespace kforge::llm {

struct KernelReply {
  bool ok = false;
  std::string reason;  ///< why the reply was rejected, when !ok
  std::string source;
  std::string name;  ///< as the reply names the kernel (sanitised), or empty
  std::string rationale;
};

/// `entry`: the function the source must register ("forward" or "backward").
KernelReply parse_kernel_reply(const ChatReply& reply, const std::string& entry);

struct VerifierReply {
  bool decided = false;  ///< false: the reply gave no readable verdict (`reason` says why)
  bool accept = false;
  std::vector<std::string> reasons;
  std::string reason;
};

VerifierReply parse_verifier_reply(const ChatReply& reply);

struct StrategiesReply {
  bool ok = false;
  std::string reason;  ///< why no strategy could be read, when !ok
  std::vector<std::string> strategies;
};

/// The strategies of a meta-generation reply: its list items ("- ", "* ", "1. ", "1) "), at most
/// `count`, each on one line of at most 400 characters, none twice.
StrategiesReply parse_strategies_reply(const ChatReply& reply, int count);

}  // namespace kforge::llm
