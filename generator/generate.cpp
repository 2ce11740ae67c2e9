#include "generator/generate.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "generator/expr_text.hpp"
#include "generator/gate_products.hpp"
#include "generator/host_table.hpp"
#include "generator/lowering.hpp"
#include "generator/packed_rows.hpp"
#include "generator/schedule.hpp"
#include "generator/step_products.hpp"
#include "generator/table_graph.hpp"

namespace kforge::generator {
namespace {

/// A tensor argument: one of fn's (forward), or one backward_fn is given (fn's own argument, an
/// output's gradient, fn's output, a tensor AutogradFunction computed).
bool is_tensor_kind(const std::string& kind) {
  return kind == "input" || kind == "parameter" || kind == "buffer" || kind == "tensor" ||
         kind == "forward_arg" || kind == "grad_output" || kind == "forward_output" ||
         kind == "derived";
}

Result<std::string> parameter_type(const json::Value& arg) {
  const std::string kind = arg["kind"].as_string();
  if (is_tensor_kind(kind)) return {"torch::Tensor", ""};
  if (kind == "none") return {"c10::optional<torch::Tensor>", ""};
  if (kind == "tensor_list") return {"std::vector<torch::Tensor>", ""};
  if (kind == "int_list") return {"std::vector<int64_t>", ""};
  if (kind == "scalar") {
    const std::string type = arg["type"].as_string();
    if (type == "int") return {"int64_t", ""};
    if (type == "float") return {"double", ""};
    if (type == "bool") return {"bool", ""};
  }
  return Result<std::string>::failure("argument `" + arg["name"].as_string() + "` of kind " + kind);
}

/// The C++ conditions that an argument is not this config's (its shape, dtype or value), one an
/// argument that has any: its one term's negation (`!kf_is(a1, {64}, torch::kFloat32)`,
/// `a2 != 3`, `a13.has_value()` for a None), or `!(...)` of its terms (an optional tensor's
/// `a13.has_value() && kf_is(a13.value(), ...)`, a list's size and elements).
std::vector<std::string> mismatches(const json::Value& args, const std::vector<bool>& optional) {
  std::vector<std::string> conditions;
  const auto& list = args.as_array();
  for (size_t i = 0; i < list.size(); ++i) {
    std::vector<std::pair<std::string, std::string>> terms;  // each term, and its negation
    auto both = [&](std::string holds, std::string fails) {
      terms.emplace_back(std::move(holds), std::move(fails));
    };
    const auto& a = list[i];
    std::string name = "a" + std::to_string(i);
    const std::string kind = a["kind"].as_string();
    if (i < optional.size() && optional[i]) {  // a tensor in some configs, None in others
      const std::string present = name + ".has_value()";
      if (kind == "none")
        both("!" + present, present);
      else
        both(present, "!" + present);
      name += ".value()";
    }
    auto tensor = [&](const std::string& t, const json::Value& spec) {
      std::string sizes;
      for (const auto& size : spec["shape"].as_array())
        sizes += (sizes.empty() ? "" : ", ") + std::to_string(size.as_int());
      const auto type = dtype_of(spec["dtype"].as_string());
      const std::string is = "kf_is(" + t + ", {" + sizes + "}" +
                             (type ? std::string(", ") + torch_type(*type) : "") + ")";
      both(is, "!" + is);
    };
    auto equal = [&](const std::string& value) {
      both(name + " == " + value, name + " != " + value);
    };
    if (is_tensor_kind(kind)) {
      tensor(name, a);
    } else if (kind == "tensor_list") {
      const auto& elements = a["elements"].as_array();
      const std::string count = std::to_string(elements.size());
      both(name + ".size() == " + count, name + ".size() != " + count);
      for (size_t e = 0; e < elements.size(); ++e)
        tensor(name + "[" + std::to_string(e) + "]", elements[e]);
    } else if (kind == "int_list") {
      std::string v;
      for (const auto& x : a["value"].as_array())
        v += (v.empty() ? "" : ", ") + std::to_string(x.as_int());
      equal("std::vector<int64_t>{" + v + "}");
    } else if (kind == "scalar") {
      const std::string type = a["type"].as_string();
      if (type == "bool" && a["value"].as_bool())
        both(name, "!" + name);
      else if (type == "bool")
        both("!" + name, name);
      else if (type == "int")
        equal(std::to_string(a["value"].as_int()));
      else
        equal(exact_number(a["value"].as_number()));
    }
    if (terms.size() == 1) {
      conditions.push_back(terms[0].second);
    } else if (!terms.empty()) {
      std::string all;
      for (const auto& [holds, fails] : terms) all += (all.empty() ? "" : " && ") + holds;
      conditions.push_back("!(" + all + ")");
    }
  }
  return conditions;
}

/// The host's check of a tensor argument against a config (dispatch_block): its sizes, and its type
/// where the config names one. A statement of `.size(d) == n` terms each took 110 bytes an
/// argument on average in KernelBench's 10_ResNet101 (627 arguments: 82 KB of a 308 KB source).
constexpr const char* kArgumentCheckPrelude =
    R"(// whether a tensor argument has a config's sizes (and type)
static inline bool kf_is(const torch::Tensor& t, std::initializer_list<int64_t> sizes) {
  if (t.dim() != static_cast<int64_t>(sizes.size())) return false;
  int64_t d = 0;
  for (const int64_t size : sizes)
    if (t.size(d++) != size) return false;
  return true;
}
static inline bool kf_is(const torch::Tensor& t, std::initializer_list<int64_t> sizes,
                         c10::ScalarType type) {
  return kf_is(t, sizes) && t.scalar_type() == type;
}
)";

/// The dispatch to config `ns` in `forward`: a block of statements, one an argument that leaves
/// it where the argument is not the config's (`mismatches`), then the call of the config's `run`.
/// In `forward` itself rather than a function of the config's, whose signature would repeat
/// forward's (12 KB of 10_ResNet101's source for its 627 tensors), and statements rather than one
/// `&&` chain: DenseNet201's would be 3000 terms.
std::string dispatch_block(const std::string& ns, const std::vector<std::string>& mismatched,
                           const std::string& call_args) {
  std::string out = "  do {  // " + ns + "\n";
  for (const auto& c : mismatched) out += "    if (" + c + ") break;\n";
  return out + "    return " + ns + "::run(" + call_args + ");\n  } while (false);\n";
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string out = "{";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "}";
}

/// More tensors than this that the kernels store are allocated in a loop over a table of their
/// shapes, and more steps than this are cut into parts of this many, each a function of its own:
/// g++ takes long over one function of thousands of statements. KernelBench's 36_LSTMHn at
/// `--shrink 8` (1185 tensors, 1158 launches): 51 s of g++ (`-ftime-report`) as one function, 24 s
/// with the table alone, 16 s with the table and the parts (BENCHMARKS.md, sixty-second step).
constexpr size_t kHostStatements = 64;

/// Where a table's stored tensors that no statement names are placed: one allocation (an arena) at
/// offsets this many bytes apart, as the caching allocator aligns its blocks (a kernel's vector
/// loads need 16).
constexpr int64_t kArenaAlignment = 256;

/// The statements that allocate the tensors t<id> the kernels store, with their pointers b<id>.
/// Up to kHostStatements, a statement each. Beyond, from a table; with `arena_allowed` (CUDA), the
/// buffers a statement names (`named`, declared by name) or a library call in a table reads
/// (`read_as_tensors`) are tensors (`kf_stored`), the others only pointers (`kf_where`, what the
/// launch tables read through kf_ptr) into one arena allocated at once: an RNN's host function
/// allocated 14843 tensors a call at full size (KernelBench's 36_LSTMHn), about a microsecond each
/// from the caching allocator. Not on the CPU, where an allocation past glibc's mmap threshold (32
/// MB at most) is mapped afresh each call and its pages faulted in again, and small ones come back
/// from the heap (not measured). A stack's piece placed in it (Buffer::within; `buffers` lists the
/// stack first) is its index of the stack: a `select` where it is a tensor (the light headers'
/// operators are calls through the dispatcher), else its stack's place moved by the piece's
/// offset.
std::string allocations(const std::vector<const Buffer*>& buffers, const std::string& options,
                        const std::set<int>& named, const std::set<int>& read_as_tensors,
                        bool arena_allowed) {
  std::map<int, size_t> slot;
  for (size_t i = 0; i < buffers.size(); ++i) slot.emplace(buffers[i]->id, i);
  auto placed = [&](const Buffer* b) { return b->within >= 0 && slot.count(b->within); };
  std::string out;
  if (buffers.size() <= kHostStatements) {
    for (const Buffer* b : buffers) {
      const std::string id = std::to_string(b->id), type = c_type(b->dtype);
      if (placed(b))
        out += "  auto t" + id + " = t" + std::to_string(b->within) + ".select(" +
               std::to_string(b->within_dim) + ", " + std::to_string(b->within_index) + ");\n";
      else
        out += "  auto t" + id + " = torch::empty(" + shape_text(b->shape) + ", " + options +
               ".dtype(" + torch_type(b->dtype) + "));\n";
      out += "  " + type + "* b" + id + " = t" + id + ".data_ptr<" + type + ">();\n";
    }
    return out;
  }
  // A tensor's stack is a tensor (its piece is its select); pieces follow their stacks.
  std::vector<bool> tensor(buffers.size(), !arena_allowed);
  for (size_t i = buffers.size(); i-- > 0;) {
    tensor[i] =
        tensor[i] || named.count(buffers[i]->id) > 0 || read_as_tensors.count(buffers[i]->id) > 0;
    if (tensor[i] && placed(buffers[i])) tensor[slot[buffers[i]->within]] = true;
  }
  // Each other buffer's place: a byte offset into the arena (root -1) or into a tensor's memory
  // (root: its slot), its pieces' as their stack's moved by index x the stack's stride there;
  // stacks come before their pieces, so one pass in order places every buffer.
  std::vector<std::pair<int64_t, int64_t>> where(buffers.size(), {-2, 0});
  int64_t arena = 0;
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Buffer* b = buffers[i];
    if (tensor[i]) {
      where[i] = {static_cast<int64_t>(i), 0};
    } else if (placed(b)) {
      const size_t s = slot[b->within];
      if (s >= i) throw std::logic_error("a stored buffer listed before its stack");
      int64_t stride = 1;
      const auto& shape = buffers[s]->shape;
      for (size_t d = static_cast<size_t>(b->within_dim) + 1; d < shape.size(); ++d)
        stride *= shape[d];
      where[i] = {where[s].first,
                  where[s].second + b->within_index * stride * element_bytes(b->dtype)};
    } else {
      where[i] = {-1, arena};
      arena += (numel(b->shape) * element_bytes(b->dtype) + kArenaAlignment - 1) / kArenaAlignment *
               kArenaAlignment;
    }
  }
  // each buffer a row: its rank, sizes, type (its place in kf_types), the place of the stack it
  // is an index of, the dimension and the index (-1, 0, 0 where it is none), and where it is:
  // -2 0 a tensor, -1 and a byte offset in the arena, a tensor's slot and a byte offset in it;
  // packed
  std::vector<std::string> types;
  std::vector<std::vector<int64_t>> rows;
  for (size_t i = 0; i < buffers.size(); ++i) {
    const Buffer* b = buffers[i];
    const std::string type = torch_type(b->dtype);
    const auto known = std::find(types.begin(), types.end(), type);
    std::vector<int64_t>& row = rows.emplace_back();
    row.push_back(static_cast<int64_t>(b->shape.size()));
    row.insert(row.end(), b->shape.begin(), b->shape.end());
    row.push_back(known - types.begin());
    if (known == types.end()) types.push_back(type);
    if (placed(b))
      row.insert(row.end(),
                 {static_cast<int64_t>(slot[b->within]), b->within_dim, b->within_index});
    else
      row.insert(row.end(), {-1, 0, 0});
    if (tensor[i])
      row.insert(row.end(), {-2, 0});
    else
      row.insert(row.end(), {where[i].first, where[i].second});
  }
  std::string type_list;
  for (const auto& t : types) type_list += (type_list.empty() ? "" : ", ") + t;
  const std::string n = std::to_string(buffers.size());
  out +=
      "  // each stored tensor's rank, sizes, type (its place in kf_types), where it is an index\n"
      "  // of an earlier one (`select`) that one's place, the dimension and the index, else -1, "
      "0,\n"
      "  // 0, and where its memory is: -2 0 a tensor of its own, else a byte offset into the\n"
      "  // arena (-1) or into the stored tensor at that place\n"
      "  static constexpr c10::ScalarType kf_types[] = {" +
      type_list + "};\n  static constexpr int64_t kf_packed_tensors[] = {\n" +
      packed_rows(rows, "    ") +
      "  };\n  static const std::vector<int64_t> kf_tensors = kf_unpack(kf_packed_tensors);\n"
      "  std::vector<torch::Tensor> kf_stored(" +
      n + ");\n  std::vector<void*> kf_where(" + n + ");\n";
  if (arena > 0)
    out += "  auto kf_arena = torch::empty({" + std::to_string(arena) + "}, " + options +
           ".dtype(torch::kUInt8));\n  char* const kf_base = "
           "static_cast<char*>(kf_arena.data_ptr());\n";
  out +=
      "  for (size_t kf_pass = 0; kf_pass < 2; ++kf_pass) {  // the tensors, then the others\n"
      "    size_t kf_i = 0;\n"
      "    for (const int64_t* kf_d = kf_tensors.data(); kf_d != kf_tensors.data() + "
      "kf_tensors.size(); kf_d += kf_d[0] + 7, ++kf_i) {\n"
      "      const int64_t* kf_e = kf_d + kf_d[0] + 1;  // type, stack, dimension, index, where\n"
      "      if (kf_pass == 0 && kf_e[4] == -2)\n        kf_stored[kf_i] = kf_e[1] < 0 ? "
      "torch::empty(c10::IntArrayRef(kf_d + 1, static_cast<size_t>(kf_d[0])), " +
      options +
      ".dtype(kf_types[kf_e[0]]))\n                                   : "
      "kf_stored[static_cast<size_t>(kf_e[1])].select(kf_e[2], kf_e[3]);\n"
      "      if (kf_pass == 1)\n        kf_where[kf_i] = kf_e[4] == -2 ? "
      "kf_stored[kf_i].data_ptr()\n"
      "                         : (kf_e[4] < 0 ? " +
      (arena > 0 ? std::string("kf_base") : std::string("static_cast<char*>(nullptr)")) +
      " : static_cast<char*>(kf_stored[static_cast<size_t>(kf_e[4])].data_ptr())) + kf_e[5];\n"
      "    }\n  }\n";
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (!named.count(buffers[i]->id)) continue;  // only in launch tables, through kf_ptr
    const std::string id = std::to_string(buffers[i]->id), type = c_type(buffers[i]->dtype);
    out += "  auto& t" + id + " = kf_stored[" + std::to_string(i) + "];\n  " + type + "* b" + id +
           " = t" + id + ".data_ptr<" + type + ">();\n";
  }
  return out;
}

