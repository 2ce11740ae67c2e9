#include "evaluation/worker/worker_confinement.hpp"

#include <dlfcn.h>

#include <cstring>
#include <filesystem>

#include "evaluation/build_config.hpp"
#include "evaluation/confinement.hpp"
#include "evaluation/worker/checks.hpp"

namespace kforge::worker {
namespace {

// LibTorch inside a Python installation loads CUDA libraries from the wheels beside it
// (site-packages/nvidia/*/lib) only when first used.
std::vector<std::string> python_wheel_library_roots() {
  std::filesystem::path torch_lib = build::torch_library_dir;
  if (torch_lib.filename() != "lib" || torch_lib.parent_path().filename() != "torch") return {};
  auto nvidia = torch_lib.parent_path().parent_path() / "nvidia";
  return {nvidia.string()};
}

}  // namespace

std::string confine_worker(const ConfinementRequest& request, std::string& description) {
  if (size_t n = thread_ids().size(); n != 1)
    return "the worker already runs " + std::to_string(n) +
           " threads before it confines itself; confinement would miss all but one";
  int abi = evaluation::landlock_abi();
  if (abi == 0) return "this kernel offers no Landlock";
  // The driver library is loaded now, while its folder can still be found; CUDA's runtime would
  // otherwise open it by name only after confinement.
  if (request.cuda) ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);

  evaluation::FilesystemView view;
  view.read_only = evaluation::mapped_library_dirs();
  for (const char* dir : {build::torch_library_dir, build::cuda_library_dir})
    if (*dir) view.read_only.push_back(dir);
  for (const auto& dir : python_wheel_library_roots()) view.read_only.push_back(dir);
  for (const char* path : {"/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
                           "/etc/localtime", "/sys", "/proc/cpuinfo", "/proc/meminfo", "/proc/stat",
                           "/proc/sys", "/proc/devices", "/proc/driver/nvidia"})
    view.read_only.push_back(path);
  std::error_code ec;
  view.read_only.push_back(std::filesystem::read_symlink("/proc/self/exe", ec).string());
  for (const auto& dir : request.readable) view.read_only.push_back(dir);
  view.read_write.push_back(request.scratch);
  for (const auto& dir : request.writable) view.read_write.push_back(dir);
  // The CUDA driver writes to the process's own /proc entries: without this cuInit fails with
  // CUDA_ERROR_OPERATING_SYSTEM (measured on the H100 host). They concern this process only.
  view.read_write.push_back("/proc/self");
  view.devices = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"};
  if (request.cuda) {
    for (auto it = std::filesystem::directory_iterator("/dev", ec);
         !ec && it != std::filesystem::directory_iterator(); it.increment(ec))
      if (it->path().filename().string().rfind("nvidia", 0) == 0)
        view.devices.push_back(it->path().string());
  }
  evaluation::PreparedView prepared(view, abi);
  description = prepared.describe();
  if (int e = prepared.apply(); e != 0)
    return std::string("Landlock refused the rules: ") + std::strerror(e);
  if (int e = evaluation::drop_capabilities(); e != 0)
    return std::string("cannot drop capabilities: ") + std::strerror(e);
  return {};
}

}  // namespace kforge::worker
