#include "evaluation/kernel_resources.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <regex>
#include <sstream>

namespace kforge::evaluation {
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

json::Value to_json(const std::vector<KernelResources>& kernels) {
  json::Value list;
  list.array();
  for (const auto& k : kernels) {
    json::Value v;
    v.set("name", k.name).set("arch", k.arch).set("registers", k.registers);
    v.set("barriers", k.barriers).set("shared_bytes", k.shared_bytes);
    v.set("stack_bytes", k.stack_bytes).set("spill_store_bytes", k.spill_store_bytes);
    v.set("spill_load_bytes", k.spill_load_bytes);
    list.push(v);
  }
  return list;
}

std::vector<KernelResources> kernel_resources_from_json(const json::Value& list) {
  std::vector<KernelResources> out;
  for (const auto& v : list.as_array()) {
    KernelResources k;
    k.name = v["name"].as_string();
    k.arch = v["arch"].as_string();
    k.registers = static_cast<int32_t>(v["registers"].as_int());
    k.barriers = static_cast<int32_t>(v["barriers"].as_int());
    k.shared_bytes = v["shared_bytes"].as_int();
    k.stack_bytes = v["stack_bytes"].as_int();
    k.spill_store_bytes = v["spill_store_bytes"].as_int();
    k.spill_load_bytes = v["spill_load_bytes"].as_int();
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace kforge::evaluation
