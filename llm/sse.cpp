#include "llm/sse.hpp"

namespace kforge::llm {

std::vector<SseEvent> SseParser::feed(std::string_view bytes) {
  std::vector<SseEvent> out;
  for (char c : bytes) {
    // Lines end in \n, \r or \r\n; a \n right after a \r ends nothing new.
    if (c == '\n' && last_was_cr_) {
      last_was_cr_ = false;
      continue;
    }
    last_was_cr_ = c == '\r';
    if (c == '\n' || c == '\r') {
      take_line(line_, out);
      line_.clear();
    } else {
      line_ += c;
    }
  }
  return out;
}

void SseParser::take_line(std::string_view line, std::vector<SseEvent>& out) {
  if (line.empty()) {  // a blank line dispatches the event
    if (has_fields_) out.push_back(std::move(current_));
    current_ = {};
    has_fields_ = has_data_ = false;
    return;
  }
  if (line[0] == ':') return;  // a comment (keep-alive)
  auto colon = line.find(':');
  std::string_view field = line.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? "" : line.substr(colon + 1);
  if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
  if (field == "event") {
    current_.event = value;
    has_fields_ = true;
  } else if (field == "data") {
    if (has_data_) current_.data += '\n';
    current_.data += value;
    has_fields_ = has_data_ = true;
  }
  // "id" and "retry" do not matter for one reply.
}

}  // namespace kforge::llm
