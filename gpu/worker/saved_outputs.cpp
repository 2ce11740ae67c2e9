#include "gpu/worker/saved_outputs.hpp"

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
    at::Tensor host = t.defined() ? t.detach().to(at::kCPU).contiguous() : at::Tensor();
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

std::optional<std::vector<at::Tensor>> read_outputs(const std::string& path, std::string& error) {
  File f(std::fopen(path.c_str(), "rb"));
  if (!f) {
    error = "no file";
    return std::nullopt;
  }
  std::fseek(f.get(), 0, SEEK_END);
  const long file_size = std::ftell(f.get());
  std::fseek(f.get(), 0, SEEK_SET);
  char magic[sizeof kMagic];
  uint32_t count = 0;
  if (std::fread(magic, 1, sizeof magic, f.get()) != sizeof magic ||
      !std::equal(magic, magic + sizeof magic, kMagic) || !read_value(f.get(), count) ||
      count > kMaxTensors) {
    error = "not a file of saved outputs";
    return std::nullopt;
  }
  std::vector<at::Tensor> out;
  uint64_t total = 0;
  for (uint32_t i = 0; i < count; ++i) {
    int32_t dtype = 0;
    uint32_t ndim = 0;
    if (!read_value(f.get(), dtype) || !read_value(f.get(), ndim) || ndim > kMaxDims) {
      error = "output " + std::to_string(i) + ": malformed header";
      return std::nullopt;
    }
    std::vector<int64_t> sizes(ndim);
    for (auto& s : sizes)
      if (!read_value(f.get(), s) || s < 0) {
        error = "output " + std::to_string(i) + ": malformed shape";
        return std::nullopt;
      }
    uint64_t nbytes = 0;
    if (!read_value(f.get(), nbytes)) {
      error = "output " + std::to_string(i) + ": malformed header";
      return std::nullopt;
    }
    if (dtype == -1) {
      out.emplace_back();
      continue;
    }
    if (dtype < 0 || dtype >= static_cast<int32_t>(c10::ScalarType::NumOptions) ||
        dtype == static_cast<int32_t>(c10::ScalarType::Undefined)) {
      error = "output " + std::to_string(i) + ": unknown dtype";
      return std::nullopt;
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
      error = "output " + std::to_string(i) + ": its bytes do not match its shape";
      return std::nullopt;
    }
    total += nbytes;
    if (total > static_cast<uint64_t>(file_size)) {
      error = "output " + std::to_string(i) + ": more bytes announced than the file holds";
      return std::nullopt;
    }
    at::Tensor t;
    try {
      t = at::empty(sizes, at::TensorOptions().dtype(type));
    } catch (const std::exception&) {
      error = "output " + std::to_string(i) + ": a shape or dtype no tensor has";
      return std::nullopt;
    }
    if (t.nbytes() != nbytes ||
        (nbytes && std::fread(t.data_ptr(), 1, nbytes, f.get()) != nbytes)) {
      error = "output " + std::to_string(i) + ": its bytes do not match its shape";
      return std::nullopt;
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

std::optional<std::vector<at::Tensor>> load_outputs(const std::string& path, std::string& error) {
  try {
    return read_outputs(path, error);
  } catch (const std::exception& e) {  // a dtype the file names that LibTorch cannot size, ...
    error = std::string("malformed: ") + e.what();
    return std::nullopt;
  }
}

}  // namespace kforge::worker