/// The steps' statements, in parts of kHostStatements steps where there are more, each part a
/// lambda that is not inlined (what a step declares, a moved pointer, is its own; the tensors and
/// pointers it shares are the host function's, taken by reference).
std::string in_parts(const std::vector<std::string>& steps) {
  std::string out;
  for (size_t s = 0; s < steps.size(); s += kHostStatements) {
    const size_t end = std::min(s + kHostStatements, steps.size());
    std::string part;
    for (size_t i = s; i < end; ++i) part += steps[i];
    out += steps.size() <= kHostStatements
               ? part
               : "  [&]() __attribute__((noinline)) {\n" + part + "  }();\n";
  }
  return out;
}

struct ConfigCode {
  std::string functions;
  std::string run;  ///< the body of `run`
  size_t kernels = 0, reducing = 0, library = 0;
  size_t distinct = 0;  ///< kernel functions written: kernels of one shape share one (add_kernel)
  bool tables = false;  ///< some launches run from a table: the source needs host_table_prelude
  bool graphs = false;  ///< some table replays as a CUDA graph: it needs host_graph_prelude
};

Result<ConfigCode> config_code(const GenerateRequest& r, const Program& p,
                               const std::string& prefix, const std::string& options,
                               const std::vector<bool>& optional) {
  // A tensor with no elements that the kernels would compute (x[..., :-1] of a row of one): the
  // index arithmetic divides by its dimensions, so it is refused rather than scheduled. Empty
  // tensors the outputs do not need (a batch norm's reserve in a GPU trace) are never computed.
  const auto live = needed(p);
  for (const auto& b : p.buffers)
    if (b.kind != Buffer::Kind::input && numel(b.shape) == 0 && live.count(b.id))
      return Result<ConfigCode>::failure(
          "a tensor with no elements (a dimension of size 0): the generator does not compute "
          "empty tensors yet");
  auto kernels = schedule(p);
  EmitInput in{&p, &kernels, prefix};
  auto emitted = r.backend == "cuda" ? emit_cuda(in, r.cuda) : emit_cpu(in);
  ConfigCode c;
  c.functions = emitted.functions;
  c.distinct = emitted.written.size();
  for (const auto& k : kernels) {
    const bool view = k.library >= 0 && p.buffers[static_cast<size_t>(k.library)].view;
    c.kernels += view ? 0 : 1;
    c.reducing += k.reduces() ? 1 : 0;
    c.library += k.library >= 0 && !view ? 1 : 0;
  }
  std::set<int> loaded, stored;
  for (const auto& k : kernels) {
    loaded.insert(k.loads.begin(), k.loads.end());
    stored.insert(k.stores.begin(), k.stores.end());
  }
  std::vector<const Buffer*> allocated;
  for (const auto& b : p.buffers) {
    const std::string id = std::to_string(b.id);
    const std::string type = c_type(b.dtype);
    if (b.kind == Buffer::Kind::input) {
      if (!loaded.count(b.id)) continue;
      const auto arg = static_cast<size_t>(b.arg);
      c.run += "  auto t" + id + " = a" + std::to_string(b.arg) +
               (arg < optional.size() && optional[arg] ? ".value()" : "") +
               (b.element >= 0 ? "[" + std::to_string(b.element) + "]" : "") + ".contiguous();\n";
      c.run += "  const " + type + "* b" + id + " = t" + id + ".data_ptr<" + type + ">();\n";
    } else if (stored.count(b.id) || (!b.pieces.empty() && live.count(b.id))) {
      allocated.push_back(&b);
    }
  }
  // a stack whose pieces are placed in it before them (they are views of it)
  std::stable_partition(allocated.begin(), allocated.end(),
                        [](const Buffer* b) { return !b->pieces.empty(); });
  // A long host function's runs of launches from tables (generator/host_table.hpp); the
  // stored tensors allocated from a table are declared by name only where a statement names them.
  std::map<int, size_t> in_table;
  if (allocated.size() > kHostStatements)
    for (size_t i = 0; i < allocated.size(); ++i) in_table.emplace(allocated[i]->id, i);
  std::string ret;
  if (p.outputs.size() == 1) {
    ret = "  return t" + std::to_string(p.outputs[0]) + ";\n";
  } else {
    std::string list;
    for (int o : p.outputs) list += (list.empty() ? "t" : ", t") + std::to_string(o);
    ret = "  return {" + list + "};\n";
  }
  HostSteps steps;
  if (emitted.step_ends.size() > kHostStatements) {
    // a CUDA table's kernels replay from a graph where each has a graph copy
    const auto copies = r.backend == "cuda" ? graph_copies(emitted.functions)
                                            : std::map<std::string, std::string>{};
    std::set<std::string> copied;
    for (const auto& [name, text] : copies) copied.insert(name);
    steps = tabled_steps(emitted.calls, emitted.step_ends, in_table, ret, copied);
    for (const auto& name : steps.graphed) c.functions += "\n" + copies.at(name);
  } else {
    steps.steps.push_back(emitted.calls);
  }
  c.tables = !steps.pointers.empty() || allocated.size() > kHostStatements;
  c.graphs = !steps.graphed.empty();
  const std::string body = in_parts(steps.steps);
  const std::set<int> named = named_buffers(body + ret);
  c.run += allocations(allocated, options, named, steps.stored_tensors, r.backend == "cuda");
  for (const auto& k : kernels) {  // what library_call_text assigns, where a statement names it
    if (k.library < 0 || !named.count(k.library)) continue;
    const Buffer& b = p.buffers[static_cast<size_t>(k.library)];
    const std::string id = std::to_string(b.id);
    c.run += "  torch::Tensor t" + id + ";\n  " + c_type(b.dtype) + "* b" + id +
             " = nullptr;\n  (void)b" + id + ";\n";
  }
  if (r.backend == "cuda") c.run += "  auto stream = at::cuda::getCurrentCUDAStream();\n";
  c.run += steps.pointers + body + ret;
  return {std::move(c), ""};
}

}  // namespace

