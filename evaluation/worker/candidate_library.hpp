// Loading a compiled candidate (RTLD_LOCAL, symbols of the worker bound beforehand), finding its
// registered functions (through LibTorch's registry or kforge's light headers), and checking that
// it neither defines nor rebinds the functions the worker times and synchronises with.
#pragma once

#include <string>
#include <vector>

#include "common/result.hpp"
#include "kforge/extension_registry.h"

namespace kforge::worker {

class CandidateLibrary {
 public:
  /// Loads the shared object; `error` says why not (missing registry, dlopen message, ABI).
  static Result<std::unique_ptr<CandidateLibrary>> load(const std::string& path);
  ~CandidateLibrary();

  const ext::Function* find(const std::string& name) const;
  std::vector<std::string> function_names() const;
  /// Names of timing, synchronisation and allocation functions the candidate defines or rebinds.
  const std::vector<std::string>& interposed() const { return interposed_; }
  /// Built with kforge's light headers (its LibTorch calls go through the worker's light_api).
  bool light() const { return light_; }

 private:
  void* handle_ = nullptr;
  ext::Module* module_ = nullptr;
  ext::Module light_module_;  ///< a light candidate's functions, adapted
  bool light_ = false;
  std::vector<std::string> interposed_;
};

/// Records the addresses the worker resolves for the guarded functions (call before any load).
void record_guarded_symbols();

}  // namespace kforge::worker
