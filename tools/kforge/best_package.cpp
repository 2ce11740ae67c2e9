#include "tools/kforge/best_package.hpp"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "common/numbers.hpp"
#include "evaluation/compiler.hpp"

namespace kforge::cli {
namespace {

namespace fs = std::filesystem;

std::string fmt(const char* f, double v) {
  return format_number(f, v);
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

std::string py_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

/// The first config of a direction in the export.
const json::Value& first_config(const json::Value& export_doc, const std::string& direction) {
  return export_doc["directions"][direction]["configs"][0];
}

/// The forward arguments' names (from the forward export, else from the backward's record of
/// the forward call), when every one is a Python identifier.
std::vector<std::string> forward_names(const json::Value& export_doc) {
  const auto& f = first_config(export_doc, "forward");
  const auto& args =
      f.contains("args") ? f["args"] : first_config(export_doc, "backward")["forward_args"];
  std::vector<std::string> names;
  for (const auto& a : args.as_array()) {
    if (!is_identifier(a["name"].as_string())) return {};
    names.push_back(a["name"].as_string());
  }
  return names;
}

/// How the autograd Function hands backward_fn its arguments, as Python expressions over
/// `grad_outputs` and `saved` (the forward's arguments, then its outputs); empty when an
/// argument is something only the task's own AutogradFunction computes (a value it derives or
/// keeps on ctx).
std::string tensor_expression(const json::Value& spec, size_t forward_count) {
  const std::string kind = spec["kind"].as_string();
  const int64_t i = spec["index"].as_int(-1);
  if (i < 0) return {};
  if (kind == "grad_output") return "grad_outputs[" + std::to_string(i) + "]";
  if (kind == "forward_arg") return "saved[" + std::to_string(i) + "]";
  if (kind == "forward_output") return "saved[" + std::to_string(forward_count + i) + "]";
  return {};
}

std::vector<std::string> backward_expressions(const json::Value& config, size_t forward_count) {
  std::vector<std::string> out;
  for (const auto& a : config["args"].as_array()) {
    if (a["kind"].as_string() == "tensor_list") {
      std::string list = "[";
      for (const auto& e : a["elements"].as_array()) {
        auto x = tensor_expression(e, forward_count);
        if (x.empty()) return {};
        list += (list.size() > 1 ? ", " : "") + x;
      }
      out.push_back(list + "]");
      continue;
    }
    auto x = tensor_expression(a, forward_count);
    if (x.empty()) return {};
    out.push_back(x);
  }
  return out;
}

/// A Python list literal of strings.
std::string py_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const auto& item : items) out += (out.size() > 1 ? ", " : "") + py_string(item);
  return out + "]";
}

/// The flags kforge compiled and timed the kernels with, for the package's two ways of building.
evaluation::CodegenFlags package_flags(const BestPackage& p) {
  return evaluation::codegen_flags(p.backend == "cuda" ? evaluation::Backend::cuda
                                                       : evaluation::Backend::cpu);
}

const std::optional<BestKernel>& kernel_of(const BestPackage& p, const std::string& direction) {
  return direction == "forward" ? p.forward : p.backward;
}

/// The nvcc flags of one direction's kernel: the codegen flags and those its build took beyond.
std::vector<std::string> nvcc_flags(const evaluation::CodegenFlags& flags, const BestPackage& p,
                                    const std::string& direction) {
  std::vector<std::string> out = flags.compile;
  if (const auto& k = kernel_of(p, direction))
    out.insert(out.end(), k->extra_cuda_flags.begin(), k->extra_cuda_flags.end());
  return out;
}

/// The entries of the package's _EXTRA_CUDA_CFLAGS: "direction": [flags], where there are any.
std::string extra_cuda_flags(const BestPackage& p) {
  std::string out;
  for (const char* d : {"forward", "backward"})
    if (const auto& k = kernel_of(p, d); k && !k->extra_cuda_flags.empty())
      out += (out.empty() ? "\"" : ", \"") + std::string(d) + "\": " + py_list(k->extra_cuda_flags);
  return out;
}

std::string extension(const std::string& backend) {
  return backend == "cuda" ? ".cu" : ".cpp";
}

std::string provenance(const BestPackage& p, const char* direction, const BestKernel& k) {
  int configs = 0;
  for (const auto& r : k.results.as_array()) configs += r["speedup"].is_number();
  return std::string(direction) + ": candidate " + std::to_string(k.candidate_id) + ", " +
         fmt("%.2fx", k.speedup) + " eager PyTorch (geometric mean over " +
         std::to_string(configs) + " configs, " + p.backend + ")";
}

std::string init_py(const BestPackage& p, const std::string& name) {
  const auto names = forward_names(p.export_doc);
  std::string params;
  for (const auto& n : names) params += (params.empty() ? "" : ", ") + n;
  const std::string signature = params.empty() ? "*args" : params;
  const std::string call = params.empty() ? "*args" : params;
  const auto flags = package_flags(p);
  const auto cpu = evaluation::codegen_flags(evaluation::Backend::cpu);
  const auto cuda = evaluation::codegen_flags(evaluation::Backend::cuda);
  std::string s = "\"\"\"The best kernels kforge found for the task " + p.task + " (experiment " +
                  std::to_string(p.experiment_id) + " of " + p.archive_path + ").\n\n";
  if (p.forward) s += provenance(p, "forward", *p.forward) + "\n";
  if (p.backward) s += provenance(p, "backward", *p.backward) + "\n";
  s += "\nREADME.md beside this file says how to use them.\n\"\"\"\n";
  s += R"(import importlib
import os

import torch
from torch.utils.cpp_extension import load as _load_extension

_HERE = os.path.dirname(os.path.abspath(__file__))
_NAME = )" +
       py_string(name) +
       R"(
# The flags kforge built and timed these kernels with (its compiler pool uses the same list):
# other flags give other code, and other times.
_CFLAGS = )" +
       py_list(cpu.compile) + R"(
