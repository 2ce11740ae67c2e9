#include "evaluation/worker/candidate_library.hpp"

#include <dlfcn.h>
#include <link.h>

#include <map>
#include <memory>

#include "evaluation/worker/light_api.hpp"

namespace kforge::worker {
namespace {

// Functions whose replacement would let a candidate fake its time or its synchronisation.
constexpr const char* kGuarded[] = {
    "clock_gettime",
    "gettimeofday",
    "clock",
    "time",
    "malloc",
    "free",
    "memcpy",
    "memset",
    "cudaEventRecord",
    "cudaEventElapsedTime",
    "cudaEventSynchronize",
    "cudaDeviceSynchronize",
    "cudaStreamSynchronize",
    "cudaMemcpy",
    "cudaMemcpyAsync",
    "cudaGetLastError",
    "cudaMalloc",
    "cudaFree",
    "cudaLaunchKernel",
    "dlsym",
    "dlopen",
};

std::map<std::string, void*>& bound() {
  static std::map<std::string, void*> addresses;
  return addresses;
}

}  // namespace

void record_guarded_symbols() {
  for (const char* name : kGuarded) bound()[name] = ::dlsym(RTLD_DEFAULT, name);
}

Result<std::unique_ptr<CandidateLibrary>> CandidateLibrary::load(const std::string& path) {
  using Loaded = Result<std::unique_ptr<CandidateLibrary>>;
  if (bound().empty()) record_guarded_symbols();
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* e = ::dlerror();
    return Loaded::failure(std::string("cannot load the compiled candidate: ") +
                           (e ? e : "unknown dlopen error"));
  }
  auto lib = std::unique_ptr<CandidateLibrary>(new CandidateLibrary);
  lib->handle_ = handle;
  // A guarded name that resolves inside the candidate's own object is a definition of its own.
  link_map* map = nullptr;
  ::dlinfo(handle, RTLD_DI_LINKMAP, &map);
  for (const char* name : kGuarded) {
    void* own = ::dlsym(handle, name);
    Dl_info info{};
    if (own && ::dladdr(own, &info) && map &&
        info.dli_fbase == reinterpret_cast<void*>(map->l_addr))
      lib->interposed_.push_back(std::string(name) + " (defined by the candidate)");
    if (::dlsym(RTLD_DEFAULT, name) != bound()[name])
      lib->interposed_.push_back(std::string(name) + " (rebound for the worker)");
  }
  // Built with kforge's light headers: its functions reach LibTorch through the worker.
  if (auto light =
          reinterpret_cast<kforge_light_entry_fn>(::dlsym(handle, KFORGE_LIGHT_ENTRY_SYMBOL))) {
    const kforge_light_module* m = light(&light_api());
    if (!m || m->abi_version != KFORGE_LIGHT_ABI_VERSION) {
      return Loaded::failure(
          "the candidate was compiled against another version of kforge's light headers");
    }
    lib->light_module_.functions = adapt_light_module(*m);
    lib->module_ = &lib->light_module_;
    lib->light_ = true;
    return {std::move(lib), {}};
  }
  auto entry =
      reinterpret_cast<kforge_extension_module_fn>(::dlsym(handle, KFORGE_EXTENSION_SYMBOL));
  if (!entry) {
    return Loaded::failure(
        "the candidate registers no module: it needs PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { "
        "m.def(\"forward\", &forward); }");
  }
  lib->module_ = entry();
  if (!lib->module_ || lib->module_->abi_version != ext::kAbiVersion) {
    return Loaded::failure("the candidate was compiled against another kforge extension ABI");
  }
  return {std::move(lib), {}};
}

CandidateLibrary::~CandidateLibrary() {
  // The object stays mapped: CUDA kernels and static destructors of a candidate may still be
  // referenced by caches (allocator blocks, registered fat binaries). Workers are recycled instead.
}

const ext::Function* CandidateLibrary::find(const std::string& name) const {
  for (const auto& f : module_->functions)
    if (f.name == name) return &f;
  return nullptr;
}

std::vector<std::string> CandidateLibrary::function_names() const {
  std::vector<std::string> names;
  for (const auto& f : module_->functions) names.push_back(f.name);
  return names;
}

}  // namespace kforge::worker
