#include "evaluation/worker/task_cases.hpp"

#include <ATen/CPUGeneratorImpl.h>
#include <c10/util/Exception.h>

#include <torch/csrc/autograd/autograd.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#ifdef KFORGE_WITH_CUDA
#include <ATen/cuda/CUDAGeneratorImpl.h>
#endif

namespace kforge::worker {
namespace {

// Kinds of arguments drawn fresh from their distribution (the others are made from them).
bool is_drawn_tensor(const std::string& kind) {
  return kind == "input" || kind == "parameter" || kind == "buffer" || kind == "tensor";
}

bool is_tensor_value(const json::Value& spec) {
  const std::string& kind = spec["kind"].as_string();
  return !(kind == "none" || kind == "scalar" || kind == "int_list");
}

// Whether any backward argument (or element of a sequence argument) is of `kind`.
bool uses(const json::Value& specs, const std::string& kind) {
  for (const auto& s : specs.as_array())
    if (s["kind"].as_string() == kind || (s.contains("elements") && uses(s["elements"], kind)))
      return true;
  return false;
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

// The arguments a reference module takes: all of them, or the tensors only where it was traced
// with the others fixed; copies of the tensors where `copy_tensors`.
std::vector<c10::IValue> reference_inputs(const json::Value& reference, const json::Value& specs,
                                          const std::vector<c10::IValue>& args, bool copy_tensors) {
  std::vector<c10::IValue> inputs;
  const bool tensors_only = reference["call"].as_string() == "tensor_args";
  const auto& list = specs.as_array();
  for (size_t i = 0; i < args.size(); ++i) {
    if (tensors_only && !is_tensor_value(list[i])) continue;
    inputs.push_back(copy_tensors && args[i].isTensor() ? c10::IValue(args[i].toTensor().clone())
                                                        : args[i]);
  }
  return inputs;
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

Result<std::unique_ptr<ExportedTask>> ExportedTask::load(const std::string& export_dir) {
  using Loaded = Result<std::unique_ptr<ExportedTask>>;
  auto parsed = json::parse_file(export_dir + "/task.json");
  if (!parsed) return Loaded::failure(parsed.error);
  auto task = std::unique_ptr<ExportedTask>(new ExportedTask);
  task->dir_ = export_dir;
  task->doc_ = std::move(*parsed.value);
  if (task->doc_["format"].as_int() != 2)
    return Loaded::failure(export_dir + "/task.json: unknown export format; export the task again");
  return {std::move(task), {}};
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

c10::IValue ExportedTask::draw_value(const json::Value& spec, uint64_t seed, at::Device device) {
  const std::string& kind = spec["kind"].as_string();
  if (kind == "none") return {};
  if (kind == "scalar") return scalar_value(spec);
  if (kind == "int_list") {
    std::vector<int64_t> v;
    for (const auto& e : spec["value"].as_array()) v.push_back(e.as_int());
    return c10::IValue(v);
  }
  if (!is_drawn_tensor(kind))
    throw std::runtime_error("unknown argument kind '" + kind + "' for " +
                             spec["name"].as_string());
  return c10::IValue(draw_tensor(spec, seed, device));
}

Case ExportedTask::draw(const json::Value& config, uint64_t seed, at::Device device) {
  Case c;
  auto add_tensor = [&](const at::Tensor& t, const std::string& name) {
    for (const auto& existing : c.tensors)
      if (existing.is_same(t)) return;
    c.tensors.push_back(t);
    c.tensor_names.push_back(name);
  };
  std::vector<at::Tensor> forward_outputs, derived;
  if (config.contains("forward_args")) {
    const auto& specs = config["forward_args"].as_array();
    for (size_t i = 0; i < specs.size(); ++i)
      c.forward_args.push_back(draw_value(specs[i], mix_seed(seed, 1000 + i), device));
    // The upstream gradient of each output: standard normal, as randn_like(out).
    const auto& outs = config["forward_outputs"].as_array();
    for (size_t k = 0; k < outs.size(); ++k) {
      auto dtype = parse_dtype(outs[k]["dtype"].as_string());
      if (!at::isFloatingType(dtype)) {
        c.grad_outputs.emplace_back();
        continue;
      }
      auto gen = make_generator(device, mix_seed(seed, 2000 + k));
      auto draw_type = dtype == at::kDouble ? at::kDouble : at::kFloat;
      auto g = at::empty(shape_of(outs[k]), at::TensorOptions().dtype(draw_type).device(device))
                   .normal_(0.0, 1.0, gen);
      c.grad_outputs.push_back(g.scalar_type() == dtype ? g : g.to(dtype));
    }
    at::NoGradGuard no_grad;
    if (uses(config["args"], "forward_output"))
      forward_outputs = call(config["forward_reference"], config["forward_args"], c.forward_args,
                             /*copy_tensors=*/true);
    if (config.contains("prelude")) {
      // The tensors AutogradFunction computes for backward_fn (a saved mean, a scaled gradient).
      const auto& prelude = config["prelude"];
      std::vector<c10::IValue> inputs;
      for (const auto& i : prelude["forward_args"].as_array())
        inputs.emplace_back(c.forward_args.at(static_cast<size_t>(i.as_int())).toTensor().clone());
      for (const auto& k : prelude["grad_outputs"].as_array())
        inputs.emplace_back(c.grad_outputs.at(static_cast<size_t>(k.as_int())).clone());
      derived = flatten_outputs(module(prelude["file"].as_string()).forward(inputs));
    }
  }
  // A tensor made from the drawn values, for a backward argument of kind forward_arg,
  // grad_output, forward_output or derived.
  auto made = [&](const json::Value& spec) -> at::Tensor {
    const std::string& kind = spec["kind"].as_string();
    const auto index = static_cast<size_t>(spec["index"].as_int());
    if (kind == "forward_arg") return c.forward_args.at(index).toTensor();
    if (kind == "grad_output") return c.grad_outputs.at(index);
    if (kind == "forward_output") return forward_outputs.at(index);
    if (kind == "derived") return derived.at(index);
    throw std::runtime_error("unknown argument kind '" + kind + "' for " +
                             spec["name"].as_string());
  };
  const auto& specs = config["args"].as_array();
  for (size_t i = 0; i < specs.size(); ++i) {
    const auto& spec = specs[i];
    const std::string& kind = spec["kind"].as_string();
    const std::string& name = spec["name"].as_string();
    if (kind == "tensor_list") {
      c10::List<at::Tensor> list;
      for (const auto& element : spec["elements"].as_array()) {
        list.push_back(made(element));
        add_tensor(list.get(list.size() - 1), element["name"].as_string());
      }
      c.args.emplace_back(std::move(list));
    } else if (!is_tensor_value(spec) || is_drawn_tensor(kind)) {
      c.args.push_back(draw_value(spec, mix_seed(seed, i), device));
      if (c.args.back().isTensor()) add_tensor(c.args.back().toTensor(), name);
    } else {
      c.args.emplace_back(made(spec));
      add_tensor(c.args.back().toTensor(), name);
    }
  }
  return c;
}

void ExportedTask::refill(const json::Value& config, Case& c, uint64_t seed) {
  at::Device device = c.tensors.empty() ? at::Device(at::kCPU) : c.tensors[0].device();
  Case fresh = draw(config, seed, device);
  // The forward arguments and gradients first: the reference is computed from them, and
  // arguments made from them (forward outputs, derived tensors) come fresh with `tensors`.
  for (size_t i = 0; i < c.forward_args.size() && i < fresh.forward_args.size(); ++i)
    if (c.forward_args[i].isTensor())
      c.forward_args[i].toTensor().copy_(fresh.forward_args[i].toTensor());
  for (size_t k = 0; k < c.grad_outputs.size() && k < fresh.grad_outputs.size(); ++k)
    if (c.grad_outputs[k].defined()) c.grad_outputs[k].copy_(fresh.grad_outputs[k]);
  for (size_t i = 0; i < c.tensors.size() && i < fresh.tensors.size(); ++i)
    c.tensors[i].copy_(fresh.tensors[i]);
}

torch::jit::Module& ExportedTask::module(const std::string& file, bool in_double) {
  auto& cache = in_double ? modules_in_double_ : modules_;
  auto it = cache.find(file);
  if (it == cache.end()) {
    auto m = torch::jit::load(dir_ + "/" + file);
    m.eval();
    if (in_double) m.to(at::kDouble);
    it = cache.emplace(file, std::move(m)).first;
  }
  return it->second;
}

std::vector<at::Tensor> ExportedTask::call(const json::Value& reference, const json::Value& specs,
                                           const std::vector<c10::IValue>& args, bool copy_tensors,
                                           bool in_double) {
  return flatten_outputs(module(reference["file"].as_string(), in_double)
                             .forward(reference_inputs(reference, specs, args, copy_tensors)));
}

/// The forward reference run with autograd recording, on copies of the case's forward
/// arguments; the ones that require grad in the task are the leaves.
struct ExportedTask::Graph {
  std::vector<at::Tensor> outputs, grad_outputs;  ///< the outputs that require grad
  std::vector<at::Tensor> leaves;
  std::vector<size_t> leaf_of_arg;  ///< per forward argument: its leaf index, or SIZE_MAX
};

ExportedTask::Graph ExportedTask::forward_graph(const json::Value& config, const Case& c,
                                                bool in_double) {
  at::AutoGradMode grad_mode(true);
  Graph g;
  const auto& specs = config["forward_args"].as_array();
  std::vector<c10::IValue> args;
  for (size_t i = 0; i < c.forward_args.size(); ++i) {
    g.leaf_of_arg.push_back(SIZE_MAX);
    if (!c.forward_args[i].isTensor()) {
      args.push_back(c.forward_args[i]);
      continue;
    }
    auto t = c.forward_args[i].toTensor().detach().clone();
    if (specs[i]["requires_grad"].as_bool(false)) {
      t.requires_grad_(true);
      g.leaf_of_arg.back() = g.leaves.size();
      g.leaves.push_back(t);
    }
    args.emplace_back(t);
  }
  auto outputs = call(config["forward_reference"], config["forward_args"], args, false, in_double);
  for (size_t k = 0; k < outputs.size(); ++k) {
    if (!outputs[k].requires_grad() || k >= c.grad_outputs.size() || !c.grad_outputs[k].defined())
      continue;
    g.outputs.push_back(outputs[k]);
    g.grad_outputs.push_back(c.grad_outputs[k].clone());
  }
  return g;
}

std::vector<at::Tensor> ExportedTask::gradients(const json::Value& config, const Case& c,
                                                Graph& g) {
  std::vector<at::Tensor> grads;
  if (!g.outputs.empty() && !g.leaves.empty())
    grads = torch::autograd::grad(g.outputs, g.leaves, g.grad_outputs, /*retain_graph=*/false,
                                  /*create_graph=*/false, /*allow_unused=*/true);
  std::vector<at::Tensor> expected;
  for (const auto& o : config["outputs"].as_array()) {
    const int64_t i = o["gradient_of"].as_int(-1);
    if (i < 0 || !o["checked"].as_bool(true) ||
        g.leaf_of_arg.at(static_cast<size_t>(i)) == SIZE_MAX) {
      expected.emplace_back();  // not checked
      continue;
    }
    const size_t leaf = g.leaf_of_arg[static_cast<size_t>(i)];
    // An argument the output does not depend on has a zero gradient.
    expected.push_back(leaf < grads.size() && grads[leaf].defined()
                           ? grads[leaf]
                           : at::zeros_like(c.forward_args[static_cast<size_t>(i)].toTensor()));
  }
  return expected;
}

std::vector<at::Tensor> ExportedTask::reference(const json::Value& config, const Case& c) {
  return reference(config, c, false);
}

std::vector<at::Tensor> ExportedTask::reference(const json::Value& config, const Case& c,
                                                bool in_double) {
  if (config["reference"].contains("autograd_of")) {
    auto graph = forward_graph(config, c, in_double);
    return gradients(config, c, graph);
  }
  at::NoGradGuard no_grad;
  return call(config["reference"], config["args"], c.args, /*copy_tensors=*/true, in_double);
}

namespace {

at::Tensor widened(const at::Tensor& t) {
  return t.defined() && at::isFloatingType(t.scalar_type()) ? t.to(at::kDouble) : t;
}

c10::IValue widened(const c10::IValue& v) {
  if (v.isTensor()) return widened(v.toTensor());
  if (v.isTensorList()) {
    c10::List<at::Tensor> list;
    for (const at::Tensor& t : v.toTensorList()) list.push_back(widened(t));
    return list;
  }
  return v;
}

}  // namespace

std::vector<at::Tensor> ExportedTask::reference_in_double(const json::Value& config,
                                                          const Case& c) {
  // What the reference reads: the arguments (forward), or the forward arguments and the output
  // gradients (backward, through autograd); the arguments made from the forward pass are not
  // read by the reference.
  Case wide;
  for (const auto& a : c.args) wide.args.push_back(widened(a));
  for (const auto& a : c.forward_args) wide.forward_args.push_back(widened(a));
  for (const auto& g : c.grad_outputs) wide.grad_outputs.push_back(widened(g));
  return reference(config, wide, true);
}

std::function<void()> ExportedTask::prepare_timed_reference(const json::Value& config,
                                                            const Case& c) {
  if (config["reference"].contains("autograd_of")) {
    // Only the backward pass is timed, as robust-kbench times `out.backward(grad)`.
    auto g = std::make_shared<Graph>(forward_graph(config, c));
    return [g] {
      if (!g->outputs.empty() && !g->leaves.empty())
        torch::autograd::grad(g->outputs, g->leaves, g->grad_outputs, /*retain_graph=*/true,
                              /*create_graph=*/false, /*allow_unused=*/true);
    };
  }
  torch::jit::Module* m = &module(config["reference"]["file"].as_string());
  auto inputs = reference_inputs(config["reference"], config["args"], c.args, false);
  return [m, inputs] { m->forward(inputs); };
}

}  // namespace kforge::worker
