#include "gpu/profile_summary.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <sstream>

namespace kforge::gpu {
namespace {

// "(anonymous namespace)::softmax_warp_rows<4, 4>(float const*, ...)" -> "softmax_warp_rows<4, 4>"
std::string short_kernel_name(const std::string& mangled) {
  int status = 0;
  char* raw = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  std::string name = status == 0 && raw ? raw : mangled;
  std::free(raw);
  // Drop the parameter list: the last top-level parenthesis group.
  if (!name.empty() && name.back() == ')') {
    int depth = 0;
    for (size_t i = name.size(); i-- > 0;) {
      depth += name[i] == ')';
      depth -= name[i] == '(';
      if (depth == 0) {
        name.resize(i);
        break;
      }
    }
  }
  // Drop namespaces, keeping template arguments.
  int angle = 0;
  size_t cut = 0;
  for (size_t i = 0; i + 1 < name.size(); ++i) {
    angle += name[i] == '<';
    angle -= name[i] == '>';
    if (angle == 0 && name[i] == ':' && name[i + 1] == ':') cut = i + 2;
  }
  return name.substr(cut);
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

std::vector<KernelResources> parse_ptxas_report(std::string_view log) {
  static const std::regex entry(R"(Compiling entry function '([^']+)' for '(\w+)')");
  static const std::regex spills(
      R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(
      R"(Used (\d+) registers(?:, used (\d+) barriers)?(?:, (\d+) bytes smem)?)");
  std::vector<KernelResources> out;
  std::istringstream in{std::string(log)};
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, entry)) {
      out.push_back({});
      out.back().name = short_kernel_name(m[1]);
      out.back().arch = m[2];
    } else if (!out.empty() && std::regex_search(line, m, spills)) {
      out.back().stack_bytes = std::stoll(m[1]);
      out.back().spill_store_bytes = std::stoll(m[2]);
      out.back().spill_load_bytes = std::stoll(m[3]);
    } else if (!out.empty() && std::regex_search(line, m, used)) {
      out.back().registers = std::stoi(m[1]);
      if (m[2].matched) out.back().barriers = std::stoi(m[2]);
      if (m[3].matched) out.back().shared_bytes = std::stoll(m[3]);
    }
  }
  return out;
}

Profile make_profile(const std::string& backend, std::string_view compile_log,
                     const std::vector<json::Value>& configs) {
  Profile p;
  json::Value kernels;
  kernels.array();
  int max_registers = 0;
  int64_t spills = 0, max_shared = 0;
  for (const auto& k : parse_ptxas_report(compile_log)) {
    json::Value v;
    v.set("name", k.name).set("arch", k.arch).set("registers", k.registers);
    v.set("barriers", k.barriers).set("shared_bytes", k.shared_bytes);
    v.set("stack_bytes", k.stack_bytes).set("spill_store_bytes", k.spill_store_bytes);
    v.set("spill_load_bytes", k.spill_load_bytes);
    kernels.push(v);
    max_registers = std::max(max_registers, k.registers);
    max_shared = std::max(max_shared, k.shared_bytes);
    spills += k.spill_store_bytes + k.spill_load_bytes;
  }
  json::Value rows;
  rows.array();
  double largest_bytes = -1, largest_fraction = 0, largest_bandwidth = 0, check_s = 0, time_s = 0;
  std::string largest_name;
  for (const auto& c : configs) {
    json::Value r;
    r.set("index", c["index"]).set("name", c["name"]);
    const double kernel_ms = c["candidate"]["median_ms"].as_number(0);
    const double eager_ms = c["reference"]["median_ms"].as_number(0);
    const double bytes = c["bytes_moved"].as_number(0);
    const double bound_ms = c["speed_of_light_ms"].as_number(0);
    check_s += c["check_seconds"].as_number(0);
    time_s += c["timing_seconds"].as_number(0);
    r.set("check_seconds", c["check_seconds"].as_number(0));
    r.set("timing_seconds", c["timing_seconds"].as_number(0));
    if (kernel_ms > 0) {
      const double bandwidth = bytes / (kernel_ms * 1e-3);  // bytes per second
      const double fraction = bound_ms > 0 ? bound_ms / kernel_ms : 0;
      r.set("kernel_ms", kernel_ms).set("eager_ms", eager_ms);
      r.set("speedup", eager_ms > 0 ? eager_ms / kernel_ms : 0);
      r.set("kernel_spread",
            c["candidate"]["p90_ms"].as_number(0) - c["candidate"]["p10_ms"].as_number(0));
      r.set("bytes_moved", bytes).set("achieved_gb_per_s", bandwidth / 1e9);
      r.set("speed_of_light_ms", bound_ms).set("fraction_of_speed_of_light", fraction);
      if (bytes > largest_bytes) {
        largest_bytes = bytes;
        largest_fraction = fraction;
        largest_bandwidth = bandwidth;
        largest_name = c["name"].as_string();
      }
    }
    rows.push(r);
  }
  json::Value summary;
  summary.set("backend", backend).set("kernels", static_cast<int64_t>(kernels.as_array().size()));
  summary.set("max_registers", max_registers).set("max_shared_bytes", max_shared);
  summary.set("spill_bytes", spills).set("check_seconds", check_s).set("timing_seconds", time_s);
  std::string brief;
  if (backend == "cuda")
    brief = std::to_string(kernels.as_array().size()) + " kernel(s), up to " +
            std::to_string(max_registers) + " registers, " + std::to_string(max_shared) +
            " B shared, " + (spills ? std::to_string(spills) + " B spilled" : "no spills") + "; ";
  if (largest_bytes >= 0) {
    summary.set("largest_config", largest_name);
    summary.set("largest_config_gb_per_s", largest_bandwidth / 1e9);
    summary.set("largest_config_fraction_of_speed_of_light", largest_fraction);
    brief += "largest config " + fmt("%.0f", largest_bandwidth / 1e9) + " GB/s, " +
             fmt("%.0f", 100 * largest_fraction) + "% of the speed-of-light bound";
  } else {
    brief += "not timed";
  }
  p.doc.set("kernels", kernels).set("configs", rows).set("summary", summary);
  p.brief = brief;
  return p;
}

}  // namespace kforge::gpu
