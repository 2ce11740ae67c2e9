#include "tools/kforge/console_input.hpp"

#include <editline/readline.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <iostream>

namespace kforge::cli {
namespace {

constexpr const char* kPrompt = "kforge> ";
constexpr int kHistoryLines = 1000;

std::vector<std::string>* g_commands = nullptr;  // libedit's completion callbacks take no context

char* next_command(const char* text, int state) {
  static size_t index;
  if (state == 0) index = 0;
  const size_t length = std::strlen(text);
  while (g_commands && index < g_commands->size()) {
    const std::string& c = (*g_commands)[index++];
    if (c.compare(0, length, text) == 0) return strdup(c.c_str());
  }
  return nullptr;
}

char** complete(const char* text, int start, int /*end*/) {
  // Command names at the start of the line; nothing else is completed.
  rl_attempted_completion_over = 1;
  return start == 0 ? rl_completion_matches(text, next_command) : nullptr;
}

}  // namespace

ConsoleInput::ConsoleInput(std::string history_path, std::vector<std::string> commands)
    : history_path_(std::move(history_path)),
      terminal_(::isatty(STDIN_FILENO) != 0 && ::isatty(STDOUT_FILENO) != 0) {
  if (!terminal_) return;
  g_commands = new std::vector<std::string>(std::move(commands));
  rl_readline_name = "kforge";
  rl_attempted_completion_function = complete;
  using_history();
  stifle_history(kHistoryLines);
  if (!history_path_.empty()) read_history(history_path_.c_str());
}

ConsoleInput::~ConsoleInput() {
  if (!terminal_) return;
  if (!history_path_.empty()) write_history(history_path_.c_str());
  delete g_commands;
  g_commands = nullptr;
}

std::optional<std::string> ConsoleInput::read_line() {
  if (!terminal_) {
    std::string line;
    if (!std::getline(std::cin, line)) return std::nullopt;
    return line;
  }
  reading_ = true;
  char* raw = readline(kPrompt);
  reading_ = false;
  if (!raw) {
    std::cout << "\n";
    return std::nullopt;
  }
  std::string line(raw);
  std::free(raw);
  if (line.find_first_not_of(" \t") != std::string::npos) add_history(line.c_str());
  return line;
}

void ConsoleInput::print_above(const std::string& line) {
  if (!terminal_ || !reading_) {  // no prompt on the screen: a command is running
    std::cout << line << "\n" << std::flush;
    return;
  }
  // The event thread, while readline waits for a key on the main one: clear the prompt's line,
  // print, and have libedit draw the prompt with what was typed so far.
  std::cout << "\r\033[K" << line << "\n" << std::flush;
  rl_forced_update_display();
}

}  // namespace kforge::cli
