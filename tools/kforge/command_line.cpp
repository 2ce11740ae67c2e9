#include "tools/kforge/command_line.hpp"

#include <algorithm>
#include <iostream>
#include <limits>

#include "common/numbers.hpp"

namespace kforge::cli {

CommandLine::CommandLine(const std::string& name, const std::string& description,
                         const std::string& footer)
    : name_(name), app_(description, "kforge " + name) {
  if (!footer.empty()) app_.footer(footer.back() == '\n' ? footer : footer + "\n");
  app_.get_formatter()->column_width(34);
}

std::optional<int> CommandLine::parse(const std::vector<std::string>& args) {
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
  try {
    app_.parse(reversed);
    return std::nullopt;
  } catch (const CLI::CallForHelp&) {
    std::cout << app_.help();
    return 0;
  } catch (const CLI::RequiredError& e) {
    // CLI11 checks what is required before it looks for options it does not know: an unknown
    // option is the likelier mistake ("--kernal"), so it is named first.
    for (const auto& a : args) {
      if (a.rfind("--", 0) != 0 || a == "--") continue;
      const std::string name = a.substr(0, a.find('='));
      if (!app_.get_option_no_throw(name)) return error("no option " + name);
    }
    return error(e.what());
  } catch (const CLI::ArgumentMismatch& e) {
    // CLI11 says "--seeds: 1 required N missing" for an option given without its value.
    const std::string what = e.what();
    const auto colon = what.find(':');
    if (colon != std::string::npos && what.find("missing") != std::string::npos)
      return error(what.substr(0, colon) + " needs a value");
    return error(what);
  } catch (const CLI::ParseError& e) {
    return error(e.what());
  }
}

int CommandLine::error(const std::string& message) const {
  std::cerr << "kforge " << name_ << ": " << message << "\n`kforge " << name_
            << " --help` lists its options\n";
  return 2;
}

CLI::Option* add_archive_option(CLI::App& app, std::string& path) {
  return app
      .add_option("--archive", path,
                  "the archive (default $KFORGE_STATE/archive.db, ~/.local/state/kforge)")
      ->type_name("PATH");
}

void add_host_options(CLI::App& app, std::string& cache, unsigned& jobs, bool& allow_unconfined) {
  app.add_option("--cache", cache,
                 "compile and export cache (default ~/.cache/kforge or $KFORGE_CACHE)")
      ->type_name("DIR");
  app.add_option("--jobs", jobs, "compiler slots (default: one per core)")
      ->check(whole_number(1, 4096));
  app.add_flag("--allow-unconfined", allow_unconfined,
               "on a kernel without Landlock, compile and run candidates with access to all "
               "your files instead of refusing to");
}

void add_foreground_options(CLI::App& app, ForegroundOptions& o) {
  add_archive_option(app, o.archive_path);
  add_host_options(app, o.cache, o.jobs, o.allow_unconfined);
  app.add_option("--resume", o.resume_id, "carry on an unfinished experiment of the archive")
      ->check(whole_number(1, std::numeric_limits<int64_t>::max()))
      ->type_name("EXPERIMENT");
  app.add_flag("--quiet", o.quiet, "only the final table");
}

CLI::Validator one_of(const std::vector<std::string>& choices) {
  std::string listed;
  for (size_t i = 0; i < choices.size(); ++i)
    listed += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
  return CLI::Validator(
      [choices, listed](std::string& text) -> std::string {
        if (std::find(choices.begin(), choices.end(), text) != choices.end()) return {};
        return "must be " + listed + ", not '" + text + "'";
      },
      "");
}

CLI::Option* add_choice(CLI::App& app, const std::string& name, std::string& value,
                        const std::vector<std::string>& choices, const std::string& description) {
  std::string shown;
  for (size_t i = 0; i < choices.size(); ++i) shown += (i ? "|" : "") + choices[i];
  return app.add_option(name, value, description)->check(one_of(choices))->type_name(shown);
}

CLI::Validator whole_number(int64_t min, int64_t max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        return parse_integer(text, min, max) ? std::string() : integer_expected(text, min, max);
      },
      "");
}

CLI::Validator real_number(double min, double max) {
  return CLI::Validator(
      [min, max](std::string& text) -> std::string {
        return parse_real(text, min, max) ? std::string() : real_expected(text, min, max);
      },
      "");
}

}  // namespace kforge::cli
