#include "messages/payloads.hpp"

namespace kforge {

std::string to_string(pipeline_entry e) {
  switch (e) {
    case pipeline_entry::verify:
      return "verify";
    case pipeline_entry::llm_verify:
      return "llm_verify";
    case pipeline_entry::compile:
      return "compile";
    case pipeline_entry::recompile:
      return "recompile";
    case pipeline_entry::profile:
      return "profile";
  }
  return "unknown";
}

}  // namespace kforge