_CUDA_CFLAGS = )" +
       py_list(cuda.compile) + R"(
_LDFLAGS = )" +
       py_list(flags.link) + R"(
# nvcc flags a direction's kernel was built and timed with beyond those: nvcc's device compiler
# crashed on it at the default optimisation.
_EXTRA_CUDA_CFLAGS = {)" +
       extra_cuda_flags(p) + R"(}
_SOURCES = {)";
  bool first = true;
  for (const char* d : {"forward", "backward"})
    if (kernel_of(p, d)) {
      s += std::string(first ? "" : ", ") + "\"" + d + "\": \"" + d + extension(p.backend) + "\"";
      first = false;
    }
  s += R"(}
_modules = {}


def module(direction):
    """The compiled extension of one direction: the one `python setup.py build_ext --inplace`
    built beside this file, else built now by torch.utils.cpp_extension (cached by PyTorch)."""
    if direction not in _modules:
        try:
            _modules[direction] = importlib.import_module(f".{_NAME}_{direction}", __name__)
        except ImportError:
            _modules[direction] = _load_extension(
                name=f"{_NAME}_{direction}",
                sources=[os.path.join(_HERE, _SOURCES[direction])],
                extra_cflags=_CFLAGS,
                extra_cuda_cflags=_CUDA_CFLAGS + _EXTRA_CUDA_CFLAGS.get(direction, []),
                extra_ldflags=_LDFLAGS,
            )
    return _modules[direction]
)";
  if (p.forward)
    s += "\n\ndef forward(" + signature +
         "):\n    \"\"\"The best forward kernel; the task's forward_fn arguments, in order.\"\"\"\n"
         "    return module(\"forward\").forward(" +
         call + ")\n";
  if (p.backward)
    s += "\n\ndef backward(*args):\n    \"\"\"The best backward kernel: what the task's "
         "AutogradFunction passes to backward_fn.\"\"\"\n    return "
         "module(\"backward\").backward(*args)\n";
  if (!p.backward) return s;

  const auto& bwd = first_config(p.export_doc, "backward");
  const size_t forward_count = bwd["forward_args"].as_array().size();
  const auto expressions = backward_expressions(bwd, forward_count);
  if (p.forward && !expressions.empty()) {
    std::string args;
    for (const auto& e : expressions) args += (args.empty() ? "" : ", ") + e;
    std::string gradient_of;
    for (const auto& o : bwd["outputs"].as_array())
      gradient_of +=
          (gradient_of.empty() ? "" : ", ") + std::to_string(o["gradient_of"].as_int(-1));
    s += R"(

# Where each result of the backward kernel goes: the index of the forward argument it is the
# gradient of (-1: none), as the task's AutogradFunction.backward places them.
_GRADIENT_OF = [)" +
         gradient_of + R"(]


class Function(torch.autograd.Function):
    """The best forward kernel, with autograd calling the best backward kernel on what the
    task's AutogradFunction would hand backward_fn."""

    @staticmethod
    def forward(ctx, *args):
        outputs = module("forward").forward(*args)
        outs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        ctx.save_for_backward(*[a if isinstance(a, torch.Tensor) else None for a in args], *outs)
        ctx.num_args = len(args)
        return outputs

    @staticmethod
    def backward(ctx, *grad_outputs):
        saved = ctx.saved_tensors
        grads = module("backward").backward()" +
         args + R"()
        if isinstance(grads, torch.Tensor):
            grads = [grads]
        result = [None] * ctx.num_args
        for grad, position in zip(grads, _GRADIENT_OF):
            if position >= 0:
                result[position] = grad
        return tuple(result)
)";
  } else {
    s += R"(

# The task's backward_fn receives values only its own AutogradFunction computes (saved
# statistics, values kept on ctx), or there is no forward kernel: autograd runs the task's
# AutogradFunction (task_backward.py, its forward in PyTorch) with the best backward kernel as
# its backward_fn.
from . import task_backward as _task


def _backward_kernel(*args):
    return module("backward").backward(*args)


_task.AutogradFunction.backward_fn = _backward_kernel
Function = _task.AutogradFunction
)";
  }
  s += "\n\napply = Function.apply\n";
  return s;
}

