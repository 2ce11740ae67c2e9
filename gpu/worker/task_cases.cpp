#include "gpu/worker/task_cases.hpp"

#include <ATen/CPUGeneratorImpl.h>
#include <c10/util/Exception.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#ifdef KFORGE_WITH_CUDA
#include <ATen/cuda/CUDAGeneratorImpl.h>
#endif

namespace kforge::worker {
namespace {

bool is_tensor_kind(const std::string& kind) {
  return kind == "input" || kind == "parameter" || kind == "buffer" || kind == "tensor" ||
         kind == "grad_output" || kind == "forward_arg" || kind == "forward_output";
}

std::vector<int64_t> shape_of(const json::Value& spec) {
  std::vector<int64_t> shape;
  for (const auto& d : spec["shape"].as_array()) shape.push_back(d.as_int());
  return shape;
}

at::Generator make_generator(at::Device device, uint64_t seed) {
#ifdef KFORGE_WITH_CUDA
  if (device.is_cuda()) {
    auto gen = at::cuda::detail::createCUDAGenerator(device.index());
    gen.set_current_seed(seed);
    return gen;
  }
#endif
  return at::make_generator<at::CPUGeneratorImpl>(seed);
}

c10::IValue scalar_value(const json::Value& spec) {
  const std::string& type = spec["type"].as_string();
  if (type == "bool") return c10::IValue(spec["value"].as_bool());
  if (type == "int") return c10::IValue(spec["value"].as_int());
  return c10::IValue(spec["value"].as_number());
}

}  // namespace

uint64_t mix_seed(uint64_t a, uint64_t b) {
  uint64_t z = a * 0x9E3779B97F4A7C15ull + b + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

at::ScalarType parse_dtype(const std::string& name) {
  static const std::map<std::string, at::ScalarType> types = {
      {"float32", at::kFloat},     {"float", at::kFloat},  {"float64", at::kDouble},
      {"double", at::kDouble},     {"float16", at::kHalf}, {"half", at::kHalf},
      {"bfloat16", at::kBFloat16}, {"int64", at::kLong},   {"long", at::kLong},
      {"int32", at::kInt},         {"int", at::kInt},      {"int16", at::kShort},
      {"int8", at::kChar},         {"uint8", at::kByte},   {"bool", at::kBool},
  };
  auto it = types.find(name);
  if (it == types.end()) throw std::runtime_error("unsupported dtype " + name);
  return it->second;
}

std::vector<at::Tensor> flatten_outputs(const c10::IValue& value) {
  std::vector<at::Tensor> out;
  if (value.isTensor()) {
    out.push_back(value.toTensor());
  } else if (value.isTuple()) {
    for (const auto& e : value.toTupleRef().elements()) {
      auto inner = flatten_outputs(e);
      out.insert(out.end(), inner.begin(), inner.end());
    }
  } else if (value.isTensorList()) {
    for (const auto& t : value.toTensorVector()) out.push_back(t);
  } else if (value.isList()) {
    for (const auto& e : value.toListRef()) {
      auto inner = flatten_outputs(e);
      out.insert(out.end(), inner.begin(), inner.end());
    }
  } else if (!value.isNone()) {
    throw std::runtime_error("the function returned a " + value.tagKind() + ", not tensors");
  }
  return out;
}

std::vector<std::string> expected_parameter_types(const json::Value& config) {
  std::vector<std::string> types;
  for (const auto& spec : config["args"].as_array()) {
    const std::string& kind = spec["kind"].as_string();
    if (kind == "none")
      types.push_back("Tensor?");
    else if (kind == "scalar")
      types.push_back(spec["type"].as_string());
    else if (kind == "int_list")
      types.push_back("int[]");
    else
      types.push_back("Tensor");
  }
  return types;
}

std::string describe_parameters(const json::Value& config) {
  std::string out;
  auto types = expected_parameter_types(config);
  for (size_t i = 0; i < types.size(); ++i) {
    if (i) out += ", ";
    out += config["args"][i]["name"].as_string() + ": " + types[i];
  }
  return out;
}

std::unique_ptr<ExportedTask> ExportedTask::load(const std::string& export_dir,
                                                 std::string& error) {
  auto parsed = json::parse_file(export_dir + "/task.json");
  if (!parsed.value) {
    error = parsed.error;
    return nullptr;
  }
  auto task = std::unique_ptr<ExportedTask>(new ExportedTask);
  task->dir_ = export_dir;
  task->doc_ = std::move(*parsed.value);
  if (task->doc_["format"].as_int() != 1) {
    error = export_dir + "/task.json: unknown export format; export the task again";
    return nullptr;
  }
  return task;
}

at::Tensor ExportedTask::draw_tensor(const json::Value& spec, uint64_t seed, at::Device device) {
  auto dtype = parse_dtype(spec["dtype"].as_string());
  auto shape = shape_of(spec);
  const auto& dist = spec["dist"];
  const std::string& family = dist["family"].as_string();
  auto gen = make_generator(device, seed);
  bool floating = at::isFloatingType(dtype);
  auto draw_type = floating && dtype != at::kDouble ? at::kFloat : dtype;
  auto options = at::TensorOptions().dtype(draw_type).device(device);
  at::Tensor t;
  if (family == "normal") {
    t = at::empty(shape, options).normal_(dist["mean"].as_number(), dist["std"].as_number(), gen);
  } else if (family == "uniform") {
    t = at::empty(shape, options).uniform_(dist["low"].as_number(), dist["high"].as_number(), gen);
  } else if (family == "randint") {
    t = at::randint(dist["low"].as_int(), dist["high"].as_int(), shape, gen, options.dtype(dtype));
  } else if (family == "constant") {
    t = at::full(shape, dist["value"].as_number(), options.dtype(dtype));
  } else if (family == "fixed") {
    std::ifstream in(dir_ + "/" + dist["file"].as_string(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string bytes = ss.str();
    auto cpu = at::empty(shape, at::TensorOptions().dtype(dtype));
    TORCH_CHECK(static_cast<size_t>(cpu.nbytes()) == bytes.size(), "fixed tensor ",
                spec["name"].as_string(), ": file has ", bytes.size(), " bytes, expected ",
                cpu.nbytes());
    std::memcpy(cpu.data_ptr(), bytes.data(), bytes.size());
    t = cpu.to(device);
  } else {
    throw std::runtime_error("unknown distribution family '" + family + "' for " +
                             spec["name"].as_string());
  }
  return t.scalar_type() == dtype ? t : t.to(dtype);
}

Case ExportedTask::draw(const json::Value& config, uint64_t seed, at::Device device) {
  Case c;
  auto add_tensor = [&](const at::Tensor& t, const std::string& name) {
    for (const auto& existing : c.tensors)
      if (existing.is_same(t)) return;
    c.tensors.push_back(t);
    c.tensor_names.push_back(name);
  };
  std::vector<c10::IValue> forward_args;
  std::vector<at::Tensor> forward_outputs;
  if (config.contains("forward_args")) {
    const auto& specs = config["forward_args"].as_array();
    for (size_t i = 0; i < specs.size(); ++i) {
      const auto& spec = specs[i];
      const std::string& kind = spec["kind"].as_string();
      if (kind == "none")
        forward_args.emplace_back();
      else if (kind == "scalar")
        forward_args.push_back(scalar_value(spec));
      else if (kind == "int_list") {
        std::vector<int64_t> v;
        for (const auto& e : spec["value"].as_array()) v.push_back(e.as_int());
        forward_args.emplace_back(v);
      } else
        forward_args.emplace_back(draw_tensor(spec, mix_seed(seed, 1000 + i), device));
    }
    bool needs_outputs = false;
    for (const auto& spec : config["args"].as_array())
      needs_outputs |= spec["kind"].as_string() == "forward_output";
    if (needs_outputs) {
      at::NoGradGuard no_grad;
      auto call = prepare(config["forward_reference"], config["forward_args"], forward_args, true);
      forward_outputs = flatten_outputs(call.module->forward(call.args));
    }
  }
  const auto& specs = config["args"].as_array();
  for (size_t i = 0; i < specs.size(); ++i) {
    const auto& spec = specs[i];
    const std::string& kind = spec["kind"].as_string();
    const std::string& name = spec["name"].as_string();
    if (kind == "none") {
      c.args.emplace_back();
    } else if (kind == "scalar") {
      c.args.push_back(scalar_value(spec));
    } else if (kind == "int_list") {
      std::vector<int64_t> v;
      for (const auto& e : spec["value"].as_array()) v.push_back(e.as_int());
      c.args.emplace_back(v);
    } else if (kind == "forward_arg") {
      c.args.push_back(forward_args.at(spec["index"].as_int()));
      if (c.args.back().isTensor()) add_tensor(c.args.back().toTensor(), name);
    } else if (kind == "forward_output") {
      c.args.emplace_back(forward_outputs.at(spec["index"].as_int()));
      add_tensor(c.args.back().toTensor(), name);
    } else if (is_tensor_kind(kind)) {
      auto t = draw_tensor(spec, mix_seed(seed, i), device);
      c.args.emplace_back(t);
      add_tensor(t, name);
    } else {
      throw std::runtime_error("unknown argument kind '" + kind + "' for " + name);
    }
  }
  return c;
}

void ExportedTask::refill(const json::Value& config, Case& c, uint64_t seed) {
  Case fresh = draw(config, seed, c.tensors.empty() ? at::Device(at::kCPU) : c.tensors[0].device());
  for (size_t i = 0; i < c.tensors.size() && i < fresh.tensors.size(); ++i)
    c.tensors[i].copy_(fresh.tensors[i]);
}

torch::jit::Module& ExportedTask::module(const std::string& file) {
  auto it = modules_.find(file);
  if (it == modules_.end()) {
    auto m = torch::jit::load(dir_ + "/" + file);
    m.eval();
    it = modules_.emplace(file, std::move(m)).first;
  }
  return it->second;
}

ExportedTask::PreparedCall ExportedTask::prepare(const json::Value& reference,
                                                 const json::Value& specs,
                                                 const std::vector<c10::IValue>& args,
                                                 bool copy_tensors) {
  std::vector<c10::IValue> call;
  bool tensors_only = reference["call"].as_string() == "tensor_args";
  const auto& list = specs.as_array();
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& kind = list[i]["kind"].as_string();
    bool is_tensor = !(kind == "none" || kind == "scalar" || kind == "int_list");
    if (tensors_only && !is_tensor) continue;
    call.push_back(copy_tensors && args[i].isTensor() ? c10::IValue(args[i].toTensor().clone())
                                                      : args[i]);
  }
  return {&module(reference["file"].as_string()), std::move(call)};
}

ExportedTask::PreparedCall ExportedTask::prepare_reference(const json::Value& config, const Case& c,
                                                           bool copy_tensors) {
  return prepare(config["reference"], config["args"], c.args, copy_tensors);
}

std::vector<at::Tensor> ExportedTask::reference(const json::Value& config, const Case& c) {
  at::NoGradGuard no_grad;
  auto call = prepare_reference(config, c, /*copy_tensors=*/true);
  return flatten_outputs(call.module->forward(call.args));
}

}  // namespace kforge::worker
