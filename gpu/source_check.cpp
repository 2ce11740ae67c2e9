#include "gpu/source_check.hpp"

#include <regex>
#include <set>

namespace kforge::gpu {
namespace {

// torch:: and at:: functions that allocate or describe tensors rather than compute.
const std::set<std::string>& allowed_namespace_calls() {
  static const std::set<std::string> names = {
      "empty",
      "empty_like",
      "empty_strided",
      "zeros",
      "zeros_like",
      "ones",
      "ones_like",
      "full",
      "full_like",
      "from_blob",
      "TensorOptions",
      "Tensor",
      "device",
      "dtype",
      "Device",
      "Scalar",
      "ScalarType",
      "IntArrayRef",
      "optional",
      "make_optional",
      "scalar_tensor",
      "tensor",
      "arange",
      "getCurrentCUDAStream",
      "getDefaultCUDAStream",
      "getCurrentDeviceProperties",
      "OptionalCUDAGuard",
      "CUDAGuard",
      "DeviceGuard",
      "NoGradGuard",
      "elementSize",
      "toString",
      "numel",
      "size",
      "kFloat32",
      "kFloat",
      "kHalf",
      "kBFloat16",
      "kInt64",
      "kLong",
      "kInt32",
      "kInt",
      "kBool",
      "kCUDA",
      "kCPU",
      "globalContext",
      "in_parallel_region",
      "get_num_threads",
      "parallel_for",
  };
  return names;
}

int line_of(std::string_view text, size_t offset) {
  int line = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) line += text[i] == '\n';
  return line;
}

}  // namespace

std::string strip_comments(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 2, "//") == 0) {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (s.compare(i, 2, "/*") == 0) {
      size_t end = s.find("*/", i + 2);
      size_t stop = end == std::string_view::npos ? s.size() : end + 2;
      for (; i < stop; ++i) out += s[i] == '\n' ? '\n' : ' ';  // keep line numbers
    } else if (s[i] == '"' || s[i] == '\'') {
      char quote = s[i];
      out += s[i++];
      while (i < s.size() && s[i] != quote && s[i] != '\n') {
        if (s[i] == '\\' && i + 1 < s.size()) out += s[i++];
        out += s[i++];
      }
      if (i < s.size()) out += s[i++];
    } else {
      out += s[i++];
    }
  }
  return out;
}

std::vector<std::string> registered_functions(std::string_view source) {
  std::string text = strip_comments(source);
  static const std::regex def(R"(\.\s*def\s*\(\s*"([A-Za-z_]\w*)\")");
  std::vector<std::string> names;
  for (std::sregex_iterator it(text.begin(), text.end(), def), end; it != end; ++it)
    names.push_back((*it)[1]);
  return names;
}

std::vector<std::string> library_calls(std::string_view source) {
  std::string text = strip_comments(source);
  std::vector<std::string> found;
  static const std::regex ns_call(
      R"(\b(torch|at)\s*::\s*(?:nn\s*::\s*functional\s*::\s*)?([A-Za-z_]\w*)\s*\()");
  for (std::sregex_iterator it(text.begin(), text.end(), ns_call), end; it != end; ++it) {
    std::string name = (*it)[2];
    if (!allowed_namespace_calls().count(name))
      found.push_back("line " + std::to_string(line_of(text, it->position())) + ": " +
                      std::string((*it)[1]) + "::" + name);
  }
  static const std::regex method(
      R"(\.\s*(matmul|mm|bmm|addmm|baddbmm|einsum|softmax|log_softmax|layer_norm|linear|relu|gelu|sigmoid|tanh|sum|mean|var|std|norm|exp|log|logsumexp|max|amax|min|amin|conv1d|conv2d|cross_entropy|nll_loss|one_hot)\s*\()");
  for (std::sregex_iterator it(text.begin(), text.end(), method), end; it != end; ++it)
    found.push_back("line " + std::to_string(line_of(text, it->position())) + ": tensor method ." +
                    std::string((*it)[1]) + "()");
  static const std::regex vendor(R"(\b(cublas\w*|cublasLt\w*|cudnn\w*)\b)");
  std::set<std::string> seen;
  for (std::sregex_iterator it(text.begin(), text.end(), vendor), end; it != end; ++it) {
    std::string name = (*it)[1];
    if (seen.insert(name).second)
      found.push_back("line " + std::to_string(line_of(text, it->position())) + ": " + name);
  }
  return found;
}

}  // namespace kforge::gpu
