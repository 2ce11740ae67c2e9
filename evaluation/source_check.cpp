#include "evaluation/source_check.hpp"

#include "common/task_document.hpp"
#include "common/task_signature.hpp"
#include "evaluation/library_policy.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

namespace kforge::evaluation {
namespace {

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
    if (!is_allowed_namespace_call(name))
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

namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\n\r"), e = s.find_last_not_of(" \t\n\r");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// The registry's word for a C++ parameter declaration ("const torch::Tensor& x" -> "Tensor").
std::string registry_type(const std::string& declaration) {
  std::string d = declaration;
  auto has = [&](const char* w) { return d.find(w) != std::string::npos; };
  if (has("optional") && has("Tensor")) return "Tensor?";
  if (has("TensorList") || (has("Tensor") && (has("vector") || has("ArrayRef"))) ||
      has("py::tuple") || has("py::list") || has("py::object") || has("pybind11::tuple") ||
      has("pybind11::list") || has("pybind11::object"))
    return "Tensor[]";
  if (has("Tensor")) return "Tensor";
  if (has("vector") || has("IntArrayRef") || has("ArrayRef")) return "int[]";
  if (has("double") || has("float")) return "float";
  if (has("bool")) return "bool";
  if (has("int") || has("long") || has("size_t")) return "int";
  return "?";
}

// Splits at commas outside (), <>, [] and {}.
std::vector<std::string> split_top_level(const std::string& s) {
  std::vector<std::string> parts;
  int depth = 0;
  std::string current;
  for (char c : s) {
    if (c == '(' || c == '<' || c == '[' || c == '{') ++depth;
    if (c == ')' || c == '>' || c == ']' || c == '}') --depth;
    if (c == ',' && depth == 0) {
      parts.push_back(trim(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!trim(current).empty()) parts.push_back(trim(current));
  return parts;
}

}  // namespace

std::optional<std::vector<std::string>> registered_parameter_types(std::string_view source,
                                                                   const std::string& name) {
  std::string text = strip_comments(source);
  // m.def("forward", &forward_impl ...) or m.def("forward", forward_impl ...)
  std::regex reg("\\.\\s*def\\s*\\(\\s*\"" + name + "\"\\s*,\\s*&?\\s*([A-Za-z_][\\w:]*)\\s*[,)]");
  std::smatch m;
  if (!std::regex_search(text, m, reg)) return std::nullopt;
  std::string function = m[1];
  if (auto colons = function.rfind("::"); colons != std::string::npos)
    function = function.substr(colons + 2);
  std::regex use("\\b" + function + "\\s*\\(");
  for (std::sregex_iterator it(text.begin(), text.end(), use), end; it != end; ++it) {
    size_t open = static_cast<size_t>(it->position() + it->length()) - 1;
    int depth = 0;
    size_t close = open;
    for (; close < text.size(); ++close) {
      depth += text[close] == '(';
      depth -= text[close] == ')';
      if (depth == 0) break;
    }
    if (close >= text.size()) break;
    size_t after = text.find_first_not_of(" \t\n\r", close + 1);
    if (after == std::string::npos) break;
    // A definition: the parameter list is followed by a body (or a trailing return type).
    bool definition = text[after] == '{' || text.compare(after, 2, "->") == 0 ||
                      text.compare(after, 8, "noexcept") == 0;
    if (!definition) continue;
    std::vector<std::string> types;
    for (const auto& p : split_top_level(text.substr(open + 1, close - open - 1)))
      if (p != "void") types.push_back(registry_type(p));
    return types;
  }
  return std::nullopt;
}

std::vector<std::string> forbidden_constructs(std::string_view source) {
  struct Rule {
    std::regex pattern;
    const char* what;
  };
  static const std::vector<Rule> rules = [] {
    std::vector<Rule> r;
    auto add = [&](const char* re, const char* what) { r.push_back({std::regex(re), what}); };
    add(R"(\b(fork|vfork|execl|execlp|execle|execv|execvp|execve|system|popen|posix_spawn\w*)\s*\()",
        "starts a process");
    add(R"(\bstd\s*::\s*(thread|jthread|async)\b|\bpthread_create\b|#\s*include\s*<(thread|future)>)",
        "starts a thread that could outlive the call");
    add(R"(\b(socket|socketpair|accept|bind|listen)\s*\(|#\s*include\s*<(sys/socket\.h|netinet/\w+\.h|arpa/inet\.h|netdb\.h)>)",
        "uses the network");
    add(R"(\b(dlopen|dlsym|dlmopen)\b)", "loads code at run time");
    add(R"((^|[^\w.>])(::\s*)?(write|pwrite|writev|dup|dup2|dup3|fdopen|ioctl|mmap|mprotect)\s*\()",
        "works on raw file descriptors or memory mappings");
    add(R"(/proc/|/dev/)", "reads system files");
    add(R"(\b(setenv|putenv|unsetenv)\s*\()", "changes the environment");
    add(R"((^|[^\w.>])(std\s*::\s*)?(exit|_exit|_Exit|quick_exit|abort)\s*\()", "ends the process");
    add(R"(\b(cudaDeviceReset|cudaSetDevice|cudaDeviceSetLimit|cudaProfilerStart|cudaProfilerStop)\b)",
        "changes the device for everyone");
    add(R"(\b(signal|sigaction|raise|kill|ptrace|syscall)\s*\()", "sends signals or system calls");
    return r;
  }();
  std::string text = strip_comments(source);
  std::vector<std::string> found;
  for (const auto& rule : rules) {
    for (std::sregex_iterator it(text.begin(), text.end(), rule.pattern), end; it != end; ++it) {
      std::string match = trim((*it)[0]);
      while (!match.empty() && !std::isalnum(static_cast<unsigned char>(match.front())) &&
             match.front() != '#' && match.front() != '/' && match.front() != ':')
        match.erase(0, 1);
      found.push_back("line " + std::to_string(line_of(text, it->position())) + ": " + match +
                      " (" + rule.what + ")");
      break;  // one finding per rule is enough to reject
    }
  }
  return found;
}

SourceVerdict check_source(std::string_view source, const std::string& function,
                           const TaskParameters& expected, LibraryPolicy library_policy,
                           size_t max_bytes) {
  SourceVerdict v;
  auto reject = [&](const char* kind, std::string reason) {
    v.accepted = false;
    v.kind = kind;
    v.reason = std::move(reason);
    return v;
  };
  if (source.size() > max_bytes)
    return reject("too_large", "the source has " + std::to_string(source.size()) +
                                   " bytes; the experiment allows " + std::to_string(max_bytes));
  auto names = registered_functions(source);
  if (std::find(names.begin(), names.end(), function) == names.end()) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    return reject("missing_function", "the source registers no `" + function +
                                          "` with m.def (it registers " +
                                          (list.empty() ? std::string("nothing") : list) + ")");
  }
  auto join = [](const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
    return out;
  };
  if (auto types = registered_parameter_types(source, function)) {
    bool ok = types->size() == expected.types.size();
    for (size_t i = 0; ok && i < types->size(); ++i) {
      const auto& got = (*types)[i];
      const auto& want = expected.types[i];
      ok = got == "?" || tasks::parameter_accepts(got, want);
    }
    if (!ok)
      return reject("signature_mismatch",
                    "`" + function + "` takes (" + join(*types) + ") but the task passes (" +
                        (expected.described.empty() ? join(expected.types) : expected.described) +
                        ")");
  } else {
    v.notes.push_back("the parameters of `" + function +
                      "` could not be read statically; the worker checks them");
  }
  if (auto found = forbidden_constructs(source); !found.empty())
    return reject("forbidden_construct", "the source " + join(found));
  auto calls = library_calls(source);
  if (!calls.empty() && library_policy == LibraryPolicy::forbid)
    return reject("library_call",
                  "the experiment forbids library calls, and the source has " + join(calls));
  if (!calls.empty() && library_policy == LibraryPolicy::flag)
    for (const auto& c : calls) v.notes.push_back("library call: " + c);
  v.accepted = true;
  return v;
}

Result<TaskParameters> task_parameters(const std::string& export_dir,
                                       const std::string& direction) {
  auto doc = tasks::read_task_document(export_dir);
  if (!doc) return Result<TaskParameters>::failure(doc.error);
  auto configs = tasks::direction_configs(**doc, direction);
  if (!configs) return Result<TaskParameters>::failure(configs.error);
  const auto& config = configs->front();
  return {TaskParameters{tasks::parameter_types(config), tasks::describe_parameters(config)}, {}};
}

}  // namespace kforge::evaluation
