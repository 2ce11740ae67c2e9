// The candidate's outputs as the worker saves them for the checker: a small header (dtype and
// shape of each tensor) and the raw bytes, written and read at the speed of the disk's cache
// (torch::save's zip archive with checksums cost about 2 s per GiB on the H100 host). The file
// lives where the candidate could write too, so reading checks every field against the file.
#pragma once

#include <ATen/ATen.h>

#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace kforge::worker {

/// Writes the tensors (copied to the host, contiguous) to `path`; throws on an I/O error.
void save_outputs(const std::vector<at::Tensor>& tensors, const std::string& path);

/// Reads what save_outputs wrote, or says how the file is missing or malformed.
Result<std::vector<at::Tensor>> load_outputs(const std::string& path);

}  // namespace kforge::worker
