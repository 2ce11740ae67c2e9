// Server-sent events (the WHATWG event-stream format) as providers stream replies: bytes in,
// complete events out, in order, whatever the chunking of the bytes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace kforge::llm {

struct SseEvent {
  std::string event;  ///< the "event:" field, empty when none
  std::string data;   ///< "data:" lines joined by newlines
};

class SseParser {
 public:
  /// Adds bytes; returns the events they complete.
  std::vector<SseEvent> feed(std::string_view bytes);
  /// True when bytes of an unfinished event are held back (a cut stream ends like this).
  bool pending() const { return !line_.empty() || has_fields_; }

 private:
  void take_line(std::string_view line, std::vector<SseEvent>& out);
  std::string line_;
  SseEvent current_;
  bool has_fields_ = false;
  bool has_data_ = false;
  bool last_was_cr_ = false;
};

}  // namespace kforge::llm
