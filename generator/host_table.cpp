#include "generator/host_table.hpp"

#include "generator/packed_rows.hpp"
#include "generator/table_graph.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>

namespace kforge::generator {
namespace {

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

/// A step a table can hold: a launch on buffers, as the emitters write it
/// (`  k3<<<1280, 256, 0, stream>>>(b24, (b25 + 768));` for CUDA, `  k3(b24, (b25 + 768));` for
/// the CPU), or a library call on tensors (`  t30 = at::addmm(t6, t29, t4.t(), 1, 1).contiguous();`
/// then `  b30 = t30.data_ptr<float>();`, library_call_text).
struct Step {
  /// A launch's kernel; a library call's expression with each tensor it names as `#j#`, j its
  /// place in `tensors`.
  std::string kernel;
  int64_t grid = -1, threads = -1;  ///< -1: a CPU function's call, a library call
  std::vector<std::pair<int64_t, int64_t>>
      args;                      ///< a launch's buffers, the elements each is moved
  int64_t result = -1;           ///< a library call's buffer; -1 for a launch
  std::string type;              ///< its pointer's element type
  std::vector<int64_t> tensors;  ///< the tensors a library call reads
  std::vector<int64_t> aligned;  ///< buffers a launch copies first where not 16-byte aligned
  bool library() const { return result >= 0; }
  /// The case a run gives it: launches of one kernel, calls of one expression share one.
  std::string key() const { return (library() ? "=" : "") + kernel; }
};

/// An alignment copy before a launch (generator/emit_cuda.cpp): the buffer it checks.
std::optional<int64_t> alignment_check(std::string_view& s) {
  std::string_view t = s;
  int64_t id = 0;
  if (!take(t, "  if (reinterpret_cast<uintptr_t>(b") || !number(t, id)) return std::nullopt;
  const std::string n = std::to_string(id);
  if (!take(t, ") % 16 != 0) {\n    t" + n + " = t" + n + ".clone();\n    b" + n + " = t" + n +
                   ".data_ptr<float>();\n  }\n"))
    return std::nullopt;
  s = t;
  return id;
}

std::optional<Step> launch_step(std::string_view s) {
  Step l;
  while (const auto id = alignment_check(s)) l.aligned.push_back(*id);
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

std::optional<Step> library_step(std::string_view s) {
  Step l;
  if (!take(s, "  t") || !number(s, l.result) || !take(s, " = ")) return std::nullopt;
  const std::string id = std::to_string(l.result);
  const std::string tail = ".contiguous();\n  b" + id + " = t" + id + ".data_ptr<";
  const size_t at = s.rfind(tail);
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view expr = s.substr(0, at);
  std::string_view rest = s.substr(at + tail.size());
  const size_t close = rest.find(">();\n");
  if (close == std::string_view::npos || close + 5 != rest.size()) return std::nullopt;
  l.type = std::string(rest.substr(0, close));
  // the expression's tensors become places; a pointer, a literal or a comment keeps it a statement
  std::map<int64_t, size_t> place;
  for (size_t i = 0; i < expr.size();) {
    const char c = expr[i];
    if (c == '"' || c == '\'' || c == '#' || expr.substr(i, 2) == "//" || expr.substr(i, 2) == "/*")
      return std::nullopt;
    if (!identifier_char(c)) {
      l.kernel += c;
      ++i;
      continue;
    }
    size_t j = i;
    while (j < expr.size() && identifier_char(expr[j])) ++j;
    std::string_view token = expr.substr(i, j - i);
    const std::string_view whole = token;
    int64_t buffer = 0;
    const bool tensor = take(token, "t") && number(token, buffer) && token.empty();
    token = whole;
    if (!tensor && take(token, "b") && number(token, buffer) && token.empty()) return std::nullopt;
    if (tensor) {
      const auto [p, added] = place.emplace(buffer, l.tensors.size());
      if (added) l.tensors.push_back(buffer);
      l.kernel += "#" + std::to_string(p->second) + "#";
    } else {
      l.kernel += whole;
    }
    i = j;
  }
  return l;
}

/// A run's statements, a step each, where it is not made a table.
struct Run {
  std::vector<Step> steps;
  std::vector<std::string> texts;
};

/// Runs of fewer steps than kTableRun, or of more cases than this (library calls whose
/// expressions differ in more than their tensors), stay statements.
constexpr size_t kTableCases = 64;

/// Whether `run` becomes a table.
bool tabled(const Run& run) {
  if (run.steps.size() < kTableRun) return false;
  std::set<std::string> cases;
  for (const Step& s : run.steps) cases.insert(s.key());
  return cases.size() <= kTableCases;
}

/// A part of the host function: a step that stays a statement, or a run, decided once.
struct Part {
  std::string text;  ///< the statement, where `run` is empty
  Run run;
  bool table = false;
};

class Tables {
 public:
  Tables(const std::map<int, size_t>& stored, const std::set<int>& named,
         const std::set<std::string>& graph_kernels)
      : stored_(stored), named_(named), graph_kernels_(graph_kernels) {}

  /// The run's table and loop.
  std::string table(const std::vector<Step>& run) {
    std::map<std::string, size_t> cases;          // key -> its case
    std::vector<const Step*> first;               // each case's first step
    std::map<size_t, int64_t> pointers, tensors;  // slots read by name where the run begins
    std::set<size_t> from_stored;                 // tensor slots read from kf_stored then
    std::set<size_t> here;                        // slots this run's calls write
    std::set<int64_t> aligned;  // buffers made outside the tables, aligned where the run begins
    std::vector<std::vector<int64_t>> rows;
    std::string after;
    for (const Step& l : run) {
      for (int64_t id : l.aligned)  // a call in a table aligns what it makes
        if (!written_.count(slot(id)) && !here.count(slot(id))) aligned.insert(id);
      const auto [at, added] = cases.emplace(l.key(), cases.size());
      if (added) first.push_back(&l);
      std::vector<int64_t>& row = rows.emplace_back();
      row.push_back(static_cast<int64_t>(at->second));
      if (l.grid >= 0) row.insert(row.end(), {l.grid, l.threads});
      for (const auto& [id, by] : l.args) {
        const size_t s = slot(id);
        if (!stored_.count(static_cast<int>(id)) && !written_.count(s) && !here.count(s))
          pointers.emplace(s, id);
        row.insert(row.end(), {static_cast<int64_t>(s), by});
      }
      if (l.library()) {
        for (int64_t id : l.tensors) {
          const size_t s = slot(id);
          if (written_.count(s) || here.count(s)) continue;
          if (stored_.count(static_cast<int>(id))) {
            from_stored.insert(s);
            stored_tensors_.insert(static_cast<int>(id));
          } else
            tensors.emplace(s, id);
        }
        const size_t s = slot(l.result);
        here.insert(s);
        row.push_back(static_cast<int64_t>(s));
        for (int64_t id : l.tensors) row.push_back(static_cast<int64_t>(slot(id)));
        if (named_.count(static_cast<int>(l.result))) {  // a statement after it names it
          const std::string id = std::to_string(l.result), place = std::to_string(s);
          after += "    t" + id + " = kf_t[" + place + "];\n    b" + id + " = static_cast<" +
                   l.type + "*>(kf_ptr[" + place + "]);\n";
        }
      }
    }
    written_.insert(here.begin(), here.end());
    const bool cuda =
        std::any_of(run.begin(), run.end(), [](const Step& l) { return l.grid >= 0; });
    const bool library =
        std::any_of(run.begin(), run.end(), [](const Step& l) { return l.library(); });
    tensors_ = tensors_ || library;
    std::string out =
        "  {  // " + std::to_string(run.size()) + " steps of " + std::to_string(cases.size()) +
        " case(s), a row each: its case, then " +
        (cuda ? "a launch's grid and block and " : "a launch's ") +
        "each argument's pointer (its place in kf_ptr) and the elements it is "
        "moved by" +
        (library ? "; a library call's tensor (its place in kf_t and kf_ptr) and "
                   "each tensor it reads"
                 : "") +
        " (packed, generator/packed_rows.hpp)\n    static constexpr int64_t kf_packed[] = {\n" +
        packed_rows(rows, "      ") +
        "    };\n    static const std::vector<int64_t> kf_rows = kf_unpack(kf_packed);\n";
    for (int64_t id : aligned) {
      const std::string n = std::to_string(id);
      out += "    if (reinterpret_cast<uintptr_t>(b" + n + ") % 16 != 0) {\n      t" + n + " = t" +
             n + ".clone();\n      b" + n + " = t" + n + ".data_ptr<float>();\n    }\n";
    }
    for (const auto& [s, id] : pointers)
      out += "    kf_ptr[" + std::to_string(s) + "] = kf_pointer(b" + std::to_string(id) + ");\n";
    for (const auto& [s, id] : tensors)
      out += "    kf_t[" + std::to_string(s) + "] = t" + std::to_string(id) + ";\n";
    if (!from_stored.empty()) {
      std::string list;
      for (size_t s : from_stored) list += (list.empty() ? "" : ", ") + std::to_string(s);
      out += "    for (const size_t kf_s : {" + list + "}) kf_t[kf_s] = kf_stored[kf_s];\n";
    }
    // A run of launches alone replays as a CUDA graph (generator/table_graph.hpp) where each of
    // its kernels has a graph copy; a library call's tensors are made as it runs.
    const bool graph =
        cuda && !library && std::all_of(first.begin(), first.end(), [&](const Step* l) {
          return graph_kernels_.count(l->kernel) > 0;
        });
    if (graph)
      for (const Step* l : first) graphed_.insert(l->kernel);
    out += "    void* const* const kf_p = kf_ptr.data();\n";
    if (graph)
      out +=
          "    static kf_graph kf_replay;\n    kf_replay.run(kf_ptr, stream, [&](cudaStream_t "
          "kf_stream, void* const* kf_tab) {\n";
    out +=
        "    for (const int64_t* kf_l = kf_rows.data(); kf_l != kf_rows.data() + kf_rows.size();) "
        "{\n      switch (kf_l[0]) {\n";
    for (size_t c = 0; c < first.size(); ++c) out += case_text(c, *first[c], graph);
    return out + "      }\n    }\n" + (graph ? "    });\n" : "") + after + "  }\n";
  }

  /// The kernels of the runs that replay as CUDA graphs.
  const std::set<std::string>& graphed() const { return graphed_; }
  /// The stored buffers a table's library call reads as tensors.
  const std::set<int>& stored_tensors() const { return stored_tensors_; }

  /// The declaration of kf_ptr (and kf_t) with the stored tensors' pointers (after their
  /// allocation).
  std::string pointers() const {
    if (slots_.empty()) return "";
    const std::string n = std::to_string(size_);
    std::string out = "  std::vector<void*> kf_ptr(" + n +
                      ");  // the tables' pointers: the stored tensors' first\n";
    if (tensors_) out += "  std::vector<torch::Tensor> kf_t(" + n + ");  // the tables' tensors\n";
    if (!stored_.empty())
      out += "  for (size_t kf_i = 0; kf_i < " + std::to_string(stored_.size()) +
             "; ++kf_i) kf_ptr[kf_i] = kf_where[kf_i];\n";
    return out;
  }

 private:
  static std::string case_text(size_t c, const Step& l, bool graph) {
    std::string out = "        case " + std::to_string(c) + ":\n          ";
    if (l.library()) {  // the call on the row's tensors: place j at kf_l[2 + j]
      std::string call;
      for (size_t i = 0; i < l.kernel.size(); ++i) {
        if (l.kernel[i] != '#') {
          call += l.kernel[i];
          continue;
        }
        const size_t close = l.kernel.find('#', i + 1);
        call += "kf_t[kf_l[" +
                std::to_string(2 + std::stoul(l.kernel.substr(i + 1, close - i - 1))) + "]]";
        i = close;
      }
      // aligned to 16 bytes, as a launch after it may read it (a copy where it is not)
      return out + "kf_t[kf_l[1]] = " + call +
             ".contiguous();\n          if (reinterpret_cast<uintptr_t>(kf_t[kf_l[1]].data_ptr()) "
             "% 16 "
             "!= 0)\n            kf_t[kf_l[1]] = kf_t[kf_l[1]].clone();\n          kf_ptr[kf_l[1]] "
             "= "
             "kf_t[kf_l[1]].data_ptr();\n          kf_l += " +
             std::to_string(2 + l.tensors.size()) + ";\n          break;\n";
    }
    const size_t head = l.grid >= 0 ? 3 : 1;  // a row's entries before its arguments
    const std::string grid =
        "<<<static_cast<unsigned>(kf_l[1]), static_cast<unsigned>(kf_l[2]), 0, " +
        std::string(graph ? "kf_stream" : "stream") + ">>>";
    std::string args, at;
    for (size_t a = 0; a < l.args.size(); ++a) {
      const std::string row = std::to_string(head + 2 * a);
      args += (a ? ", " : "") + std::string("kf_arg{kf_p, kf_l + ") + row + "}";
      at += ", kf_at{kf_l[" + row + "], kf_l[" + std::to_string(head + 2 * a + 1) + "]}";
    }
    const std::string launch = l.kernel + (l.grid >= 0 ? grid : "") + "(" + args + ");\n";
    return out +
           (graph ? "if (kf_tab)\n            " + graph_kernel(l.kernel) + grid + "(kf_tab" + at +
                        ");\n          else\n            " + launch
                  : launch) +
           "          kf_l += " + std::to_string(head + 2 * l.args.size()) +
           ";\n          break;\n";
  }
  size_t slot(int64_t id) {
    const auto at = slots_.find(id);
    if (at != slots_.end()) return at->second;
    const auto s = stored_.find(static_cast<int>(id));
    const size_t place = s != stored_.end() ? s->second : stored_.size() + others_++;
    size_ = std::max(size_, place + 1);
    return slots_.emplace(id, place).first->second;
  }

  const std::map<int, size_t>& stored_;
  const std::set<int>& named_;  ///< buffers a statement outside the tables names
  std::map<int64_t, size_t> slots_;
  std::set<size_t> written_;  ///< slots an earlier run's library calls wrote
  size_t others_ = 0, size_ = 0;
  bool tensors_ = false;                        ///< some run calls a library: kf_t is declared
  const std::set<std::string>& graph_kernels_;  ///< kernels with a graph copy
  std::set<std::string> graphed_;
  std::set<int> stored_tensors_;
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
                       const std::map<int, size_t>& stored, const std::string& after,
                       const std::set<std::string>& graph_kernels) {
  // the steps, in runs of steps a table can hold between the others
  std::vector<Part> parts;
  size_t begin = 0;
  for (size_t end : ends) {
    std::string text = calls.substr(begin, end - begin);
    begin = end;
    auto step = launch_step(text);
    if (!step) step = library_step(text);
    if (!step) {
      parts.push_back(Part{std::move(text), {}, false});
      continue;
    }
    if (parts.empty() || parts.back().run.steps.empty()) parts.emplace_back();
    parts.back().run.steps.push_back(std::move(*step));
    parts.back().run.texts.push_back(std::move(text));
  }
  for (Part& p : parts) p.table = tabled(p.run);
  // what the statements that stay name: a library call's tensor made in a table is copied out
  // for them
  std::string rest = after + (begin < calls.size() ? calls.substr(begin) : "");
  for (const Part& p : parts) {
    rest += p.text;
    if (!p.table)
      for (const auto& t : p.run.texts) rest += t;
  }
  const std::set<int> named = named_buffers(rest);
  HostSteps out;
  Tables tables(stored, named, graph_kernels);
  for (Part& p : parts) {
    if (p.table) {
      out.steps.push_back(tables.table(p.run.steps));
    } else if (p.run.steps.empty()) {
      out.steps.push_back(std::move(p.text));
    } else {
      for (auto& t : p.run.texts) out.steps.push_back(std::move(t));
    }
  }
  if (begin < calls.size()) out.steps.push_back(calls.substr(begin));
  out.pointers = tables.pointers();
  out.graphed = tables.graphed();
  out.stored_tensors = tables.stored_tensors();
  return out;
}

}  // namespace kforge::generator
