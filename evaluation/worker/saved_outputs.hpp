// The candidate's outputs as the worker saves them for the checker: a small header (dtype and
// shape of each tensor) and the raw bytes, written and read at the speed of the disk's cache
// (torch::save's zip archive with checksums cost about 2 s per GiB on the H100 host). GPU tensors
// go through page-locked host memory (LibTorch's caching host allocator, reused from one save to
// the next): copied to fresh pageable memory, robust-kbench's resnet_block spent 26 s of a 104 s
// evaluation saving and 20 s in the checker loading. The file lives where the candidate could
// write too, so reading checks every field against the file.
#pragma once

#include <ATen/ATen.h>

#include <optional>
#include <string>
#include <vector>

#include "common/result.hpp"

namespace kforge::worker {

/// Writes the tensors (copied to the host, contiguous) to `path`; throws on an I/O error.
void save_outputs(const std::vector<at::Tensor>& tensors, const std::string& path);

/// Reads what save_outputs wrote, or says how the file is missing or malformed; `pinned`: into
/// page-locked memory, for a copy to the GPU.
Result<std::vector<at::Tensor>> load_outputs(const std::string& path, bool pinned = false);

}  // namespace kforge::worker
