#include "common/task_signature.hpp"

#include <sstream>

namespace kforge::tasks {
namespace {

std::string type_of(const json::Value& spec) {
  const std::string& kind = spec["kind"].as_string();
  if (kind == "none") return "Tensor?";
  if (kind == "scalar") return spec["type"].as_string();
  if (kind == "int_list") return "int[]";
  if (kind == "tensor_list") return "Tensor[]";
  return "Tensor";
}

std::string shape_text(const json::Value& shape) {
  std::string out = "[";
  for (const auto& d : shape.as_array()) out += (out.size() > 1 ? ", " : "") + d.dump();
  return out + "]";
}

// Where a backward argument comes from, in words.
std::string origin(const json::Value& spec, const json::Value& config) {
  const std::string& kind = spec["kind"].as_string();
  const auto index = static_cast<size_t>(spec["index"].as_int());
  auto forward_name = [&](size_t i) { return config["forward_args"][i]["name"].as_string("?"); };
  if (kind == "forward_arg") return "the forward argument `" + forward_name(index) + "`";
  if (kind == "grad_output")
    return "the gradient of forward output " + std::to_string(index) + " " +
           shape_text(config["forward_outputs"][index]["shape"]);
  if (kind == "forward_output") return "forward output " + std::to_string(index);
  if (kind == "derived")
    return "a tensor AutogradFunction computes " + shape_text(spec["shape"]) + " " +
           spec["dtype"].as_string();
  if (kind == "scalar") {
    if (spec["type"].as_string() != "float") return "the value " + spec["value"].dump();
    std::ostringstream v;
    v.precision(9);
    v << spec["value"].as_number();
    return "the value " + v.str();
  }
  if (kind == "int_list") return "the integers " + spec["value"].dump();
  if (kind == "none") return "None";
  if (kind == "tensor_list") {
    std::string out = "a sequence (a Python tuple) of ";
    const auto& elements = spec["elements"].as_array();
    for (size_t j = 0; j < elements.size(); ++j)
      out += (j ? ", " : "") + origin(elements[j], config);
    return out;
  }
  return "a " + spec["dtype"].as_string() + " tensor " + shape_text(spec["shape"]);
}

}  // namespace

std::vector<std::string> parameter_types(const json::Value& config) {
  std::vector<std::string> types;
  for (const auto& spec : config["args"].as_array()) types.push_back(type_of(spec));
  return types;
}

std::string describe_parameters(const json::Value& config) {
  std::string out;
  for (const auto& spec : config["args"].as_array())
    out += (out.empty() ? "" : ", ") + spec["name"].as_string() + ": " + type_of(spec);
  return out;
}

std::string describe_contract(const json::Value& config, const std::string& direction) {
  std::string out = direction + "(";
  out += describe_parameters(config) + ")\n";
  for (const auto& spec : config["args"].as_array())
    out +=
        "  " + spec["name"].as_string() + ": " + type_of(spec) + ", " + origin(spec, config) + "\n";
  const auto& outputs = config["outputs"].as_array();
  if (direction != "backward") {
    out += "returns " + std::to_string(outputs.size()) + " tensor(s):";
    for (const auto& o : outputs)
      out += " " + o["dtype"].as_string() + " " + shape_text(o["shape"]);
    return out + "\n";
  }
  out += "returns " + std::to_string(outputs.size()) +
         " tensor(s), a list in this order (a single tensor when there is one):\n";
  for (size_t k = 0; k < outputs.size(); ++k) {
    const auto& o = outputs[k];
    out += "  " + std::to_string(k) + ": ";
    if (o["gradient_of"].as_int(-1) < 0) {
      out += "dropped by AutogradFunction.backward (not checked)\n";
      continue;
    }
    out +=
        "the gradient of `" +
        config["forward_args"][static_cast<size_t>(o["gradient_of"].as_int())]["name"].as_string() +
        "`, " + o["dtype"].as_string() + " " + shape_text(o["shape"]);
    out += o["checked"].as_bool(true) ? "\n" : " (not checked: it does not require grad)\n";
  }
  return out;
}

bool parameter_accepts(const std::string& kernel, const std::string& task) {
  if (kernel == task) return true;
  if (kernel == "float" && task == "int") return true;  // an int scalar converts to double
  if (kernel == "Tensor?" && task == "Tensor") return true;
  return false;
}

}  // namespace kforge::tasks