std::string setup_py(const BestPackage& p, const std::string& name) {
  const bool cuda = p.backend == "cuda";
  const auto flags = package_flags(p);
  std::string s =
      "# Builds the kernels ahead of time, beside __init__.py: python setup.py build_ext "
      "--inplace\n"
      "from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, " +
      std::string(cuda ? "CUDAExtension" : "CppExtension") +
      "\n\nsetup(\n    name=" + py_string(name) + ",\n    ext_modules=[\n";
  for (const char* d : {"forward", "backward"})
    if (kernel_of(p, d))
      s += std::string("        ") + (cuda ? "CUDAExtension" : "CppExtension") + "(" +
           py_string(name + "_" + d) + ", [" + py_string(d + extension(p.backend)) +
           "], extra_compile_args={\"cxx\": " +
           py_list(evaluation::codegen_flags(evaluation::Backend::cpu).compile) +
           (cuda ? ", \"nvcc\": " + py_list(nvcc_flags(flags, p, d)) : "") +
           "}, extra_link_args=" + py_list(flags.link) + "),\n";
  return s + "    ],\n    cmdclass={\"build_ext\": BuildExtension},\n)\n";
}

std::string readme(const BestPackage& p, const std::string& name) {
  std::string s = "# " + name + ": the best kernels kforge found for " + p.task + "\n\n";
  s += "From experiment " + std::to_string(p.experiment_id) + " in `" + p.archive_path +
       "` (task folder `" + p.task_dir + "`, backend " + p.backend + ").\n\n";
  for (const auto& [d, k] : {std::pair{"forward", p.forward}, std::pair{"backward", p.backward}})
    if (k && k->speedup < 1)
      s += std::string("**No ") + d + " kernel beat eager PyTorch here**: the fastest correct one "
           "runs at " + fmt("%.2fx", k->speedup) + " eager's speed. Keep eager PyTorch for the " +
           d + " direction; this kernel is packaged only to be read or improved.\n\n";
  s += "| direction | candidate | speedup over eager (geomean) | per config (kernel ms, eager ms, "
       "speedup) |\n|---|---|---|---|\n";
  for (const auto& [d, k] : {std::pair{"forward", p.forward}, std::pair{"backward", p.backward}}) {
    if (!k) continue;
    std::string configs;
    for (const auto& r : k->results.as_array())
      if (r["speedup"].is_number())
        configs += (configs.empty() ? "" : "; ") + r["name"].as_string() + ": " +
                   fmt("%.4f", r["kernel_ms"].as_number()) + ", " +
                   fmt("%.4f", r["eager_ms"].as_number()) + ", " +
                   fmt("%.2fx", r["speedup"].as_number());
    s += std::string("| ") + d + " | " + std::to_string(k->candidate_id) + " | " +
         fmt("%.2fx", k->speedup) + " | " + configs + " |\n";
  }
  s += std::string("\nThe times are kforge's medians on the machine that ran the experiment") +
       ((!p.forward || p.forward->confirmed) && (!p.backward || p.backward->confirmed)
            ? ", timed again once its search was over (confirmed)"
            : ", from its search (not timed again)") +
       "; `kforge show "
       "CANDIDATE --archive " +
       p.archive_path + "` prints a candidate's verdicts, profile and lineage.\n\n## Use\n\n";
  s += "Run it with a Python that has PyTorch" +
       (p.python.empty() ? std::string()
                         : " (kforge exported the task with `" + p.python + "`; its torch works)") +
       ":\n\n";
  s +=
      "```python\nimport sys; sys.path.insert(0, \"PARENT_OF_THIS_FOLDER\")\nimport " + name + "\n";
  if (p.forward)
    s += "y = " + name + ".forward(...)  # the task's forward_fn arguments, in order\n";
  if (p.backward)
    s += "y = " + name + ".apply(...)    # autograd: gradients through the backward kernel\n";
  s += "```\n\nThe first call of each direction builds its kernel with "
       "`torch.utils.cpp_extension.load` (a C++ compiler" +
       std::string(p.backend == "cuda" ? " and nvcc" : "") +
       " and ninja are needed): it takes " +
       (p.backend == "cuda" ? "about a minute" : "20-40 s") +
       " with PyTorch's headers, and PyTorch keeps the result, so later runs start at once. "
       "`python setup.py build_ext --inplace` in this folder builds them ahead of time instead. "
       "Both build with the flags kforge compiled and timed the kernels with (`" +
       [&] {
         std::string joined;
         for (const auto& f : package_flags(p).compile) joined += (joined.empty() ? "" : " ") + f;
         return joined;
       }() +
       "`); other flags give other code and other times" +
       (p.backend == "cpu" ? ", and `-march=native` builds for the processor it is built on"
                           : std::string()) +
       ".\n";
  if (p.backward)
    s += "\n`Function` runs the forward kernel and has autograd call the backward kernel with "
         "what the task's `AutogradFunction.backward` would pass to `backward_fn`, when that is "
         "only the forward's arguments, outputs and output gradients. When the task's backward "
         "needs values its own forward computes (saved statistics), or there is no forward "
         "kernel, `Function` is the task's `AutogradFunction` (copied as `task_backward.py`, "
         "its forward in PyTorch) with the backward kernel as its `backward_fn`.\n";
  return s;
}

}  // namespace

