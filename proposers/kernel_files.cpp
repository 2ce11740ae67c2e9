#include "proposers/kernel_files.hpp"

#include <glob.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "common/evaluation_defaults.hpp"
#include "evaluation/source_check.hpp"

namespace kforge::proposers {
namespace {

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

/// At most `limit` bytes of a file.
std::string read_prefix(const std::string& path, size_t limit) {
  std::ifstream in(path, std::ios::binary);
  std::string text(limit, '\0');
  in.read(text.data(), static_cast<std::streamsize>(limit));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

/// One byte more than the largest source any experiment accepts, so that the verifier sees a
/// larger file as too large. A limit of 4 MB here cut KernelBench's 36_LSTMHn's generated 9.7 MB
/// off before its m.def, and the verifier said it "registers nothing" under
/// `--max-source-bytes 16777216`.
constexpr size_t kMaxKernelBytes = static_cast<size_t>(kLargestMaxSourceBytes) + 1;

}  // namespace

std::vector<std::string> kernel_files(const std::string& pattern, const FileTarget& t) {
  std::string expanded = replace_all(pattern, "{task}", t.task_dir);
  expanded = replace_all(expanded, "{name}", t.task);
  expanded = replace_all(expanded, "{direction}", t.direction);
  expanded = replace_all(expanded, "{backend}", t.backend);
  glob_t found{};
  std::vector<std::string> out;
  if (glob(expanded.c_str(), 0, nullptr, &found) == 0) {
    for (size_t i = 0; i < found.gl_pathc; ++i) {
      const std::string path = found.gl_pathv[i];
      if (!std::filesystem::is_regular_file(path)) continue;
      const bool cuda_file = std::filesystem::path(path).extension() == ".cu";
      if (cuda_file != (t.backend == "cuda")) continue;
      if (pattern.find("{direction}") == std::string::npos) {
        const auto names = evaluation::registered_functions(read_prefix(path, kMaxKernelBytes));
        auto has = [&](const char* n) { return std::count(names.begin(), names.end(), n) > 0; };
        const bool fits = has(t.direction.c_str()) ||
                          (t.direction == "forward" && !has("forward") && !has("backward"));
        if (!fits) continue;
      }
      out.push_back(std::filesystem::absolute(path).lexically_normal().string());
    }
  }
  globfree(&found);
  std::sort(out.begin(), out.end());
  return out;
}

std::string read_kernel_file(const std::string& path) {
  return read_prefix(path, kMaxKernelBytes);
}

}  // namespace kforge::proposers
