// What the LLM library's tests share: a model configured for the loopback fake provider, the
// chat they send, and a client whose waits between attempts are recorded instead of slept.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "llm/client.hpp"
#include "tests/llm/fake_provider.hpp"

namespace kforge::test {

/// A model of `kind` at the fake provider, with a price of $2 / $8 per million input / output
/// tokens ($0.50 cached input, $2.50 cache write), 20 s per attempt and 5 s of silence.
llm::ModelConfig model_for(const FakeProvider& fake, llm::ProviderKind kind, bool stream = true);

/// The chat the tests send: a system and a user message.
extern const std::vector<llm::Message> kChat;

/// A client whose waits between attempts are recorded instead of slept.
struct RecordingClient {
  llm::Client client;
  std::vector<int64_t> waits_ms;
  RecordingClient(llm::ModelConfig c, llm::ReplyStore* store = nullptr, bool offline = false)
      : client(std::move(c), store, offline) {
    client.sleep = [this](std::chrono::milliseconds d) { waits_ms.push_back(d.count()); };
  }
};

}  // namespace kforge::test
