#include "tests/llm/llm_test_support.hpp"

namespace kforge::test {

llm::ModelConfig model_for(const FakeProvider& fake, llm::ProviderKind kind, bool stream) {
  llm::ModelConfig c;
  c.name = std::string("test-") + llm::to_string(kind);
  c.kind = kind;
  c.base_url = fake.base_url(llm::to_string(kind));
  c.model = kind == llm::ProviderKind::gemini ? "gemini-2.5-flash" : "model-x";
  c.stream = stream;
  c.ca_file = fake.ca_file();
  c.timeout_seconds = 20;
  c.idle_timeout_seconds = 5;
  c.price = {2.0, 8.0, 0.5, 2.5};  // input, output, cached input, cache write
  return c;
}

const std::vector<llm::Message> kChat = {{"system", "You write kernels."},
                                         {"user", "Write a softmax."}};

}  // namespace kforge::test
