#include "evaluation/worker/compiled_baseline.hpp"

#include <torch/version.h>

#include <algorithm>
#include <exception>

// AOTInductor's runner exists in LibTorch 2.2 and later; older ones build a worker that says so.
#if __has_include(<torch/csrc/inductor/aoti_runner/model_container_runner_cpu.h>)
#define KFORGE_HAS_AOTI 1
#include <torch/csrc/inductor/aoti_runner/model_container_runner_cpu.h>
#if defined(KFORGE_WITH_CUDA)
#include <torch/csrc/inductor/aoti_runner/model_container_runner_cuda.h>
#endif
#endif

namespace kforge::worker {

#if defined(KFORGE_HAS_AOTI)
struct CompiledBaseline::Library {
  std::unique_ptr<torch::inductor::AOTIModelContainerRunner> runner;
};
#else
struct CompiledBaseline::Library {};
#endif

namespace {

std::string libtorch_version() {
  return std::to_string(TORCH_VERSION_MAJOR) + "." + std::to_string(TORCH_VERSION_MINOR) + "." +
         std::to_string(TORCH_VERSION_PATCH);
}

#if defined(KFORGE_HAS_AOTI)
std::vector<at::Tensor> tensors_at(const std::vector<c10::IValue>& args,
                                   const json::Value& positions) {
  std::vector<at::Tensor> out;
  for (const auto& p : positions.as_array()) {
    const auto i = static_cast<size_t>(p.as_int());
    if (i >= args.size() || !args[i].isTensor())
      throw std::runtime_error("argument " + std::to_string(i) + " of the case is not a tensor");
    out.push_back(args[i].toTensor());
  }
  return out;
}
#endif

}  // namespace

CompiledBaseline::CompiledBaseline(const std::string& dir, at::Device device)
    : dir_(dir), device_(device) {
  auto parsed = json::parse_file(dir + "/compiled.json");
  if (!parsed.value) {
    error_ = "cannot read " + dir + "/compiled.json: " + parsed.error;
    return;
  }
  doc_ = std::move(*parsed.value);
  const std::string built_with = doc_["torch_version"].as_string();
  if (doc_.contains("error")) {
    error_ = doc_["error"].as_string();
  } else if (doc_["device"].as_string() != c10::DeviceTypeName(device.type(), true)) {
    error_ = "the compiled baseline was built for " + doc_["device"].as_string() +
             " and this evaluation runs on " + c10::DeviceTypeName(device.type(), true);
  } else if (built_with.substr(0, built_with.find('+')) != libtorch_version()) {
    error_ = "the compiled baseline was built by torch " + built_with +
             " and the worker runs LibTorch " + libtorch_version();
  }
#if !defined(KFORGE_HAS_AOTI)
  if (error_.empty())
    error_ = "this worker was built against LibTorch " + libtorch_version() +
             ", which has no AOTInductor runner (LibTorch 2.6 or later has one)";
#endif
}

CompiledBaseline::~CompiledBaseline() = default;

#if defined(KFORGE_HAS_AOTI)
CompiledBaseline::Library* CompiledBaseline::library(const json::Value& entry, std::string& why) {
  const std::string path = dir_ + "/" + entry["library"].as_string();
  auto it = libraries_.find(path);
  if (it != libraries_.end()) return it->second.get();
  auto lib = std::make_unique<Library>();
  try {
    if (device_.is_cuda()) {
#if defined(KFORGE_WITH_CUDA)
      lib->runner = std::make_unique<torch::inductor::AOTIModelContainerRunnerCuda>(
          path, 1, device_.str(), dir_ + "/" + entry["kernels_dir"].as_string());
#endif
    } else {
      lib->runner = std::make_unique<torch::inductor::AOTIModelContainerRunnerCpu>(path, 1);
    }
  } catch (const std::exception& e) {
    why =
        "the compiled library " + path + " does not load: " + std::string(e.what()).substr(0, 300);
    return nullptr;
  }
  if (!lib->runner) {
    why = "this worker has no CUDA runner for AOTInductor libraries";
    return nullptr;
  }
  return libraries_.emplace(path, std::move(lib)).first->second.get();
}
#endif

std::function<std::vector<at::Tensor>()> CompiledBaseline::prepare(const std::string& direction,
                                                                   size_t index,
                                                                   const json::Value& config,
                                                                   const Case& c,
                                                                   std::string& why) {
  if (!error_.empty()) {
    why = error_;
    return {};
  }
  const auto& d = doc_["directions"][direction];
  if (d.contains("error") || d.is_null()) {
    why = "no compiled baseline for the " + direction +
          " direction: " + d["error"].as_string("it was not built");
    return {};
  }
  const auto& configs = d["configs"].as_array();
  if (index >= configs.size()) {
    why = "the compiled baseline has no " + direction + " config " + std::to_string(index);
    return {};
  }
  const auto& entry = configs[index];
  if (entry.contains("error")) {
    const std::string e = entry["error"].as_string();
    why = e.rfind("not built:", 0) == 0 ? "no compiled baseline for this config (" + e + ")"
                                        : "torch.compile could not build this config: " + e;
    return {};
  }
#if defined(KFORGE_HAS_AOTI)
  try {
    if (direction == "forward") {
      Library* lib = library(entry, why);
      if (!lib) return {};
      auto inputs = tensors_at(c.args, entry["inputs"]);
      return [lib, inputs] { return lib->runner->run(inputs); };
    }
    Library* forward = library(entry["forward"], why);
    Library* backward = forward ? library(entry["backward"], why) : nullptr;
    if (!backward) return {};
    // The forward graph once, for the tensors it saves; then the backward graph is the work.
    at::NoGradGuard no_grad;
    auto results = forward->runner->run(tensors_at(c.forward_args, entry["forward"]["inputs"]));
    const auto n_outputs = static_cast<size_t>(entry["outputs"].as_int());
    if (results.size() < n_outputs)
      throw std::runtime_error("the forward graph returned too little");
    std::vector<at::Tensor> inputs(results.begin() + static_cast<std::ptrdiff_t>(n_outputs),
                                   results.end());
    for (const auto& k : entry["tangent_of"].as_array()) {
      const auto i = static_cast<size_t>(k.as_int());
      if (i >= c.grad_outputs.size() || !c.grad_outputs[i].defined())
        throw std::runtime_error("the case has no gradient for output " + std::to_string(i));
      inputs.push_back(c.grad_outputs[i].clone());
    }
    // Where each gradient goes: the candidate's outputs name the argument they are the gradient
    // of; an argument the compiled graph gives none for has a zero gradient.
    std::vector<int64_t> gradient_of;
    for (const auto& g : entry["gradient_of"].as_array()) gradient_of.push_back(g.as_int());
    std::vector<std::pair<int64_t, at::Tensor>> order;  // argument, zeros if it gets no gradient
    for (const auto& o : config["outputs"].as_array()) {
      const int64_t i = o["gradient_of"].as_int(-1);
      at::Tensor zeros;
      const bool checked = i >= 0 && o["checked"].as_bool(true);
      if (checked && std::find(gradient_of.begin(), gradient_of.end(), i) == gradient_of.end())
        zeros = at::zeros_like(c.forward_args.at(static_cast<size_t>(i)).toTensor());
      order.emplace_back(checked ? i : -1, zeros);
    }
    return [backward, inputs, gradient_of, order] {
      auto grads = backward->runner->run(inputs);
      std::vector<at::Tensor> out;
      for (const auto& [arg, zeros] : order) {
        auto at_arg = std::find(gradient_of.begin(), gradient_of.end(), arg);
        out.push_back(arg < 0 ? at::Tensor()
                      : at_arg != gradient_of.end()
                          ? grads.at(static_cast<size_t>(at_arg - gradient_of.begin()))
                          : zeros);
      }
      return out;
    };
  } catch (const std::exception& e) {
    why = "the compiled baseline failed: " + std::string(e.what()).substr(0, 300);
    return {};
  }
#else
  (void)config;
  (void)c;
  why = error_;
  return {};
#endif
}

}  // namespace kforge::worker
