// One command's options, parsed by CLI11 (Debian's libcli11-dev) with kforge's conventions:
// `kforge NAME --help` prints the options and exits 0; a wrong command line prints
// "kforge NAME: what is wrong" and where to find the options, and exits 2. Numbers are checked
// whole and in range with the messages of common/numbers ("--seeds: needs a whole number from 1
// to 100, not 'abc'").
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kforge::cli {

class CommandLine {
 public:
  /// `name` as typed after `kforge` ("eval"); `description` heads the help, `footer` ends it.
  CommandLine(const std::string& name, const std::string& description,
              const std::string& footer = {});
  CLI::App& app() { return app_; }
  /// Parses the arguments after the command's name. nullopt: go on; otherwise the exit status
  /// (0 after --help, 2 after an error, which has been printed).
  std::optional<int> parse(const std::vector<std::string>& args);
  /// An error found after parsing (a combination of options, a value read later): printed like
  /// a parse error. Returns 2.
  int error(const std::string& message) const;

 private:
  std::string name_;
  CLI::App app_;
};

/// --archive PATH, bound to `path` (which holds the default).
CLI::Option* add_archive_option(CLI::App& app, std::string& path);

/// What the commands that host the actors in the foreground (`run`, `suite`) share.
struct ForegroundOptions {
  std::string archive_path, cache;
  unsigned jobs = 0;  ///< compiler slots; 0: one per core
  int64_t resume_id = 0;
  bool quiet = false, allow_unconfined = false;
};
/// What every command that hosts compilers and workers takes (run, suite, daemon, node): --cache,
/// --jobs and --allow-unconfined.
void add_host_options(CLI::App& app, std::string& cache, unsigned& jobs, bool& allow_unconfined);

/// Adds --archive, --cache, --jobs, --resume, --quiet and --allow-unconfined, bound to `o`.
void add_foreground_options(CLI::App& app, ForegroundOptions& o);

/// An option whose value is one of `choices`, shown as "a|b|c" in the help.
CLI::Option* add_choice(CLI::App& app, const std::string& name, std::string& value,
                        const std::vector<std::string>& choices, const std::string& description);

/// The validator of add_choice: one of `choices`, else a message naming them.
CLI::Validator one_of(const std::vector<std::string>& choices);

/// An option read straight into an enum: one of `choices`, each parsed by `parse` (the enum's own
/// parser, common/build_choices.hpp), shown as "a|b|c" in the help.
template <class Enum, class Parse>
CLI::Option* add_choice(CLI::App& app, const std::string& name, Enum& value, Parse parse,
                        const std::vector<std::string>& choices, const std::string& description) {
  std::string shown;
  for (size_t i = 0; i < choices.size(); ++i) shown += (i ? "|" : "") + choices[i];
  // The validator runs first, so `parse` sees one of the words it reads.
  return app
      .add_option_function<std::string>(
          name, [&value, parse](const std::string& word) { value = *parse(word); }, description)
      ->check(one_of(choices))
      ->type_name(shown);
}

/// Accepts the whole of a base-10 integer within [min, max].
CLI::Validator whole_number(int64_t min, int64_t max);
/// Accepts the whole of a finite decimal number within [min, max].
CLI::Validator real_number(double min, double max);

}  // namespace kforge::cli
