#include "proposers/builtin/task_family.hpp"

#include <algorithm>
#include <set>

namespace kforge::builtin {
namespace {

// Operators that only inspect or route values; they say nothing about the computation.
const std::set<std::string>& bookkeeping_ops() {
  // aten::Int, aten::slice and aten::neg appear where a task derives a shape from another
  // (robust-kbench's layernorm: `x.shape[-len(weight.shape):]`).
  static const std::set<std::string> ops = {
      "aten::size", "aten::dim",    "aten::len",  "aten::__getitem__", "aten::eq",
      "aten::ne",   "aten::format", "aten::warn", "aten::__is__",      "aten::__isnot__",
      "aten::list", "aten::append", "aten::Int",  "aten::slice",       "aten::neg"};
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

TaskFamily none(std::string why_not) {
  return {"", std::move(why_not), {}};
}

TaskFamily found(std::string family, std::map<std::string, int64_t> traits = {}) {
  return {std::move(family), "", std::move(traits)};
}

std::string describe(const std::set<std::string>& ops) {
  std::string out;
  for (const auto& o : ops) out += (out.empty() ? "" : ", ") + o;
  return out.empty() ? "no operators" : out;
}

}  // namespace

TaskFamily recognise_family(const json::Value& direction_doc, const std::string& direction) {
  const auto& configs = direction_doc["configs"].as_array();
  if (configs.empty()) return none("the task has no configs");
  if (direction != "forward")
    return none("the built-in proposer has templates for forward functions only");
  std::set<std::string> ops;
  for (const auto& c : configs)
    for (const auto& o : c["reference"]["ops"].as_array())
      if (!bookkeeping_ops().count(o.as_string())) ops.insert(o.as_string());
  if (ops.empty())
    return none("the export lists no operators (exported by an older kforge? export again)");
  auto args = args_of(configs.front());
  const auto& outputs = configs.front()["outputs"].as_array();
  auto is = [&](std::initializer_list<const char*> names) {
    return ops == std::set<std::string>(names.begin(), names.end());
  };

  if (is({"aten::softmax"}) && args.size() == 2 && is_tensor(args[0], "float32", 2) &&
      args[1].kind == "scalar" && args[1].type == "int") {
    int64_t dim = args[1].value.as_int(0);
    if (dim == -1 || dim == 1) return found("softmax");
    return none("softmax over a dimension other than the last");
  }
  // LayerNorm over the trailing dimensions that weight and bias have: (x, weight, bias,
  // normalized_shape, eps) or, as robust-kbench writes it, (x, weight, bias, eps).
  if (is({"aten::layer_norm"}) && (args.size() == 4 || args.size() == 5) &&
      is_tensor(args[0], "float32", 0) && is_tensor(args[1], "float32", 0) &&
      is_tensor(args[2], "float32", 0) && args[1].rank == args[2].rank &&
      args[0].rank > args[1].rank && args.back().kind == "scalar") {
    const bool shape_arg = args.size() == 5;
    if (shape_arg &&
        (args[3].kind != "int_list" || args[3].value.as_array().size() != args[1].rank))
      return none("layer_norm whose normalized_shape is not the weight's shape");
    return found("layernorm", {{"shape_arg", shape_arg ? 1 : 0}});
  }
  // RMSNorm over the last dimension, as LLaMA writes it (mean of squares, rsqrt, scale) or
  // as torch's rms_norm.
  const std::set<std::string> rms_ops = {
      "aten::to",     "aten::float",      "aten::pow",     "aten::mul", "aten::mean",
      "aten::add",    "aten::rsqrt",      "aten::sqrt",    "aten::div", "aten::type_as",
      "aten::square", "aten::reciprocal", "aten::rms_norm"};
  const bool only_rms_ops = std::all_of(ops.begin(), ops.end(),
                                        [&](const std::string& o) { return rms_ops.count(o) > 0; });
  if (only_rms_ops &&
      (ops.count("aten::rms_norm") ||
       (ops.count("aten::mean") && (ops.count("aten::rsqrt") || ops.count("aten::sqrt")))) &&
      args.size() == 3 && is_tensor(args[0], "float32", 0) && args[0].rank >= 2 &&
      is_tensor(args[1], "float32", 1) && args[2].kind == "scalar")
    return found("rmsnorm");
  // A linear layer on inputs of any rank >= 2 (robust-kbench's unet_linear: batch x tokens x
  // features), with or without a ReLU after it.
  if ((is({"aten::linear", "aten::relu"}) || is({"aten::linear"})) && args.size() == 3 &&
      is_tensor(args[0], "float32", 0) && args[0].rank >= 2 && is_tensor(args[1], "float32", 2) &&
      is_tensor(args[2], "float32", 1))
    return found("linear", {{"relu", ops.count("aten::relu") ? 1 : 0}});
  if (is({"aten::cross_entropy_loss"}) && args.size() == 2 && is_tensor(args[0], "float32", 2) &&
      is_tensor(args[1], "int64", 1) && outputs.size() == 1 &&
      outputs[0]["shape"].as_array().empty())
    return found("cross_entropy");
  return none("no built-in template computes " + describe(ops) + " with these arguments");
}

}  // namespace kforge::builtin
