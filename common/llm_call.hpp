// One call to an LLM as kforge's ledger keeps it: made once from the LLM client's record
// (llm::ledger_entry), carried in the actors' messages, and kept by the archive under the
// experiment, candidate and sequence it was made for (archive::LlmCallRow).
#pragma once

#include <cstdint>
#include <string>

namespace kforge {

struct LlmCall {
  std::string role;        ///< "propose" or "verify:<check>"
  std::string model_name;  ///< the ensemble member or verifier, as the configuration names it
  std::string endpoint;
  std::string model;
  std::string key;  ///< the response cache's key
  bool ok = false;
  bool cached = false;
  std::string failure;  ///< "transient", "auth", "money", "bad_request", "garbled", "offline_miss"
  std::string error;
  int32_t attempts = 0;
  int64_t input_tokens = 0;
  int64_t output_tokens = 0;
  double cost_usd = 0;  ///< 0 for cached replies: they cost nothing again
  double seconds = 0;
};

}  // namespace kforge
