#include "generator/host_table.hpp"

#include <cctype>
#include <climits>
#include <optional>
#include <string_view>
#include <utility>

namespace kforge::generator {
namespace {

/// A step that only launches a kernel on buffers, as the emitters write it:
/// `  k3<<<1280, 256, 0, stream>>>(b24, (b25 + 768));` (CUDA) or `  k3(b24, (b25 + 768));` (CPU).
struct Launch {
  std::string kernel;
  int64_t grid = -1, threads = -1;                ///< -1: a CPU function's call
  std::vector<std::pair<int64_t, int64_t>> args;  ///< each buffer's id, the elements it is moved
};

bool take(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

bool number(std::string_view& s, int64_t& value) {
  size_t n = 0;
  value = 0;
  while (n < s.size() && n < 18 && std::isdigit(static_cast<unsigned char>(s[n])))
    value = value * 10 + (s[n++] - '0');
  s.remove_prefix(n);
  return n > 0;
}

bool identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

std::optional<Launch> plain_launch(std::string_view s) {
  Launch l;
  if (!take(s, "  ") || s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
    return std::nullopt;
  size_t n = 0;
  while (n < s.size() && identifier_char(s[n])) ++n;
  if (n == 0) return std::nullopt;
  l.kernel = std::string(s.substr(0, n));
  s.remove_prefix(n);
  if (take(s, "<<<") &&
      !(number(s, l.grid) && take(s, ", ") && number(s, l.threads) && take(s, ", 0, stream>>>")))
    return std::nullopt;
  if (!take(s, "(")) return std::nullopt;
  do {
    const bool moved = take(s, "(");
    int64_t id = 0, by = 0;
    if (!take(s, "b") || !number(s, id)) return std::nullopt;
    if (moved && !(take(s, " + ") && number(s, by) && take(s, ")"))) return std::nullopt;
    l.args.emplace_back(id, by);
  } while (take(s, ", "));
  if (!take(s, ");\n") || !s.empty()) return std::nullopt;
  return l;
}

class Tables {
 public:
  explicit Tables(const std::map<int, size_t>& stored) : stored_(stored) {}

  /// The run's table and loop.
  std::string table(const std::vector<Launch>& run) {
    std::map<std::string, size_t> kernels;  // name -> its case
    std::vector<const Launch*> first;       // each case's first launch
    std::map<size_t, int64_t> named;        // slots this run reads by name -> buffer
    std::string rows;
    for (const Launch& l : run) {
      const auto [at, added] = kernels.emplace(l.kernel, kernels.size());
      if (added) first.push_back(&l);
      rows += "      " + std::to_string(at->second);
      if (l.grid >= 0) rows += ", " + std::to_string(l.grid) + ", " + std::to_string(l.threads);
      for (const auto& [id, by] : l.args) {
        const size_t s = slot(id);
        if (!stored_.count(static_cast<int>(id))) named.emplace(s, id);
        rows += ", " + std::to_string(s) + ", " + std::to_string(by);
      }
      rows += ",\n";
    }
    const bool cuda = run.front().grid >= 0;
    std::string out =
        "  {  // " + std::to_string(run.size()) + " launches of " + std::to_string(kernels.size()) +
        " kernel(s), a row each: the kernel's case, " + (cuda ? "its grid and block, " : "") +
        "then each argument's pointer (its place in kf_ptr) and the elements it is "
        "moved by\n    static constexpr int64_t kf_rows[] = {\n" +
        rows + "    };\n";
    for (const auto& [s, id] : named)
      out += "    kf_ptr[" + std::to_string(s) + "] = kf_pointer(b" + std::to_string(id) + ");\n";
    const size_t head = cuda ? 3 : 1;  // a row's entries before its arguments
    out +=
        "    void* const* const kf_p = kf_ptr.data();\n"
        "    for (const int64_t* kf_l = kf_rows; kf_l != kf_rows + " +
        std::to_string(count(rows)) + ";) {\n      switch (kf_l[0]) {\n";
    for (size_t c = 0; c < first.size(); ++c) {
      const Launch& l = *first[c];
      std::string args;
      for (size_t a = 0; a < l.args.size(); ++a)
        args += (a ? ", " : "") + std::string("kf_arg{kf_p, kf_l + ") +
                std::to_string(head + 2 * a) + "}";
      out += "        case " + std::to_string(c) + ":\n          " + l.kernel +
             (cuda ? "<<<static_cast<unsigned>(kf_l[1]), static_cast<unsigned>(kf_l[2]), 0, "
                     "stream>>>"
                   : "") +
             "(" + args + ");\n          kf_l += " + std::to_string(head + 2 * l.args.size()) +
             ";\n          break;\n";
    }
    return out + "      }\n    }\n  }\n";
  }

  /// The declaration of kf_ptr with the stored tensors' pointers (after their allocation).
  std::string pointers() const {
    if (slots_.empty()) return "";
    std::string out = "  std::vector<void*> kf_ptr(" + std::to_string(size_) +
                      ");  // the launch tables' pointers: the stored tensors' first\n";
    if (!stored_.empty())
      out += "  for (size_t kf_i = 0; kf_i < " + std::to_string(stored_.size()) +
             "; ++kf_i) kf_ptr[kf_i] = kf_stored[kf_i].data_ptr();\n";
    return out;
  }

 private:
  size_t slot(int64_t id) {
    const auto at = slots_.find(id);
    if (at != slots_.end()) return at->second;
    const auto s = stored_.find(static_cast<int>(id));
    const size_t place = s != stored_.end() ? s->second : stored_.size() + others_++;
    size_ = std::max(size_, place + 1);
    return slots_.emplace(id, place).first->second;
  }
  static size_t count(const std::string& rows) {
    size_t n = 0;
    for (char c : rows) n += c == ',' ? 1 : 0;
    return n;
  }

  const std::map<int, size_t>& stored_;
  std::map<int64_t, size_t> slots_;
  size_t others_ = 0, size_ = 0;
};

}  // namespace

std::set<int> named_buffers(const std::string& text) {
  std::set<int> out;
  for (size_t i = 0; i < text.size();) {
    if (!identifier_char(text[i])) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < text.size() && identifier_char(text[j])) ++j;
    std::string_view token(text.data() + i, j - i);
    int64_t id = 0;
    if ((take(token, "t") || take(token, "b")) && number(token, id) && token.empty() &&
        id <= INT32_MAX)
      out.insert(static_cast<int>(id));
    i = j;
  }
  return out;
}

const char* host_table_prelude() {
  return "// A kernel's pointer argument from a launch table's row: kf_ptr[at[0]] moved by at[1]\n"
         "// elements of the kernel's parameter type.\n"
         "struct kf_arg {\n"
         "  void* const* ptr;\n"
         "  const int64_t* at;\n"
         "  template <class T>\n"
         "  operator T*() const { return static_cast<T*>(ptr[at[0]]) + at[1]; }\n"
         "};\n"
         "template <class T>\n"
         "void* kf_pointer(T* p) { return const_cast<void*>(static_cast<const void*>(p)); }\n\n";
}

HostSteps tabled_steps(const std::string& calls, const std::vector<size_t>& ends,
                       const std::map<int, size_t>& stored) {
  HostSteps out;
  Tables tables(stored);
  std::vector<Launch> run;
  std::vector<std::string> texts;  // the run's steps as written
  auto flush = [&] {
    if (run.size() >= kTableRun) {
      out.steps.push_back(tables.table(run));
    } else {
      for (auto& t : texts) out.steps.push_back(std::move(t));
    }
    run.clear();
    texts.clear();
  };
  size_t begin = 0;
  for (size_t end : ends) {
    std::string step = calls.substr(begin, end - begin);
    begin = end;
    auto launch = plain_launch(step);
    // one kernel, one way: a run's kernels are called with one grid form each
    if (launch && !run.empty() && (launch->grid < 0) != (run.front().grid < 0)) flush();
    if (!launch) {
      flush();
      out.steps.push_back(std::move(step));
      continue;
    }
    run.push_back(std::move(*launch));
    texts.push_back(std::move(step));
  }
  flush();
  if (begin < calls.size()) out.steps.push_back(calls.substr(begin));
  out.pointers = tables.pointers();
  return out;
}

}  // namespace kforge::generator