Result<Generated> generate_kernel(const GenerateRequest& r) {
  using Out = Result<Generated>;
  if (r.backend != "cpu" && r.backend != "cuda")
    return Out::failure("no generator for the " + r.backend + " backend");
  const auto& configs = r.direction_doc["configs"].as_array();
  if (configs.empty()) return Out::failure("the task direction has no configs");
  const auto& args = configs[0]["args"].as_array();
  // An argument that is a tensor in some configs and None in others (robust-kbench's resnet_block
  // without downsampling) is an optional tensor.
  std::vector<bool> optional(args.size(), false);
  for (size_t i = 0; i < args.size(); ++i) {
    bool tensor = false, none = false;
    for (const auto& config : configs) {
      const std::string kind = config["args"][i]["kind"].as_string();
      tensor = tensor || is_tensor_kind(kind);
      none = none || kind == "none";
    }
    optional[i] = tensor && none;
  }
  std::string params, call_args, options;
  for (size_t i = 0; i < args.size(); ++i) {
    auto type = optional[i] ? Result<std::string>{"c10::optional<torch::Tensor>", ""}
                            : parameter_type(args[i]);
    if (!type) return Out::failure("the generator cannot take " + type.error);
    const std::string name = "a" + std::to_string(i);
    params += (i ? ", " : "") + *type + " " + name;
    call_args += (i ? ", " : "") + name;
    if (options.empty() && !optional[i] && is_tensor_kind(args[i]["kind"].as_string()))
      options = name + ".options()";
  }
  if (options.empty()) return Out::failure("the function takes no tensor");

  std::string body, dispatch;
  std::set<std::string> seen;
  size_t outputs = 0, kernels = 0, reducing = 0, library = 0, written = 0, distinct = 0,
         step_families = 0, gate_splits = 0;
  bool tables = false, graphs = false;
  for (size_t c = 0; c < configs.size(); ++c) {
    const auto& config = configs[c];
    const std::string where =
        "config " + std::to_string(c) + " (" + config["name"].as_string() + ")";
    const auto conditions = mismatches(config["args"], optional);
    std::string key;
    for (const auto& c : conditions) key += c + ";";
    if (!seen.insert(key).second) continue;
    if (config["args"].as_array().size() != args.size())
      return Out::failure(where + " passes a different number of arguments");
    const auto& graph_doc = config["graph"];
    if (graph_doc.is_null())
      return Out::failure(where + " has no graph: export the task again with this kforge");
    if (graph_doc.contains("error"))
      return Out::failure(
          where + ": the export could not trace the function: " + graph_doc["error"].as_string());
    auto graph = read_graph(r.export_dir + "/" + graph_doc["file"].as_string());
    if (!graph) return Out::failure(where + ": " + graph.error);
    if (r.batch_steps) step_families += batch_step_products(*graph);
    if (r.split_gates && !r.library_calls) gate_splits += split_gate_products(*graph);
    const TransposedSum transposed = r.transposed_sum.value_or(
        r.backend == "cpu" ? TransposedSum::output_phases : TransposedSum::phase_batches);
    auto program =
        Lowerer(r.library_calls, transposed, r.partials, r.backend == "cuda").run(*graph);
    if (!program) return Out::failure(where + ": " + program.error);
    if (written == 0) outputs = program->outputs.size();
    if (program->outputs.size() != outputs)
      return Out::failure(where + " returns a different number of outputs");
    const std::string ns = "cfg" + std::to_string(c);
    auto code = config_code(r, *program, "", options, optional);
    if (!code) return Out::failure(where + ": " + code.error);
    kernels += code->kernels;
    distinct += code->distinct;
    tables = tables || code->tables;
    graphs = graphs || code->graphs;
    reducing += code->reducing;
    library += code->library;
    ++written;
    const std::string ret = outputs == 1 ? "torch::Tensor" : "std::vector<torch::Tensor>";
    body += "namespace " + ns + " {\n\n" + code->functions + ret + " run(" + params + ") {\n" +
            code->run + "}\n\n}  // namespace " + ns + "\n\n";
    dispatch += dispatch_block(ns, conditions, call_args);
  }
  const std::string ret = outputs == 1 ? "torch::Tensor" : "std::vector<torch::Tensor>";
  const bool cuda = r.backend == "cuda";
  auto count = [&body](const char* mark) {
    size_t found = 0;
    for (auto at = body.find(mark); at != std::string::npos; at = body.find(mark, at + 1)) ++found;
    return found;
  };
  const size_t tensor_cores = count(kTensorCoreMark), contractions = count(kContractionMark);
  const size_t clusters = count(kClusterMark);
  Generated g;
  g.source =
      "// Written by kforge's kernel generator (generator/) from the task's ATen graphs: one set "
      "of\n"
      "// kernels per config, chosen by the arguments' shapes and values.\n"
      "#include <torch/extension.h>\n" +
      std::string(cuda ? "#include <ATen/cuda/CUDAContext.h>\n" : "") +
      (clusters ? "#include <cooperative_groups.h>\n" : "") +
      (tensor_cores ? "#include <mma.h>\n#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800\n#error "
                      "\"TF32 tensor cores need sm_80 or newer: generate the kernel without "
                      "tf32\"\n#endif\n"
                    : "") +
      "\n#include <cmath>\n#include <cstdint>\n#include <initializer_list>\n" +
      (graphs ? "#include <cstdio>\n#include <mutex>\n" : "") + "#include <vector>\n\n" +
      (cuda && r.cuda.fast_math ? std::string(kFastMathDefines) + "\n" : "") +
      (cuda ? "#define KF_FN static __device__ __forceinline__\n"
            : "#define KF_FN static inline\n") +
      kPrelude + (cuda ? cuda_reductions_prelude() : "") +
      (clusters ? cuda_cluster_prelude() : "") +
      (cuda ? cuda_contraction_prelude(contractions > tensor_cores, tensor_cores > 0) : "") + "\n" +
      (tables ? std::string(packed_rows_prelude()) + host_table_prelude() : "") +
      (graphs ? host_graph_prelude() : "") + kArgumentCheckPrelude + "\n" + body + ret + " " +
      r.direction + "(" + params + ") {\n" + dispatch +
      "  TORCH_CHECK(false, \"kforge generated this kernel for the task's configs; these arguments "
      "match none of them\");\n  return " +
      (outputs == 1 ? "torch::Tensor()" : "{}") + ";\n}\n\n" +
      "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {\n  m.def(\"" + r.direction + "\", &" +
      r.direction + ", \"generated by kforge\");\n}\n";
  g.library_steps = library;
  g.contractions = contractions;
  g.step_families = step_families;
  g.gate_splits = gate_splits;
  // The functions kFastMathDefines replaces, and the prelude's functions that call them (the
  // prelude itself is in every source; the kernels' own text says which they call).
  for (const char* fn : {"expf(", "logf(", "log2f(", "log10f(", "kf_sigmoid(", "kf_silu(",
                         "kf_softplus(", "kf_mish(", "kf_xlogy(", "kf_online_"})
    g.exp_or_log = g.exp_or_log || body.find(fn) != std::string::npos;
  g.summary =
      std::to_string(written) + " config(s), " + std::to_string(kernels - library) +
      " kernel(s) (" + std::to_string(reducing) + " reducing" +
      (distinct < kernels - library ? ", " + std::to_string(distinct) +
                                          " written: the others run one of them on other buffers"
                                    : "") +
      ")" + (library ? ", " + std::to_string(library) + " library call(s)" : "") +
      (tensor_cores ? ", " + std::to_string(tensor_cores) + " on the tensor cores (TF32)" : "") +
      (clusters ? ", " + std::to_string(clusters) + " sharing rows across a cluster of blocks"
                : "");
  return {std::move(g), ""};
}

}  // namespace kforge::generator
