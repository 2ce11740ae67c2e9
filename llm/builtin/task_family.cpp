#include "llm/builtin/task_family.hpp"

#include <set>

namespace kforge::builtin {
namespace {

// Operators that only inspect or route values; they say nothing about the computation.
const std::set<std::string>& bookkeeping_ops() {
  static const std::set<std::string> ops = {"aten::size",        "aten::dim",  "aten::len",
                                            "aten::__getitem__", "aten::eq",   "aten::ne",
                                            "aten::format",      "aten::warn", "aten::__is__",
                                            "aten::__isnot__",   "aten::list", "aten::append"};
  return ops;
}

struct Arg {
  std::string kind, dtype, type;
  size_t rank = 0;
  json::Value value;
};

std::vector<Arg> args_of(const json::Value& config) {
  std::vector<Arg> out;
  for (const auto& a : config["args"].as_array())
    out.push_back({a["kind"].as_string(), a["dtype"].as_string(), a["type"].as_string(),
                   a["shape"].as_array().size(), a["value"]});
  return out;
}

bool is_tensor(const Arg& a, const std::string& dtype, size_t rank) {
  bool tensor = a.kind == "input" || a.kind == "parameter" || a.kind == "buffer";
  return tensor && a.dtype == dtype && (rank == 0 || a.rank == rank);
}

std::string describe(const std::set<std::string>& ops) {
  std::string out;
  for (const auto& o : ops) out += (out.empty() ? "" : ", ") + o;
  return out.empty() ? "no operators" : out;
}

}  // namespace

TaskFamily recognise_family(const json::Value& direction_doc, const std::string& direction) {
  const auto& configs = direction_doc["configs"].as_array();
  if (configs.empty()) return {"", "the task has no configs"};
  if (direction != "forward")
    return {"", "the built-in proposer has templates for forward functions only"};
  std::set<std::string> ops;
  for (const auto& c : configs)
    for (const auto& o : c["reference"]["ops"].as_array())
      if (!bookkeeping_ops().count(o.as_string())) ops.insert(o.as_string());
  if (ops.empty())
    return {"", "the export lists no operators (exported by an older kforge? export again)"};
  auto args = args_of(configs.front());
  const auto& outputs = configs.front()["outputs"].as_array();
  auto is = [&](std::initializer_list<const char*> names) {
    return ops == std::set<std::string>(names.begin(), names.end());
  };

  if (is({"aten::softmax"}) && args.size() == 2 && is_tensor(args[0], "float32", 2) &&
      args[1].kind == "scalar" && args[1].type == "int") {
    int64_t dim = args[1].value.as_int(0);
    if (dim == -1 || dim == 1) return {"softmax", ""};
    return {"", "softmax over a dimension other than the last"};
  }
  if (is({"aten::layer_norm"}) && args.size() == 5 && is_tensor(args[0], "float32", 0) &&
      is_tensor(args[1], "float32", 1) && is_tensor(args[2], "float32", 1) &&
      args[3].kind == "int_list" && args[4].kind == "scalar") {
    if (args[3].value.as_array().size() == 1) return {"layernorm", ""};
    return {"", "layer_norm over more than one dimension"};
  }
  if (is({"aten::linear", "aten::relu"}) && args.size() == 3 && is_tensor(args[0], "float32", 2) &&
      is_tensor(args[1], "float32", 2) && is_tensor(args[2], "float32", 1))
    return {"linear_relu", ""};
  if (is({"aten::cross_entropy_loss"}) && args.size() == 2 && is_tensor(args[0], "float32", 2) &&
      is_tensor(args[1], "int64", 1) && outputs.size() == 1 &&
      outputs[0]["shape"].as_array().empty())
    return {"cross_entropy", ""};
  return {"", "no built-in template computes " + describe(ops) + " with these arguments"};
}

}  // namespace kforge::builtin
