#include "evaluation/worker/saved_outputs.hpp"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>

namespace kforge::worker {
namespace {

constexpr char kMagic[8] = {'k', 'f', 'o', 'u', 't', '0', '1', '\n'};
constexpr uint32_t kMaxTensors = 4096, kMaxDims = 16;

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

template <typename T>
bool read_value(std::FILE* f, T& value) {
  return std::fread(&value, sizeof value, 1, f) == 1;
}

}  // namespace

void save_outputs(const std::vector<at::Tensor>& tensors, const std::string& path) {
  File f(std::fopen(path.c_str(), "wb"));
  if (!f) throw std::runtime_error("cannot create " + path);
  auto put = [&](const void* data, size_t size) {
    if (size && std::fwrite(data, 1, size, f.get()) != size)
      throw std::runtime_error("cannot write " + path);
  };
  put(kMagic, sizeof kMagic);
  const auto count = static_cast<uint32_t>(tensors.size());
  put(&count, sizeof count);
  for (const auto& t : tensors) {
    at::Tensor host;
    if (t.defined() && t.device().is_cpu()) {
      host = t.detach().contiguous();
    } else if (t.defined()) {
      host = at::empty(t.sizes(), t.options().device(at::kCPU).pinned_memory(true));
      host.copy_(t.detach());
    }
    const int32_t dtype = host.defined() ? static_cast<int32_t>(host.scalar_type()) : -1;
    const auto ndim = static_cast<uint32_t>(host.defined() ? host.dim() : 0);
    put(&dtype, sizeof dtype);
    put(&ndim, sizeof ndim);
    for (uint32_t d = 0; d < ndim; ++d) {
      const int64_t size = host.size(d);
      put(&size, sizeof size);
    }
    const uint64_t nbytes = host.defined() ? host.nbytes() : 0;
    put(&nbytes, sizeof nbytes);
    if (nbytes) put(host.data_ptr(), nbytes);
  }
  if (std::fflush(f.get()) != 0) throw std::runtime_error("cannot write " + path);
}

namespace {

Result<std::vector<at::Tensor>> read_outputs(const std::string& path, bool pinned) {
  using Read = Result<std::vector<at::Tensor>>;
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) {
    return Read::failure("no file");
  }
  std::fseek(f.get(), 0, SEEK_END);
  const long file_size = std::ftell(f.get());
  std::fseek(f.get(), 0, SEEK_SET);
  char magic[sizeof kMagic];
  uint32_t count = 0;
  if (std::fread(magic, 1, sizeof magic, f.get()) != sizeof magic ||
      !std::equal(magic, magic + sizeof magic, kMagic) || !read_value(f.get(), count) ||
      count > kMaxTensors) {
    return Read::failure("not a file of saved outputs");
  }
  std::vector<at::Tensor> out;
  uint64_t total = 0;
  for (uint32_t i = 0; i < count; ++i) {
    int32_t dtype = 0;
    uint32_t ndim = 0;
    if (!read_value(f.get(), dtype) || !read_value(f.get(), ndim) || ndim > kMaxDims) {
      return Read::failure("output " + std::to_string(i) + ": malformed header");
    }
    std::vector<int64_t> sizes(ndim);
    for (auto& s : sizes)
      if (!read_value(f.get(), s) || s < 0) {
        return Read::failure("output " + std::to_string(i) + ": malformed shape");
      }
    uint64_t nbytes = 0;
    if (!read_value(f.get(), nbytes)) {
      return Read::failure("output " + std::to_string(i) + ": malformed header");
    }
    if (dtype == -1) {
      out.emplace_back();
      continue;
    }
    if (dtype < 0 || dtype >= static_cast<int32_t>(c10::ScalarType::NumOptions) ||
        dtype == static_cast<int32_t>(c10::ScalarType::Undefined)) {
      return Read::failure("output " + std::to_string(i) + ": unknown dtype");
    }
    // The shape must account for the bytes exactly, and the bytes must be in the file, before
    // anything is allocated: a file the candidate wrote cannot make the checker allocate more.
    const auto type = static_cast<c10::ScalarType>(dtype);
    uint64_t numel = 1;
    bool overflow = false;
    for (int64_t s : sizes) overflow = overflow || __builtin_mul_overflow(numel, s, &numel);
    uint64_t expected = 0;
    if (overflow || __builtin_mul_overflow(numel, c10::elementSize(type), &expected) ||
        expected != nbytes) {
      return Read::failure("output " + std::to_string(i) + ": its bytes do not match its shape");
    }
    total += nbytes;
    if (total > static_cast<uint64_t>(file_size)) {
      return Read::failure("output " + std::to_string(i) +
                           ": more bytes announced than the file holds");
    }
    at::Tensor t;
    try {
      t = at::empty(sizes, at::TensorOptions().dtype(type).pinned_memory(pinned));
    } catch (const std::exception&) {
      return Read::failure("output " + std::to_string(i) + ": a shape or dtype no tensor has");
    }
    if (t.nbytes() != nbytes ||
        (nbytes && std::fread(t.data_ptr(), 1, nbytes, f.get()) != nbytes)) {
      return Read::failure("output " + std::to_string(i) + ": its bytes do not match its shape");
    }
    out.push_back(std::move(t));
  }
  return {std::move(out), {}};
}

}  // namespace

Result<std::vector<at::Tensor>> load_outputs(const std::string& path, bool pinned) {
  try {
    return read_outputs(path, pinned);
  } catch (const std::exception& e) {  // a dtype the file names that LibTorch cannot size, ...
    return Result<std::vector<at::Tensor>>::failure(std::string("malformed: ") + e.what());
  }
}

}  // namespace kforge::worker
