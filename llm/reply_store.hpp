// The response cache's side of an LLM client: what is kept of one exchange, and the store that
// keeps it. In kforge the store is the archive, reached through the archive actor
// (actors/llm_runner.cpp); tests keep replies in memory.
#pragma once

#include <optional>
#include <string>

#include "llm/chat.hpp"

namespace kforge::llm {

/// What the cache keeps of one exchange.
struct CachedReply {
  std::string key;
  std::string endpoint;
  std::string model;
  std::string request_json;  ///< the canonical key document (messages, sampling, seed, index)
  ChatReply reply;
};

/// Where replies are kept. Must be safe to call from the caller's thread.
class ReplyStore {
 public:
  virtual ~ReplyStore() = default;
  virtual std::optional<CachedReply> find(const std::string& key) = 0;
  /// Returns an error, empty when stored.
  virtual std::string put(const CachedReply& entry) = 0;
};

}  // namespace kforge::llm
