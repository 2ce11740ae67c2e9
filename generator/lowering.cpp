#include "generator/lowering.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <set>
#include <utility>

#include "generator/expr_text.hpp"

namespace kforge::generator {

int64_t element_bytes(DType t) {
  switch (t) {
    case DType::f32:
      return 4;
    case DType::b8:
      return 1;
    case DType::i64:
    case DType::f64:
      return 8;
  }
  return 8;
}

const char* c_type(DType t) {
  switch (t) {
    case DType::f32:
      return "float";
    case DType::i64:
      return "int64_t";
    case DType::b8:
      return "bool";
    case DType::f64:
      return "double";
  }
  return "float";
}

const char* torch_type(DType t) {
  switch (t) {
    case DType::f32:
      return "torch::kFloat32";
    case DType::i64:
      return "torch::kInt64";
    case DType::b8:
      return "torch::kBool";
    case DType::f64:
      return "torch::kFloat64";
  }
  return "torch::kFloat32";
}

std::string base_name(const std::string& op) {
  const auto first = op.find('.');
  if (first == std::string::npos) return op;
  const auto second = op.find('.', first + 1);
  return op.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
}

std::vector<int64_t> ints(const json::Value& v) {
  if (v.is_integer()) return {v.as_int()};
  std::vector<int64_t> out;
  for (const auto& x : v.as_array()) out.push_back(x.as_int());
  return out;
}

std::string exact_number(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

std::string int_list_text(const std::vector<int64_t>& v) {
  std::string out = "std::vector<int64_t>{";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
  return out + "}";
}

std::optional<DType> dtype_of(const std::string& name) {
  if (name == "float32") return DType::f32;
  if (name == "int64") return DType::i64;
  if (name == "bool") return DType::b8;
  return std::nullopt;
}

namespace ex {
ExprPtr constant(double value, DType dtype) {
  Expr e;
  e.kind = Expr::Kind::constant;
  e.dtype = dtype;
  e.value = value;
  return std::make_shared<const Expr>(std::move(e));
}

ExprPtr load(int buffer, IndexPtr index, DType dtype) {
  Expr e;
  e.kind = Expr::Kind::load;
  e.dtype = dtype;
  e.buffer = buffer;
  e.index = std::move(index);
  return std::make_shared<const Expr>(std::move(e));
}

ExprPtr gather(int buffer, IndexPtr index, ExprPtr dynamic, int64_t stride, DType dtype) {
  Expr e;
  e.kind = Expr::Kind::load;
  e.dtype = dtype;
  e.buffer = buffer;
  e.index = std::move(index);
  e.dynamic_stride = stride;
  e.size += dynamic->size;
  e.args = {std::move(dynamic)};
  return std::make_shared<const Expr>(std::move(e));
}

namespace {

/// The least and greatest value an int64 element can take: a constant's, or an index's from its
/// bound and constant term; none for anything else.
std::optional<std::pair<int64_t, int64_t>> int_range(const Expr& e) {
  if (e.kind == Expr::Kind::constant && e.dtype == DType::i64) {
    const auto v = static_cast<int64_t>(e.value);
    return std::pair{v, v};
  }
  if (e.kind != Expr::Kind::index) return std::nullopt;
  const Index& i = *e.index;
  if (i.kind == Index::Kind::constant) return std::pair{i.value, i.value};
  if (i.may_be_negative) return std::nullopt;
  return std::pair{ix::constant_term(i), i.bound - 1};
}

/// A comparison of two int64 elements whose ranges decide it, else none.
std::optional<bool> decided(const std::string& fn, const Expr& a, const Expr& b) {
  const auto x = int_range(a), y = int_range(b);
  if (!x || !y) return std::nullopt;
  const auto below = [](auto p, auto q) -> std::optional<bool> {  // p < q
    if (p.second < q.first) return true;
    if (p.first >= q.second) return false;
    return std::nullopt;
  };
  const auto equal = [&]() -> std::optional<bool> {
    if (x->first == x->second && *x == *y) return true;
    if (x->second < y->first || y->second < x->first) return false;
    return std::nullopt;
  };
  const auto negate = [](std::optional<bool> v) { return v ? std::optional<bool>(!*v) : v; };
  if (fn == "lt") return below(*x, *y);
  if (fn == "gt") return below(*y, *x);
  if (fn == "ge") return negate(below(*x, *y));
  if (fn == "le") return negate(below(*y, *x));
  if (fn == "eq") return equal();
  if (fn == "ne") return negate(equal());
  return std::nullopt;
}

bool is_constant(const ExprPtr& e) {
  return e->kind == Expr::Kind::constant;
}

/// `fn(args)` where what it computes is known from constants and index bounds (a stack or
/// concatenation read at a known position: the piece there, not a selection among all of them;
/// an RNN's next layer reads each step's output so), else none.
ExprPtr folded(const std::string& fn, const std::vector<ExprPtr>& args, DType dtype) {
  if (args.size() == 2 && dtype == DType::b8)
    if (auto v = decided(fn, *args[0], *args[1])) return constant(*v ? 1 : 0, DType::b8);
  if (fn == "where" && args.size() == 3 && is_constant(args[0]))
    return cast(args[0]->value != 0 ? args[1] : args[2], dtype);
  if ((fn == "and" || fn == "or") && args.size() == 2 && dtype == DType::b8)
    for (size_t k = 0; k < 2; ++k)
      if (is_constant(args[k]) && args[1 - k]->dtype == DType::b8) {
        const bool absorbs = (args[k]->value != 0) == (fn == "or");
        return absorbs ? constant(fn == "or" ? 1 : 0, DType::b8) : args[1 - k];
      }
  return nullptr;
}

}  // namespace

ExprPtr call(std::string fn, std::vector<ExprPtr> args, DType dtype) {
  if (auto known = folded(fn, args, dtype)) return known;
  Expr e;
  e.kind = Expr::Kind::call;
  e.dtype = dtype;
  e.fn = std::move(fn);
  for (const auto& a : args) e.size += a->size;
  e.args = std::move(args);
  return std::make_shared<const Expr>(std::move(e));
}

ExprPtr index(IndexPtr i) {
  Expr e;
  e.kind = Expr::Kind::index;
  e.dtype = DType::i64;
  e.index = std::move(i);
  return std::make_shared<const Expr>(std::move(e));
}

ExprPtr cast(ExprPtr e, DType to) {
  if (e->dtype == to) return e;
  if (e->kind == Expr::Kind::constant) return constant(e->value, to);
  return call("cast", {std::move(e)}, to);
}
}  // namespace ex

std::vector<int64_t> normalise_dims(const std::vector<int64_t>& dims, size_t rank) {
  std::vector<int64_t> out;
  for (int64_t d : dims) out.push_back(d < 0 ? d + static_cast<int64_t>(rank) : d);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<int64_t> Lowerer::meta_shape(const GraphNode& node, size_t k) {
  const auto& m = node.meta.is_array() ? node.meta[k] : node.meta;
  std::vector<int64_t> shape;
  for (const auto& s : m["shape"].as_array()) shape.push_back(s.as_int());
  return shape;
}

const json::Value& Lowerer::arg(const GraphNode& node, size_t i, const char* name) const {
  if (i < node.args.as_array().size()) return node.args[i];
  return node.kwargs[name];
}

Lazy Lowerer::constant(double value, DType dtype, std::vector<int64_t> shape) {
  Lazy l;
  l.shape = std::move(shape);
  l.dtype = dtype;
  auto e = ex::constant(value, dtype);
  l.load = [e](const std::vector<IndexPtr>&) { return e; };
  return l;
}

Result<Lazy> Lowerer::tensor(const GraphNode& node, size_t i, const char* name) const {
  const auto& a = arg(node, i, name);
  if (a.is_bool()) return {constant(a.as_bool() ? 1 : 0, DType::b8), ""};
  if (a.is_integer()) return {constant(static_cast<double>(a.as_int()), DType::i64), ""};
  if (a.is_number()) return {constant(a.as_number(), DType::f32), ""};
  const auto& ref = a["node"];
  auto it = values_.find(static_cast<int>(ref.as_int(-1)));
  if (!ref.is_integer() || it == values_.end() || it->second.empty())
    return Result<Lazy>::failure("argument " + std::to_string(i) + " (" + name +
                                 ") is not a tensor the graph computed: " + a.dump());
  if (it->second.size() != 1)
    return Result<Lazy>::failure("argument " + std::to_string(i) + " is a tuple of tensors");
  return {it->second[0], ""};
}

Result<std::vector<Lazy>> Lowerer::tensors(const GraphNode& node, size_t i,
                                           const char* name) const {
  std::vector<Lazy> out;
  for (const auto& item : arg(node, i, name).as_array()) {
    GraphNode one;
    one.args = json::Array{item};
    auto t = tensor(one, 0, name);
    if (!t) return Result<std::vector<Lazy>>::failure(t.error);
    out.push_back(*t);
  }
  return {std::move(out), ""};
}

namespace {

DType promote(const std::vector<Lazy>& operands) {
  // A tensor's type wins over a number's (as in torch: x * 2.5 stays float32, i64 * 2.5 is f32).
  DType t = DType::b8;
  for (const auto& o : operands) {
    if (o.dtype == DType::f32) return DType::f32;
    if (o.dtype == DType::i64) t = DType::i64;
  }
  return t;
}

}  // namespace

Result<Lazy> Lowerer::map(const std::vector<Lazy>& operands,
                          const std::function<ExprPtr(const std::vector<ExprPtr>&)>& fn,
                          std::optional<DType> out) const {
  std::vector<int64_t> shape;
  for (const auto& o : operands) {
    if (o.shape.size() > shape.size())
      shape.insert(shape.begin(), o.shape.size() - shape.size(), 1);
    for (size_t d = 0; d < o.shape.size(); ++d) {
      int64_t& s = shape[shape.size() - o.shape.size() + d];
      if (s == 1) {
        s = o.shape[d];
      } else if (o.shape[d] != 1 && o.shape[d] != s) {
        return Result<Lazy>::failure("operands of shapes that do not broadcast");
      }
    }
  }
  const DType compute = promote(operands);
  Lazy l;
  l.shape = shape;
  l.dtype = out.value_or(compute);
  for (const auto& o : operands) l.cost += o.cost;
  l.load = [operands, shape, fn, compute](const std::vector<IndexPtr>& index) {
    std::vector<ExprPtr> values;
    for (const auto& o : operands) {
      std::vector<IndexPtr> at;
      for (size_t d = 0; d < o.shape.size(); ++d)
        at.push_back(o.shape[d] == 1 ? ix::constant(0) : index[shape.size() - o.shape.size() + d]);
      values.push_back(ex::cast(o.load(at), compute));
    }
    return fn(values);
  };
  return {std::move(l), ""};
}

Lazy Lowerer::map1(const Lazy& a, const std::function<ExprPtr(ExprPtr)>& fn) const {
  Lazy l = a;
  l.buffer = -1;
  l.cost = a.cost + 1;
  auto inner = a.load;
  l.load = [inner, fn](const std::vector<IndexPtr>& index) { return fn(inner(index)); };
  return l;
}

Lazy Lowerer::reshape(const Lazy& a, const std::vector<int64_t>& shape) {
  if (shape == a.shape) return a;
  Lazy l = a;
  l.buffer = -1;
  l.shape = shape;
  auto inner = a.load;
  std::vector<int64_t> from_kept, to_kept;
  for (int64_t s : a.shape)
    if (s != 1) from_kept.push_back(s);
  for (int64_t s : shape)
    if (s != 1) to_kept.push_back(s);
  const auto from = a.shape;
  if (from_kept == to_kept) {  // only dimensions of size 1 come or go
    l.load = [inner, from, shape](const std::vector<IndexPtr>& index) {
      std::vector<IndexPtr> kept, at;
      for (size_t d = 0; d < shape.size(); ++d)
        if (shape[d] != 1) kept.push_back(index[d]);
      size_t k = 0;
      for (int64_t s : from) at.push_back(s == 1 ? ix::constant(0) : kept[k++]);
      return inner(at);
    };
    return l;
  }
  l.load = [inner, from, shape](const std::vector<IndexPtr>& index) {
    return inner(ix::delinear(ix::linear(index, shape), from));
  };
  return l;
}

Lazy Lowerer::constant_tensor(const json::Value& values, DType dtype,
                              const std::vector<int64_t>& shape) {
  std::vector<double> v;
  for (const auto& x : values.as_array())
    v.push_back(x.is_bool() ? (x.as_bool() ? 1 : 0) : x.as_number());
  if (v.size() == 1) return constant(v[0], dtype, shape);
  Lazy l;
  l.shape = shape;
  l.dtype = dtype;
  l.cost = v.size();
  l.load = [v, shape, dtype](const std::vector<IndexPtr>& index) {
    auto at = ex::index(ix::linear(index, shape));
    ExprPtr out = ex::constant(v.empty() ? 0 : v.back(), dtype);
    for (size_t k = v.size() - 1; k-- > 0;)
      out = ex::call(
          "where",
          {ex::call("eq", {at, ex::constant(static_cast<double>(k), DType::i64)}, DType::b8),
           ex::constant(v[k], dtype), out},
          dtype);
    return out;
  };
  return l;
}

Lazy Lowerer::whole(const Buffer& b) {
  Lazy l;
  l.shape = b.shape;
  l.dtype = b.dtype;
  l.buffer = b.id;
  const int id = b.id;
  const auto shape = b.shape;
  const DType t = b.dtype;
  l.load = [id, shape, t](const std::vector<IndexPtr>& index) {
    return ex::load(id, ix::linear(index, shape), t);
  };
  return l;
}

Lazy Lowerer::scan(const Lazy& a, int64_t dim, Combine combine, bool reverse, bool exclusive) {
  if (a.shape.empty()) return a;  // a 0-d tensor is its own cumulative sum or product
  Buffer b;
  b.kind = Buffer::Kind::scan;
  b.id = static_cast<int>(program_.buffers.size());
  b.shape = a.shape;
  b.space = a.shape;
  b.reduced.assign(a.shape.size(), false);
  b.reduced[static_cast<size_t>(dim)] = true;
  b.combine = combine;
  b.reverse = reverse;
  b.exclusive = exclusive;
  b.dtype = a.dtype;
  b.compute = a.load;
  program_.buffers.push_back(b);
  return whole(program_.buffers.back());
}

const Buffer* Lowerer::scan_of(const Lazy& a) const {
  if (a.buffer < 0) return nullptr;
  const Buffer& b = program_.buffers[static_cast<size_t>(a.buffer)];
  return b.kind == Buffer::Kind::scan && a.shape == b.shape ? &b : nullptr;
}

Lazy Lowerer::merged(const Lazy& sum, const std::vector<int64_t>& shape) {
  if (sum.buffer < 0 || numel(sum.shape) != numel(shape)) return reshape(sum, shape);
  Buffer& b = program_.buffers[static_cast<size_t>(sum.buffer)];
  if (b.kind != Buffer::Kind::reduction || numel(b.shape) != numel(shape))
    return reshape(sum, shape);
  b.shape = shape;
  return whole(b);
}

Lazy Lowerer::realise(const Lazy& a) {
  if (a.buffer >= 0) return a;
  Buffer b;
  b.kind = Buffer::Kind::pointwise;
  b.id = static_cast<int>(program_.buffers.size());
  b.shape = a.shape;
  b.dtype = a.dtype;
  b.compute = a.load;
  program_.buffers.push_back(b);
  place_pieces(b.id, a);
  return whole(program_.buffers[static_cast<size_t>(b.id)]);
}

Lazy Lowerer::realise_shared(const Lazy& a) {
  if (a.buffer >= 0) return a;
  for (const auto& [made, buffer] : shared_)
    if (made.load.same(a.load) && made.shape == a.shape && made.dtype == a.dtype)
      return whole(program_.buffers[static_cast<size_t>(buffer)]);
  Lazy out = realise(a);
  shared_.emplace_back(a, out.buffer);
  return out;
}

std::optional<std::vector<bool>> Lowerer::placeable(const Lazy& stack) const {
  if (!stack.stacked || !stack.stacked->of.same(stack.load) ||
      stack.stacked->shape != stack.shape || stack.stacked->dtype != stack.dtype)
    return std::nullopt;
  const auto& parts = stack.stacked->parts;
  const auto n = static_cast<int64_t>(parts.size());
  if (n == 0 || numel(stack.shape) % n != 0) return std::nullopt;
  const int64_t size = numel(stack.shape) / n;
  // each piece's offset a multiple of 16 bytes: the kernels' vector loads and stores take what
  // they store as aligned (generator/emit_cuda.cpp)
  if (size * element_bytes(stack.dtype) % 16 != 0) return std::nullopt;
  std::set<int> taken;
  std::vector<bool> own(parts.size());
  for (size_t k = 0; k < parts.size(); ++k) {
    const Lazy& part = parts[k];
    if (part.dtype != stack.dtype || numel(part.shape) != size) return std::nullopt;
    const Buffer* b =
        part.buffer >= 0 ? &program_.buffers[static_cast<size_t>(part.buffer)] : nullptr;
    own[k] = b && b->kind != Buffer::Kind::input && b->kind != Buffer::Kind::library &&
             b->within < 0 && b->pieces.empty() && taken.insert(b->id).second &&
             std::count(program_.outputs.begin(), program_.outputs.end(), b->id) == 0;
  }
  return own;
}

bool Lowerer::place_pieces(int stack, const Lazy& a) {
  const auto own = placeable(a);
  if (!own) return false;
  const auto& parts = a.stacked->parts;
  const auto copies = static_cast<size_t>(std::count(own->begin(), own->end(), false));
  if (copies > kCopiedPieces || copies == parts.size()) return false;
  std::vector<int> pieces;
  std::vector<Lazy> wholes;
  for (size_t k = 0; k < parts.size(); ++k) {
    Lazy part = parts[k];
    if (!(*own)[k]) {
      part.buffer = -1;
      part.stacked = nullptr;
      part = realise(part);
    }
    Buffer& b = program_.buffers[static_cast<size_t>(part.buffer)];
    b.within = stack;
    b.within_dim = static_cast<int64_t>(a.stacked->dim);
    b.within_index = static_cast<int64_t>(k);
    pieces.push_back(b.id);
    wholes.push_back(part);
  }
  Buffer& s = program_.buffers[static_cast<size_t>(stack)];
  s.pieces = std::move(pieces);
  s.compute = stack_loader(std::move(wholes), a.stacked->dim);  // the copies read, not their values
  return true;
}

const GraphNode* Lowerer::node_of(const json::Value& argument) const {
  if (!argument.is_object() || !argument["node"].is_integer()) return nullptr;
  auto it = nodes_.find(static_cast<int>(argument["node"].as_int()));
  return it == nodes_.end() ? nullptr : it->second;
}

std::optional<double> Lowerer::number_factor(const GraphNode& node) const {
  const std::string op = base_name(node.op);
  const json::Value& number = arg(node, 1, "other");
  if (!number.is_number()) return std::nullopt;
  if (op == "mul") return number.as_number();
  // a division that rounds (floor, trunc) is not a factor
  if (op == "div" && arg(node, 2, "rounding_mode").as_string().empty() && number.as_number() != 0)
    return 1 / number.as_number();
  return std::nullopt;
}

Result<std::string> Lowerer::library_operand(const GraphNode& node, size_t i, const char* name,
                                             std::vector<int>& operands, double* factor) {
  auto value = tensor(node, i, name);
  if (!value) return Result<std::string>::failure(value.error);
  if (value->dtype != DType::f32)
    return Result<std::string>::failure("a library call takes float32 operands");
  auto buffer_text = [&](int id) {
    operands.push_back(id);
    return "t" + std::to_string(id);
  };
  if (value->buffer >= 0) return {buffer_text(value->buffer), ""};
  // Views of a buffer (a linear layer's weight.t()): the same views of its tensor, no copy. Where
  // the caller takes a factor, multiplications by a number on the way (attention's
  // `key.transpose(-2, -1) * scale`) go into it instead of a pass that writes the scaled copy.
  std::string views;
  double scale = 1;
  for (const GraphNode* at = node_of(arg(node, i, name)); at;) {
    const std::string op = base_name(at->op);
    const std::string shape = int_list_text(meta_shape(*at));
    auto source = tensor(*at, 0, "self");
    if (!source) break;
    const auto rank = static_cast<int64_t>(source->shape.size());
    auto dim_of = [&](int64_t d) { return d < 0 ? d + rank : d; };
    const std::optional<double> by = factor ? number_factor(*at) : std::nullopt;
    if (by && std::abs(scale * *by) >= 1e-6 && std::abs(scale * *by) <= 1e6) {
      // (within a range where the product, scaled afterwards, rounds and overflows as eager's)
      scale *= *by;
    } else if (op == "clone" || op == "contiguous" || op == "alias") {
      // the same values (a copy the library does not need)
    } else if (op == "slice" && arg(*at, 4, "step").as_int(1) == 1 && rank > 0) {
      // a slice of step 1 is a narrow: its start (clamped as Python's) and the recorded length
      const int64_t d = dim_of(arg(*at, 1, "dim").as_int(0));
      if (d < 0 || d >= rank) break;
      const int64_t size = source->shape[static_cast<size_t>(d)];
      int64_t start = arg(*at, 2, "start").as_int(0);
      start = std::clamp<int64_t>(start < 0 ? start + size : start, 0, size);
      views = ".narrow(" + std::to_string(d) + ", " + std::to_string(start) + ", " +
              std::to_string(meta_shape(*at)[static_cast<size_t>(d)]) + ")" + views;
    } else if (op == "select" && rank > 0) {
      views = ".select(" + std::to_string(dim_of(arg(*at, 1, "dim").as_int(0))) + ", " +
              std::to_string(arg(*at, 2, "index").as_int(0)) + ")" + views;
    } else if (op == "t") {
      views = ".t()" + views;
    } else if (op == "transpose") {
      views = ".transpose(" + std::to_string(arg(*at, 1, "dim0").as_int()) + ", " +
              std::to_string(arg(*at, 2, "dim1").as_int()) + ")" + views;
    } else if (op == "permute") {
      views = ".permute(" + int_list_text(ints(arg(*at, 1, "dims"))) + ")" + views;
    } else if (op == "expand") {
      views = ".expand(" + shape + ")" + views;
    } else if (op == "view" || op == "_unsafe_view" || op == "_reshape_alias" || op == "reshape" ||
               op == "unsqueeze" || op == "squeeze" || op == "flatten") {
      views = ".reshape(" + shape + ")" + views;
    } else {
      break;
    }
    if (source->buffer >= 0 && source->dtype == DType::f32) {
      if (factor) *factor *= scale;
      return {buffer_text(source->buffer) + views, ""};
    }
    at = node_of(arg(*at, 0, "self"));
  }
  return {buffer_text(realise(*value).buffer), ""};
}

Lazy Lowerer::library(std::string call, std::vector<int> operands, std::vector<int64_t> shape) {
  // The same call on the same buffers is the same tensor (`(x / 3) @ w` beside `(x * 1.5) @ w`,
  // their factors taken out): computed once.
  for (const auto& b : program_.buffers)
    if (b.kind == Buffer::Kind::library && !b.view && b.call == call && b.shape == shape)
      return whole(b);
  Buffer b;
  b.kind = Buffer::Kind::library;
  b.id = static_cast<int>(program_.buffers.size());
  b.shape = std::move(shape);
  b.call = std::move(call);
  b.operands = std::move(operands);
  program_.buffers.push_back(b);
  return whole(b);
}

std::optional<Lazy> Lowerer::library_view(const Lazy& a) {
  const auto vars = ix::vars(a.shape);
  const ExprPtr e = a.load(vars);
  if (e->kind != Expr::Kind::load || !e->args.empty()) return std::nullopt;
  const Buffer& source = program_.buffers[static_cast<size_t>(e->buffer)];
  if (source.kind != Buffer::Kind::library || source.dtype != a.dtype ||
      numel(source.shape) != numel(a.shape) || e->index->text != ix::linear(vars, a.shape)->text ||
      std::count(program_.outputs.begin(), program_.outputs.end(), source.id) > 0)
    return std::nullopt;
  for (const auto& b : program_.buffers)  // one output a result: outputs never share memory
    if (b.view && b.operands.front() == source.id) return std::nullopt;
  Lazy view = library("t" + std::to_string(source.id) + ".view(" + int_list_text(a.shape) + ")",
                      {source.id}, a.shape);
  program_.buffers.back().view = true;
  return view;
}

namespace {

/// How many chunks a reduction with few outputs is split into (1: none). Its parallelism is its
/// outputs times up to a block of threads each where the innermost dimension is reduced (rows read
/// contiguously), else one thread each (columns). Split under 32768 lanes; rows of 65536
/// elements or more under 131072, since a block a long row leaves most of a GPU idle for long
/// below a few hundred rows (a batch norm over 128 channels of a million elements each ran as 128
/// blocks: 0.54x of eager; shorter rows keep their one pass, softmax's online one too). The reduced
/// elements are cut into chunks of at least 64 until there are about `partials` (outputs x
/// chunks; 0: Lowerer's rule for rows or columns), a few less where that makes the chunks equal.
int64_t split_count(const Buffer& b, int64_t partials) {
  if (b.combine == Combine::argmax || b.combine == Combine::argmin || b.space.empty()) return 1;
  int64_t outer = 1, reduced = 1;
  for (size_t d = 0; d < b.space.size(); ++d) (b.reduced[d] ? reduced : outer) *= b.space[d];
  const bool rows = b.reduced.back();
  const int64_t lanes = rows ? outer * std::min<int64_t>(reduced, 256) : outer;
  const bool long_rows = rows && reduced >= 65536;
  if (lanes >= (long_rows ? 131072 : 32768) || reduced < 1024) return 1;
  if (partials <= 0) partials = rows ? Lowerer::kRowPartials : Lowerer::kColumnPartials;
  int64_t split = 1;
  while (split * 2 <= reduced / 64 && split * 2 * outer <= partials) split *= 2;
  // A divisor of the reduced elements not far below: chunks of equal size need no bound check.
  for (int64_t d = split; d > split / 2; --d)
    if (reduced % d == 0) return d;
  return split;
}

/// What the combination of no elements is.
double identity_of(Combine c) {
  switch (c) {
    case Combine::prod:
      return 1;
    case Combine::max:
      return -std::numeric_limits<double>::infinity();
    case Combine::min:
      return std::numeric_limits<double>::infinity();
    default:
      return 0;
  }
}

}  // namespace

bool Lowerer::splits(const std::vector<int64_t>& shape, const std::vector<int64_t>& dims) const {
  Buffer b;
  b.space = shape;
  b.reduced.assign(shape.size(), dims.empty());
  for (int64_t d : normalise_dims(dims, shape.size())) b.reduced[static_cast<size_t>(d)] = true;
  return split_count(b, partials_) > 1;
}

void Lowerer::split_reduction(Buffer& b) {
  const int64_t split = split_count(b, partials_);
  if (split == 1) return;
  // The partial results: the reduced elements, flattened, cut into `split` chunks, each combined
  // over its elements; then `b` combines the chunks. Rows stay rows: [kept..., split, chunk],
  // the chunk innermost. Columns stay columns, [split, chunk, kept...], so that neighbouring
  // threads still read neighbouring outputs' elements (a chunk innermost made each thread of a
  // column's block read a different row: a sector of 32 bytes for every 4 used).
  const bool rows = b.reduced.back();
  std::vector<int64_t> kept, reduced_shape;
  for (size_t d = 0; d < b.space.size(); ++d)
    (b.reduced[d] ? reduced_shape : kept).push_back(b.space[d]);
  const int64_t total = numel(reduced_shape);
  const int64_t chunk = (total + split - 1) / split;
  Buffer part;
  part.kind = Buffer::Kind::reduction;
  part.id = static_cast<int>(program_.buffers.size());
  // A float sum's chunks keep their double accumulators: rounded to float, each chunk's result
  // (a sum of thousands of terms, far larger than the total where they cancel) was off by half a
  // float step, and the total by several, beyond rtol where the total is near zero
  // (robust-kbench's llama_rmsnorm backward: the weight's gradient, 65536 rows in 32 chunks).
  part.dtype = b.dtype == DType::f32 && b.combine == Combine::sum ? DType::f64 : b.dtype;
  part.combine = b.combine;
  if (rows) {
    part.space = kept;
    part.space.push_back(split);
    part.shape = part.space;
    part.space.push_back(chunk);
    part.reduced.assign(part.space.size(), false);
    part.reduced.back() = true;
  } else {
    part.shape = {split};
    part.shape.insert(part.shape.end(), kept.begin(), kept.end());
    part.space = {split, chunk};
    part.space.insert(part.space.end(), kept.begin(), kept.end());
    part.reduced.assign(part.space.size(), false);
    part.reduced[1] = true;
  }
  const auto element = b.compute;
  const auto reduced = b.reduced;
  const double identity = identity_of(b.combine);
  part.compute = [=](const std::vector<IndexPtr>& v) {
    // v over part.space: where the chunk and its number are, and where the kept dimensions start
    const size_t chunk_at = rows ? v.size() - 1 : 1, first_kept = rows ? 0 : 2;
    const IndexPtr flat = ix::add(ix::mul(v[chunk_at - 1], chunk), v[chunk_at]);
    const auto r = ix::delinear(flat, reduced_shape);
    std::vector<IndexPtr> at;
    size_t a = first_kept, c = 0;
    for (bool is_reduced : reduced) at.push_back(is_reduced ? r[c++] : v[a++]);
    ExprPtr e = element(at);
    if (chunk * split == total) return e;
    auto inside = ex::call(
        "lt", {ex::index(flat), ex::constant(static_cast<double>(total), DType::i64)}, DType::b8);
    return ex::call("where", {inside, e, ex::constant(identity, e->dtype)}, e->dtype);
  };
  program_.buffers.push_back(part);
  const int id = part.id;
  const auto part_shape = part.shape;
  b.id = static_cast<int>(program_.buffers.size());
  b.space = part_shape;
  b.reduced.assign(b.space.size(), false);
  (rows ? b.reduced.back() : b.reduced.front()) = true;
  b.compute = [id, part_shape, dtype = part.dtype](const std::vector<IndexPtr>& v) {
    return ex::load(id, ix::linear(v, part_shape), dtype);
  };
}

Lazy Lowerer::reduce(const Lazy& a, std::vector<int64_t> dims, bool keepdim, Combine combine,
                     double scale) {
  if (a.shape.empty()) return reshape(reduce(reshape(a, {1}), {0}, false, combine, scale), {});
  dims = normalise_dims(dims, a.shape.size());
  Buffer b;
  b.kind = Buffer::Kind::reduction;
  b.id = static_cast<int>(program_.buffers.size());
  b.space = a.shape;
  b.reduced.assign(a.shape.size(), dims.empty());
  for (int64_t d : dims) b.reduced[static_cast<size_t>(d)] = true;
  b.combine = combine;
  b.scale = scale;
  b.dtype = combine == Combine::argmax || combine == Combine::argmin ? DType::i64 : a.dtype;
  b.compute = a.load;
  std::vector<int64_t> outer;
  for (size_t d = 0; d < a.shape.size(); ++d) {
    if (!b.reduced[d]) {
      b.shape.push_back(a.shape[d]);
      outer.push_back(a.shape[d]);
    } else if (keepdim) {
      b.shape.push_back(1);
    }
  }
  const auto reduced = b.reduced;
  // The same reduction made earlier: read its buffer.
  std::vector<IndexPtr> probe;
  std::string signature = std::to_string(static_cast<int>(combine)) + " " + exact_number(scale) +
                          " " + std::to_string(keepdim);
  for (size_t d = 0; d < b.space.size(); ++d) {
    probe.push_back(ix::named("kf_r" + std::to_string(d) + "_", b.space[d]));
    signature += " " + std::to_string(b.space[d]) + (b.reduced[d] ? "r" : "");
  }
  signature += " " + memory_text(b.compute(probe));
  auto known = reductions_.find(signature);
  if (known == reductions_.end()) {
    split_reduction(b);  // may add a buffer of partial results first, and renumber b
    program_.buffers.push_back(b);
    known = reductions_.emplace(signature, b.id).first;
  }
  Lazy l;
  l.shape = b.shape;
  l.dtype = b.dtype;
  l.buffer = known->second;
  const int id = known->second;
  const DType dtype = b.dtype;
  const auto shape = b.shape;
  l.load = [id, dtype, shape, outer, reduced, keepdim](const std::vector<IndexPtr>& index) {
    std::vector<IndexPtr> at;
    if (keepdim) {
      for (size_t d = 0; d < reduced.size(); ++d)
        if (!reduced[d]) at.push_back(index[d]);
    } else {
      at = index;
    }
    return ex::load(id, ix::linear(at, outer), dtype);
  };
  return l;
}

std::string Lowerer::out_of_place_name(const std::string& op) {
  const auto overload = op.rfind('.');
  if (overload == std::string::npos || overload == 0 || op[overload - 1] != '_') return "";
  return op.substr(0, overload - 1) + op.substr(overload);
}

bool Lowerer::overwritten_before_read(int target) const {
  for (const GraphNode* m : aliases_->readers(target)) {
    const std::string op = base_name(m->op);
    if (references_to(*m, target) != 1 || m->args[0]["node"].as_int(-1) != target) return false;
    // copied into whole, or moved (to the meta device the export traced on) and then that
    if (op != "copy" && op != "copy_" &&
        ((op != "_to_copy" && op != "to") || !overwritten_before_read(m->id)))
      return false;
  }
  return true;
}

std::optional<int64_t> Lowerer::known_position(const GraphNode& n) const {
  const auto& readers = aliases_->readers(n.id);
  if (readers.empty()) return std::nullopt;
  const auto rank = static_cast<int64_t>(meta_shape(n).size());
  std::optional<int64_t> dim;
  for (const GraphNode* m : readers) {
    if (references_to(*m, n.id) != 1) return std::nullopt;
    const std::string op = base_name(m->op);
    const int64_t given = arg(*m, 1, "dim").as_int(0);
    int64_t d = 0;
    if (op == "unbind" || op == "select") {
      if (m->args[0]["node"].as_int(-1) != n.id) return std::nullopt;
      if (op == "select" && !arg(*m, 2, "index").is_integer()) return std::nullopt;
      d = given < 0 ? given + rank : given;
    } else if (op == "cat" || op == "stack") {
      const auto inner = known_position(*m);  // in m's dimensions
      if (!inner) return std::nullopt;
      const int64_t own = given < 0 ? given + rank + (op == "stack") : given;
      if (op == "stack" && *inner == own) return std::nullopt;  // n read whole, as a piece
      d = op == "stack" && *inner > own ? *inner - 1 : *inner;
    } else if (op == "transpose" || op == "permute" || op == "slice") {
      // a view whose reader takes it at a known position (a batch-first RNN's last step:
      // out.transpose(0, 1)[:, -1]): that dimension of n, unless a slice shifts it
      if (m->args[0]["node"].as_int(-1) != n.id) return std::nullopt;
      const auto inner = known_position(*m);
      if (!inner) return std::nullopt;
      const auto norm = [rank](int64_t x) { return x < 0 ? x + rank : x; };
      d = *inner;
      if (op == "transpose") {
        const int64_t a = norm(given), b = norm(arg(*m, 2, "dim1").as_int(0));
        d = d == a ? b : d == b ? a : d;
      } else if (op == "permute") {
        const auto order = ints(arg(*m, 1, "dims"));
        if (static_cast<size_t>(d) >= order.size()) return std::nullopt;
        d = norm(order[static_cast<size_t>(d)]);
      } else if (norm(given) == d) {
        return std::nullopt;
      }
    } else {
      return std::nullopt;
    }
    if (dim && *dim != d) return std::nullopt;
    dim = d;
  }
  return dim;
}

bool Lowerer::folds_at(const GraphNode& n, int64_t d) const {
  const std::string op = base_name(n.op);
  const auto rank = static_cast<int64_t>(meta_shape(n).size());
  const int64_t given = arg(n, 1, "dim").as_int(0);
  const int64_t own = given < 0 ? given + rank : given;
  if (op == "transpose" || op == "permute" || op == "slice") {  // a view of one that folds
    auto it = nodes_.find(static_cast<int>(n.args[0]["node"].as_int(-1)));
    if (it == nodes_.end()) return false;
    if (op == "transpose") {
      const int64_t other = arg(n, 2, "dim1").as_int(0), b = other < 0 ? other + rank : other;
      return folds_at(*it->second, d == own ? b : d == b ? own : d);
    }
    if (op == "permute") {
      const auto order = ints(arg(n, 1, "dims"));
      if (static_cast<size_t>(d) >= order.size()) return false;
      const int64_t from = order[static_cast<size_t>(d)];
      return folds_at(*it->second, from < 0 ? from + rank : from);
    }
    return own != d && folds_at(*it->second, d);
  }
  if (op != "stack" && op != "cat") return false;
  if (own == d) return true;
  const auto& parts = arg(n, 0, "tensors");
  if (!parts.is_array() || parts.as_array().empty()) return false;
  for (const auto& p : parts.as_array()) {
    auto it = nodes_.find(static_cast<int>(p["node"].as_int(-1)));
    if (it == nodes_.end() || !folds_at(*it->second, op == "stack" && d > own ? d - 1 : d))
      return false;
  }
  return true;
}

bool Lowerer::read_by_the_piece(const GraphNode& n) const {
  const std::string op = base_name(n.op);
  if (op != "stack" && op != "cat" && op != "transpose" && op != "permute" && op != "slice")
    return false;
  const auto d = known_position(n);
  return d && folds_at(n, *d);
}

bool Lowerer::in_place_and_unread(const GraphNode& n) {
  const int target = Aliases::changed_by(n);
  return target >= 0 && aliases_->users(n.id) == 0 && aliases_->users(target) == 1;
}

Result<Program> Lowerer::run(const Graph& graph) {
  program_ = Program{};
  values_.clear();
  nodes_.clear();
  for (const auto& n : graph.nodes) nodes_[n.id] = &n;
  aliases_.emplace(graph);
  const Aliases& aliases = *aliases_;
  whole_stack_parts_.clear();
  for (const auto& n : graph.nodes) {
    if (base_name(n.op) != "stack") continue;
    const auto& parts = arg(n, 0, "tensors");
    if (!parts.is_array() || parts.as_array().size() < kManyPieces || read_by_the_piece(n))
      continue;
    for (const auto& p : parts.as_array())
      if (p.is_object() && p["node"].is_integer())
        whole_stack_parts_.insert(static_cast<int>(p["node"].as_int()));
  }
  auto fail = [](const GraphNode& n, const std::string& why) {
    return Result<Program>::failure("node " + std::to_string(n.id) + " (" + n.op + "): " + why);
  };
  for (const auto& n : graph.nodes) {
    if (n.op == "input") {
      auto dtype = dtype_of(n.meta["dtype"].as_string());
      if (!dtype)
        return fail(n, "the generator takes float32, int64 and bool tensors, not " +
                           n.meta["dtype"].as_string());
      Buffer b;
      b.kind = Buffer::Kind::input;
      b.id = static_cast<int>(program_.buffers.size());
      b.shape = meta_shape(n);
      b.dtype = *dtype;
      b.arg = n.arg;
      b.element = n.element;
      program_.buffers.push_back(b);
      values_[n.id] = {whole(b)};
    } else if (n.op == "getitem") {
      auto it = values_.find(static_cast<int>(n.args[0]["node"].as_int(-1)));
      const auto k = static_cast<size_t>(n.args[1].as_int(-1));
      if (it == values_.end() || k >= it->second.size())
        return fail(n, "an item of a tuple the generator did not lower");
      values_[n.id] = {it->second[k]};
    } else if (n.op == "output") {
      for (size_t i = 0; i < n.args.as_array().size(); ++i) {
        auto t = tensor(n, i, "");
        if (!t) return fail(n, t.error);
        Lazy l = *t;
        const bool own =
            l.buffer >= 0 &&
            program_.buffers[static_cast<size_t>(l.buffer)].kind != Buffer::Kind::input &&
            program_.buffers[static_cast<size_t>(l.buffer)].within < 0 &&
            std::count(program_.outputs.begin(), program_.outputs.end(), l.buffer) == 0;
        if (!own) {  // an output of its own, never an argument's memory or another output's
          auto view = library_view(l);
          l.buffer = -1;
          l = view ? *view : realise(l);
        }
        program_.outputs.push_back(l.buffer);
      }
    } else if (n.op == "constant") {
      auto dtype = dtype_of(n.meta["dtype"].as_string());
      if (dtype && n.value.is_array())
        values_[n.id] = {constant_tensor(n.value, *dtype, meta_shape(n))};
      else if (dtype && overwritten_before_read(n.id))  // never read: a placeholder
        values_[n.id] = {constant(0, *dtype, meta_shape(n))};
      else
        return fail(
            n, "a tensor the function creates from data (" + n.name +
                   "): the export did not record its values (it records up to 16 elements, made "
                   "from data the tracer can see)");
    } else if (const int stale = aliases.stale_read(n); stale >= 0) {
      // `out += identity`: later code reads the result, the same tensor, so a change is computed
      // out of place, unless a later node reads the changed memory under an older name.
      return fail(n, "an in-place change of a tensor the function reads again afterwards (node " +
                         std::to_string(stale) + ", " + nodes_[stale]->op +
                         ", reads what it changes through the tensor before the change, a tensor "
                         "it is a view of, or another view of that; the generator computes such "
                         "a change out of place)");
    } else if (in_place_and_unread(n)) {
      values_[n.id] = {};  // bookkeeping on a buffer nobody reads (num_batches_tracked += 1)
    } else {
      Lowering lower = lowering_of(n.op);
      const std::string functional = out_of_place_name(n.op);
      if (!lower && !functional.empty()) lower = lowering_of(functional);
      if (!lower) return fail(n, "the generator cannot lower " + n.op + " yet");
      GraphNode as_called = n;
      if (!functional.empty() && !lowering_of(n.op)) as_called.op = functional;
      auto out = lower(*this, as_called);
      if (!out) return fail(n, out.error);
      // A costly value read more than once is computed once; a stack or concatenation read only
      // piece by piece is never computed whole (its readers fold to the piece they read).
      const bool whole = !read_by_the_piece(n);
      if (whole && out->size() == 1 && aliases.users(n.id) > 1 && (*out)[0].cost > 24)
        (*out)[0] = realise((*out)[0]);
      if (whole && out->size() == 1 && (*out)[0].cost > 400) (*out)[0] = realise((*out)[0]);
      if (whole && out->size() == 1 && (*out)[0].buffer < 0 && aliases.users(n.id) > 1 &&
          whole_stack_parts_.count(n.id))
        (*out)[0] = realise((*out)[0]);
      // A stack of buffers of ours, placed in it, costs nothing: its readers read one buffer
      // rather than each piece (a bidirectional RNN's output, the concatenation of two stacks);
      // of many, a few copies cost less than a kernel reading every piece (its last step, read
      // by the stack alone, is not a buffer).
      if (whole && out->size() == 1 && (*out)[0].buffer < 0) {
        const auto own = placeable((*out)[0]);
        const auto copies = own ? std::count(own->begin(), own->end(), false) : 0;
        if (own && (copies == 0 || (own->size() - static_cast<size_t>(copies) >= kManyPieces &&
                                    static_cast<size_t>(copies) <= kCopiedPieces)))
          (*out)[0] = realise((*out)[0]);
      }
      values_[n.id] = std::move(*out);
    }
  }
  return {std::move(program_), ""};
}

}  // namespace kforge::generator
