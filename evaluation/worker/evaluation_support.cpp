#include "evaluation/worker/evaluation_support.hpp"

#include <c10/util/Exception.h>

#include <cstdio>

namespace kforge::worker {
namespace {

// The candidate's own words, quoted on one line: control characters are shown escaped, so that
// text it raises cannot start a line that reads like kforge's (a "verdict: correct" of its own).
std::string quoted_words(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '\n')
      out += "\\n";
    else if (c < 0x20 || c == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    } else
      out += static_cast<char>(c);
  }
  return out + "\"";
}

bool says_out_of_memory(const std::string& what) {
  return what.find("out of memory") != std::string::npos ||
         what.find("not enough memory") != std::string::npos ||
         what.find("can't allocate memory") != std::string::npos;
}

std::string whole_what(const std::exception& e) {
  if (auto* c10e = dynamic_cast<const c10::Error*>(&e)) return c10e->what_without_backtrace();
  return e.what();
}

// At most 600 characters: the head and the tail. The TorchScript interpreter puts its traceback
// first and the error that stopped it last ("... CUDA out of memory. Tried to allocate ...").
std::string shortened(const std::string& what) {
  if (what.size() <= 600) return what;
  return what.substr(0, 400) + " ... " + what.substr(what.size() - 195);
}

}  // namespace

json::Value failure_json(const Failure& f) {
  json::Value v;
  v.set("kind", f.kind).set("message", f.message);
  return v;
}

// A candidate raised (c10::Error, std::exception): its message, head and tail.
std::string short_what(const std::exception& e) {
  return shortened(whole_what(e));
}

// Whether it ran out of memory is read from the whole message, not the 600 characters shown.
Failure candidate_raised(const std::exception& e) {
  const std::string what = whole_what(e);
  return Failure{says_out_of_memory(what) ? "out_of_memory" : "candidate_error",
                 "the kernel raised (its own words, at most 600 characters): " +
                     quoted_words(shortened(what))};
}

Failure harness_raised(const std::exception& e, const std::string& running) {
  const std::string what = whole_what(e);
  return Failure{says_out_of_memory(what) ? "out_of_memory" : "harness_error",
                 "kforge's own code raised while running " + running +
                     " (at most 600 characters): " + quoted_words(shortened(what))};
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i];
  return out;
}

size_t bytes_of(const std::vector<at::Tensor>& ts) {
  size_t n = 0;
  for (const auto& t : ts) n += t.defined() ? t.nbytes() : 0;
  return n;
}

std::optional<Tolerance> tolerance_of(const evaluation::WorkerRequest& request,
                                      const json::Value& dir) {
  if (!request.atol && !dir.contains("tolerance")) return std::nullopt;
  Tolerance tol;
  tol.atol = request.atol.value_or(dir["tolerance"]["atol"].as_number(tol.atol));
  tol.rtol = request.rtol.value_or(dir["tolerance"]["rtol"].as_number(tol.rtol));
  return tol;
}

std::vector<std::string> output_names_of(const json::Value& config) {
  std::vector<std::string> names;
  for (const auto& o : config["outputs"].as_array()) names.push_back(o["name"].as_string());
  return names;
}

std::string outputs_file(const std::string& dir, size_t config, int seed) {
  return dir + "/c" + std::to_string(config) + "-s" + std::to_string(seed) + ".out";
}

}  // namespace kforge::worker