std::string package_name(const std::string& out_dir) {
  std::string base = fs::path(out_dir).lexically_normal().filename().string();
  if (base.empty()) base = fs::path(out_dir).lexically_normal().parent_path().filename().string();
  return is_identifier(base) ? base : "kforge_best";
}

Result<std::vector<std::string>> write_best_package(const BestPackage& p,
                                                    const std::string& out_dir) {
  using Written = Result<std::vector<std::string>>;
  if (!p.forward && !p.backward) return Written::failure("no kernel to write");
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) return Written::failure("cannot create " + out_dir + ": " + ec.message());
  const std::string name = package_name(out_dir);
  std::vector<std::pair<std::string, std::string>> files;
  if (p.forward) files.emplace_back("forward" + extension(p.backend), p.forward->source);
  if (p.backward) files.emplace_back("backward" + extension(p.backend), p.backward->source);
  files.emplace_back("__init__.py", init_py(p, name));
  files.emplace_back("setup.py", setup_py(p, name));
  files.emplace_back("README.md", readme(p, name));
  json::Value meta;
  meta.set("task", p.task).set("task_dir", p.task_dir).set("backend", p.backend);
  meta.set("archive", p.archive_path).set("experiment", p.experiment_id);
  for (const auto& [d, k] : {std::pair{"forward", p.forward}, std::pair{"backward", p.backward}}) {
    if (!k) continue;
    json::Value x;
    x.set("candidate", k->candidate_id).set("speedup", k->speedup).set("strategy", k->strategy);
    x.set("confirmed", k->confirmed);
    x.set("results", k->results);
    meta.set(d, x);
  }
  files.emplace_back("kforge.json", meta.dump() + "\n");
  if (p.backward) {
    std::ifstream in(fs::path(p.task_dir) / "func_backward.py", std::ios::binary);
    if (!in) return Written::failure("cannot read " + p.task_dir + "/func_backward.py");
    files.emplace_back("task_backward.py", std::string(std::istreambuf_iterator<char>(in), {}));
  }
  std::vector<std::string> written;
  for (const auto& [file, text] : files) {
    const auto path = (fs::path(out_dir) / file).string();
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush()) return Written::failure("cannot write " + path);
    written.push_back(path);
  }
  return {written, {}};
}

}  // namespace kforge::cli
