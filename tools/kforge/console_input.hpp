// The interactive console's input: on a terminal, line editing, history kept across sessions
// (<state>/console_history) and completion of command names, by libedit's readline interface;
// from a pipe or a file, plain lines. Event lines printed while a command is being typed are put
// above the prompt, which is drawn again with what was typed so far.
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <vector>

namespace kforge::cli {

class ConsoleInput {
 public:
  /// `commands`: the words completed at the start of a line.
  ConsoleInput(std::string history_path, std::vector<std::string> commands);
  ~ConsoleInput();
  ConsoleInput(const ConsoleInput&) = delete;
  ConsoleInput& operator=(const ConsoleInput&) = delete;

  /// The next line (without its newline); nullopt at the end of the input.
  std::optional<std::string> read_line();
  /// Prints `line` (and a newline) above the prompt; call with the output lock held.
  void print_above(const std::string& line);
  bool terminal() const { return terminal_; }

 private:
  std::string history_path_;
  bool terminal_ = false;
  std::atomic<bool> reading_{false};  ///< readline waits for input: the prompt is on the screen
};

}  // namespace kforge::cli
