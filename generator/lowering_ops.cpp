// The op table: how each ATen operator the generator knows lowers to lazy tensors (pointwise
// expressions, views, reductions and the norms, softmaxes and losses built from them).
#include <cmath>
#include <limits>
#include <map>

#include "generator/lowering.hpp"

namespace kforge::generator {
namespace {

using Out = Result<std::vector<Lazy>>;
using Exprs = std::vector<ExprPtr>;

Out one(const Result<Lazy>& r) {
  if (!r) return Out::failure(r.error);
  return {std::vector<Lazy>{*r}, ""};
}

Out many(std::vector<Lazy> values) {
  return {std::move(values), ""};
}

ExprPtr f(const char* fn, Exprs args, DType t = DType::f32) {
  return ex::call(fn, std::move(args), t);
}
ExprPtr num(double v) {
  return ex::constant(v);
}

double number_or(const json::Value& v, double fallback) {
  return v.is_number() ? v.as_number() : fallback;
}

// ---- pointwise ----

/// Operators computed by one function of one float operand (the emitter's kf_<name>).
const std::map<std::string, const char*>& float_unary() {
  static const std::map<std::string, const char*> table = {
      {"exp", "exp"},     {"exp2", "exp2"},
      {"expm1", "expm1"}, {"log", "log"},
      {"log2", "log2"},   {"log10", "log10"},
      {"log1p", "log1p"}, {"sqrt", "sqrt"},
      {"rsqrt", "rsqrt"}, {"reciprocal", "reciprocal"},
      {"sin", "sin"},     {"cos", "cos"},
      {"tan", "tan"},     {"asin", "asin"},
      {"acos", "acos"},   {"atan", "atan"},
      {"sinh", "sinh"},   {"cosh", "cosh"},
      {"tanh", "tanh"},   {"sigmoid", "sigmoid"},
      {"erf", "erf"},     {"erfc", "erfc"},
      {"floor", "floor"}, {"ceil", "ceil"},
      {"round", "round"}, {"trunc", "trunc"},
      {"sign", "sign"},   {"sgn", "sign"},
      {"silu", "silu"},   {"mish", "mish"},
      {"frac", "frac"}};
  return table;
}

Out lower_float_unary(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  const char* fn = float_unary().at(base_name(n.op));
  return one(L.map(
      {*x}, [fn](const Exprs& a) { return f(fn, {a[0]}); }, DType::f32));
}

/// neg, abs and relu keep an integer tensor's type.
Out lower_typed_unary(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  const std::string fn = base_name(n.op);
  const DType t = x->dtype == DType::b8 ? DType::i64 : x->dtype;
  return many({L.map1(*x, [fn, t](ExprPtr a) { return ex::call(fn, {ex::cast(a, t)}, t); })});
}

Out lower_gelu(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  const bool tanh = L.arg(n, 1, "approximate").as_string("none") == "tanh";
  return one(L.map(
      {*x}, [tanh](const Exprs& a) { return f(tanh ? "gelu_tanh" : "gelu", {a[0]}); }, DType::f32));
}

/// Operators of two operands written in C as an operator or a function.
const std::map<std::string, const char*>& binary() {
  static const std::map<std::string, const char*> table = {{"mul", "mul"},
                                                           {"maximum", "max2"},
                                                           {"minimum", "min2"},
                                                           {"fmod", "fmod"},
                                                           {"remainder", "remainder"},
                                                           {"atan2", "atan2"},
                                                           {"pow", "pow"},
                                                           {"lt", "lt"},
                                                           {"gt", "gt"},
                                                           {"le", "le"},
                                                           {"ge", "ge"},
                                                           {"eq", "eq"},
                                                           {"ne", "ne"},
                                                           {"logical_and", "and"},
                                                           {"logical_or", "or"},
                                                           {"logical_xor", "ne"},
                                                           {"bitwise_and", "and"},
                                                           {"bitwise_or", "or"},
                                                           {"xlogy", "xlogy"}};
  return table;
}

bool compares(const std::string& fn) {
  return fn == "lt" || fn == "gt" || fn == "le" || fn == "ge" || fn == "eq" || fn == "ne" ||
         fn == "and" || fn == "or";
}

Out lower_binary(Lowerer& L, const GraphNode& n) {
  const std::string name = base_name(n.op);
  auto a = L.tensor(n, 0, "self");
  auto b = L.tensor(n, 1, "other");
  if (name == "pow" && !L.arg(n, 1, "exponent").is_null()) b = L.tensor(n, 1, "exponent");
  if (!a) return Out::failure(a.error);
  if (!b) return Out::failure(b.error);
  std::string fn = binary().at(name);
  if (name.rfind("logical_", 0) == 0) {  // truth values of any type
    auto truth = [&L](const Lazy& x) {
      return L.map1(x, [](ExprPtr e) { return ex::cast(e, DType::b8); });
    };
    a = {truth(*a), ""};
    b = {truth(*b), ""};
  }
  if (compares(fn))
    return one(L.map(
        {*a, *b}, [fn](const Exprs& x) { return ex::call(fn, x, DType::b8); }, DType::b8));
  const bool to_float = fn == "pow" || fn == "atan2" || fn == "xlogy";
  return one(L.map(
      {*a, *b},
      [fn, to_float](const Exprs& x) {
        const DType t = to_float ? DType::f32 : x[0]->dtype;
        return ex::call(fn, {ex::cast(x[0], t), ex::cast(x[1], t)}, t);
      },
      to_float ? std::optional<DType>(DType::f32) : std::nullopt));
}

/// add, sub (with alpha) and rsub.
Out lower_add_sub(Lowerer& L, const GraphNode& n) {
  const std::string name = base_name(n.op);
  auto a = L.tensor(n, 0, "self");
  auto b = L.tensor(n, 1, "other");
  if (!a) return Out::failure(a.error);
  if (!b) return Out::failure(b.error);
  const double alpha = number_or(L.arg(n, 2, "alpha"), 1);
  const bool rsub = name == "rsub";
  const char* fn = name == "add" ? "add" : "sub";
  return one(L.map({*a, *b}, [fn, alpha, rsub](const Exprs& x) {
    ExprPtr first = rsub ? x[1] : x[0], second = rsub ? x[0] : x[1];
    if (alpha != 1) second = f("mul", {second, ex::constant(alpha, second->dtype)}, second->dtype);
    return ex::call(fn, {first, second}, x[0]->dtype);
  }));
}

Out lower_div(Lowerer& L, const GraphNode& n) {
  auto a = L.tensor(n, 0, "self");
  auto b = L.tensor(n, 1, "other");
  if (!a) return Out::failure(a.error);
  if (!b) return Out::failure(b.error);
  const std::string mode = L.arg(n, 2, "rounding_mode").as_string();
  if (mode.empty())
    return one(L.map(
        {*a, *b},
        [](const Exprs& x) {
          return f("div", {ex::cast(x[0], DType::f32), ex::cast(x[1], DType::f32)});
        },
        DType::f32));
  const char* fn = mode == "trunc" ? "div_trunc" : "div_floor";
  return one(L.map({*a, *b}, [fn](const Exprs& x) { return ex::call(fn, x, x[0]->dtype); }));
}

Out lower_where(Lowerer& L, const GraphNode& n) {
  auto c = L.tensor(n, 0, "condition");
  auto a = L.tensor(n, 1, "self");
  auto b = L.tensor(n, 2, "other");
  if (!c || !a || !b) return Out::failure(!c ? c.error : !a ? a.error : b.error);
  return one(L.map({*a, *b, *c}, [](const Exprs& x) {
    return ex::call("where", {ex::cast(x[2], DType::b8), x[0], x[1]}, x[0]->dtype);
  }));
}

Out lower_masked_fill(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  auto mask = L.tensor(n, 1, "mask");
  auto value = L.tensor(n, 2, "value");
  if (!x || !mask || !value) return Out::failure(!x ? x.error : !mask ? mask.error : value.error);
  const DType t = x->dtype;
  return one(L.map(
      {*x, *mask, *value},
      [t](const Exprs& e) {
        return ex::call("where", {ex::cast(e[1], DType::b8), ex::cast(e[2], t), e[0]}, t);
      },
      t));
}

/// clamp, clamp_min, clamp_max, hardtanh: bounds that are numbers, tensors or absent.
Out lower_clamp(Lowerer& L, const GraphNode& n) {
  const std::string name = base_name(n.op);
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  std::vector<Lazy> operands{*x};
  int lo = -1, hi = -1;
  auto bound = [&](size_t i, const char* key, double fallback, int& at) -> Result<void> {
    const auto& v = L.arg(n, i, key);
    if (v.is_null() && std::isnan(fallback)) return {};
    auto t = v.is_null() ? Result<Lazy>{Lowerer::constant(fallback, DType::f32), ""}
                         : L.tensor(n, i, key);
    if (!t) return Result<void>::failure(t.error);
    at = static_cast<int>(operands.size());
    operands.push_back(*t);
    return {};
  };
  const double none = std::nan("");
  Result<void> ok;
  if (name == "clamp_min")
    ok = bound(1, "min", none, lo);
  else if (name == "clamp_max")
    ok = bound(1, "max", none, hi);
  else if (name == "hardtanh") {
    ok = bound(1, "min_val", -1, lo);
    if (ok) ok = bound(2, "max_val", 1, hi);
  } else {
    ok = bound(1, "min", none, lo);
    if (ok) ok = bound(2, "max", none, hi);
  }
  if (!ok) return Out::failure(ok.error);
  return one(L.map(operands, [lo, hi](const Exprs& e) {
    ExprPtr v = e[0];
    // torch.clamp: max(min(x, hi), lo) with NaN kept
    if (lo >= 0) v = ex::call("clamp_lo", {v, e[static_cast<size_t>(lo)]}, v->dtype);
    if (hi >= 0) v = ex::call("clamp_hi", {v, e[static_cast<size_t>(hi)]}, v->dtype);
    return v;
  }));
}

Out lower_activation(Lowerer& L, const GraphNode& n) {
  const std::string name = base_name(n.op);
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  std::function<ExprPtr(ExprPtr)> fn;
  if (name == "leaky_relu") {
    const double slope = number_or(L.arg(n, 1, "negative_slope"), 0.01);
    fn = [slope](ExprPtr v) {
      return f("where", {f("gt", {v, num(0)}, DType::b8), v, f("mul", {v, num(slope)})});
    };
  } else if (name == "elu") {
    const double alpha = number_or(L.arg(n, 1, "alpha"), 1),
                 scale = number_or(L.arg(n, 2, "scale"), 1),
                 input_scale = number_or(L.arg(n, 3, "input_scale"), 1);
    fn = [=](ExprPtr v) {
      auto neg = f("mul", {num(alpha), f("expm1", {f("mul", {v, num(input_scale)})})});
      return f("mul", {f("where", {f("gt", {v, num(0)}, DType::b8), v, neg}), num(scale)});
    };
  } else if (name == "celu") {
    const double alpha = number_or(L.arg(n, 1, "alpha"), 1);
    fn = [=](ExprPtr v) {
      auto neg = f("mul", {num(alpha), f("expm1", {f("div", {v, num(alpha)})})});
      return f("where", {f("gt", {v, num(0)}, DType::b8), v, neg});
    };
  } else if (name == "selu") {
    fn = [](ExprPtr v) {
      auto neg = f("mul", {num(1.6732632423543772848170429916717), f("expm1", {v})});
      return f("mul", {f("where", {f("gt", {v, num(0)}, DType::b8), v, neg}),
                       num(1.0507009873554804934193349852946)});
    };
  } else if (name == "softplus") {
    const double beta = number_or(L.arg(n, 1, "beta"), 1),
                 threshold = number_or(L.arg(n, 2, "threshold"), 20);
    fn = [=](ExprPtr v) {
      auto bx = f("mul", {v, num(beta)});
      return f("where", {f("gt", {bx, num(threshold)}, DType::b8), v,
                         f("div", {f("log1p", {f("exp", {bx})}), num(beta)})});
    };
  } else if (name == "hardsigmoid") {
    fn = [](ExprPtr v) {
      return f("div",
               {f("clamp_hi", {f("clamp_lo", {f("add", {v, num(3)}), num(0)}), num(6)}), num(6)});
    };
  } else if (name == "hardswish") {
    fn = [](ExprPtr v) {
      return f(
          "div",
          {f("mul", {v, f("clamp_hi", {f("clamp_lo", {f("add", {v, num(3)}), num(0)}), num(6)})}),
           num(6)});
    };
  } else if (name == "threshold") {
    const double th = number_or(L.arg(n, 1, "threshold"), 0),
                 value = number_or(L.arg(n, 2, "value"), 0);
    fn = [=](ExprPtr v) { return f("where", {f("le", {v, num(th)}, DType::b8), num(value), v}); };
  } else if (name == "hardshrink" || name == "softshrink") {
    const double l = number_or(L.arg(n, 1, "lambd"), 0.5);
    const bool soft = name == "softshrink";
    fn = [=](ExprPtr v) {
      auto inside =
          f("and", {f("ge", {v, num(-l)}, DType::b8), f("le", {v, num(l)}, DType::b8)}, DType::b8);
      ExprPtr outside = soft ? f("sub", {v, f("mul", {f("sign", {v}), num(l)})}) : v;
      return f("where", {inside, num(0), outside});
    };
  } else if (name == "log_sigmoid_forward") {
    fn = [](ExprPtr v) { return f("neg", {f("softplus", {f("neg", {v})})}); };
  }
  auto y = L.map(
      {*x}, [fn](const Exprs& e) { return fn(e[0]); }, DType::f32);
  if (name == "log_sigmoid_forward") {
    if (!y) return Out::failure(y.error);
    return many({*y, Lowerer::constant(0, DType::f32, {0})});
  }
  return one(y);
}

/// lerp, addcmul, addcdiv.
Out lower_ternary_arith(Lowerer& L, const GraphNode& n) {
  const std::string name = base_name(n.op);
  auto a = L.tensor(n, 0, "self");
  auto b = L.tensor(n, 1, name == "lerp" ? "end" : "tensor1");
  auto c = L.tensor(n, 2, name == "lerp" ? "weight" : "tensor2");
  if (!a || !b || !c) return Out::failure(!a ? a.error : !b ? b.error : c.error);
  const double value = number_or(L.arg(n, 3, "value"), 1);
  return one(L.map(
      {*a, *b, *c},
      [name, value](const Exprs& e) {
        if (name == "lerp") return f("add", {e[0], f("mul", {e[2], f("sub", {e[1], e[0]})})});
        auto t = f(name == "addcmul" ? "mul" : "div", {e[1], e[2]});
        return f("add", {e[0], f("mul", {t, num(value)})});
      },
      DType::f32));
}

Out lower_cast(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  auto to = dtype_of(n.meta["dtype"].as_string());
  if (!to) return Out::failure("a cast to " + n.meta["dtype"].as_string());
  const DType t = *to;
  Lazy y = *x;
  if (y.dtype != t) {
    y = L.map1(*x, [t](ExprPtr e) { return ex::cast(e, t); });
    y.dtype = t;
  }
  return one(Result<Lazy>{y, ""});
}

Out lower_identity(Lowerer& L, const GraphNode& n) {
  return one(L.tensor(n, 0, "self"));
}

Out lower_fill(Lowerer& L, const GraphNode& n) {
  const std::string name = base_name(n.op);
  auto t = dtype_of(n.meta["dtype"].as_string());
  // an empty tensor's elements are anything: one of a type the generator lacks stays unread
  if (!t && name.find("empty") != std::string::npos) t = DType::f32;
  if (!t) return Out::failure("a tensor of " + n.meta["dtype"].as_string());
  double value = 0;
  if (name == "ones" || name == "ones_like") value = 1;
  if (name == "full") value = number_or(L.arg(n, 1, "fill_value"), 0);
  if (name == "full_like" || name == "fill")
    value = number_or(L.arg(n, 1, "fill_value"), number_or(L.arg(n, 1, "value"), 0));
  if (name == "scalar_tensor") value = number_or(L.arg(n, 0, "s"), 0);
  return many({Lowerer::constant(value, *t, Lowerer::meta_shape(n))});
}

// ---- views ----

Out lower_reshape(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  return many({Lowerer::reshape(*x, Lowerer::meta_shape(n))});
}

Out lower_permute(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  const std::string name = base_name(n.op);
  const size_t rank = x->shape.size();
  std::vector<int64_t> order(rank);
  for (size_t d = 0; d < rank; ++d) order[d] = static_cast<int64_t>(d);
  if (name == "permute") {
    order = ints(L.arg(n, 1, "dims"));
    for (auto& d : order) d = d < 0 ? d + static_cast<int64_t>(rank) : d;
  } else if (rank >= 2) {  // transpose, t
    auto dims =
        name == "t"
            ? std::vector<int64_t>{0, 1}
            : normalise_dims({L.arg(n, 1, "dim0").as_int(), L.arg(n, 2, "dim1").as_int()}, rank);
    if (dims.size() == 2)
      std::swap(order[static_cast<size_t>(dims[0])], order[static_cast<size_t>(dims[1])]);
  }
  Lazy y = *x;
  y.buffer = -1;
  for (size_t d = 0; d < rank; ++d) y.shape[d] = x->shape[static_cast<size_t>(order[d])];
  auto inner = x->load;
  y.load = [inner, order](const std::vector<IndexPtr>& index) {
    std::vector<IndexPtr> at(index.size());
    for (size_t d = 0; d < index.size(); ++d) at[static_cast<size_t>(order[d])] = index[d];
    return inner(at);
  };
  return many({y});
}

/// copy(self, src) and copy_: src's values in self's shape (broadcast) and type.
Out lower_copy(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  auto src = L.tensor(n, 1, "src");
  if (!x || !src) return Out::failure(!x ? x.error : src.error);
  const DType t = x->dtype;
  auto y = L.map(
      {*x, *src}, [t](const Exprs& e) { return ex::cast(e[1], t); }, t);
  if (!y) return Out::failure(y.error);
  if (y->shape != x->shape) return Out::failure("copy of a tensor larger than its target");
  return many({*y});
}

/// roll(self, shifts, dims): each element moved `shift` places along its dimension, those that
/// pass the end coming back at its start (SwinV2's shifted windows); with no dims, along the
/// flattened tensor.
Out lower_roll(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  const auto shifts = ints(L.arg(n, 1, "shifts"));
  auto dims = ints(L.arg(n, 2, "dims"));
  const bool flat = dims.empty();
  if (flat && shifts.size() != 1)
    return Out::failure("roll of a flattened tensor by more than one shift");
  if (flat) dims = {0};
  if (shifts.size() != dims.size()) return Out::failure("roll with as many shifts as dims");
  const Lazy in = flat ? Lowerer::reshape(*x, {numel(x->shape)}) : *x;
  const auto rank = static_cast<int64_t>(in.shape.size());
  // For each dimension, what is added to an output's position there to find its input's.
  std::vector<int64_t> back(static_cast<size_t>(rank), 0);
  for (size_t k = 0; k < dims.size(); ++k) {
    const int64_t d = dims[k] < 0 ? dims[k] + rank : dims[k];
    if (d < 0 || d >= rank) return Out::failure("roll along a dimension self lacks");
    const int64_t size = in.shape[static_cast<size_t>(d)];
    if (size > 0)
      back[static_cast<size_t>(d)] =
          ((back[static_cast<size_t>(d)] - shifts[k]) % size + size) % size;
  }
  Lazy y = in;
  y.buffer = -1;
  y.load = [inner = in.load, back, shape = in.shape](const std::vector<IndexPtr>& i) {
    std::vector<IndexPtr> at = i;
    for (size_t d = 0; d < at.size(); ++d)
      if (back[d] != 0) at[d] = ix::mod(ix::add(i[d], ix::constant(back[d])), shape[d]);
    return inner(at);
  };
  return many({flat ? Lowerer::reshape(y, x->shape) : y});
}

/// expand and repeat: an output index maps back into the input (by broadcasting or wrapping).
Out lower_expand(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  const bool repeat = base_name(n.op) == "repeat";
  Lazy y = *x;
  y.buffer = -1;
  y.shape = Lowerer::meta_shape(n);
  auto inner = x->load;
  const auto from = x->shape;
  const size_t lead = y.shape.size() - from.size();
  y.load = [inner, from, lead, repeat](const std::vector<IndexPtr>& index) {
    std::vector<IndexPtr> at;
    for (size_t d = 0; d < from.size(); ++d)
      at.push_back(from[d] == 1 ? ix::constant(0)
                   : repeat     ? ix::mod(index[lead + d], from[d])
                                : index[lead + d]);
    return inner(at);
  };
  return many({y});
}

Out lower_slice(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  const bool select = base_name(n.op) == "select";
  const size_t rank = x->shape.size();
  int64_t dim = L.arg(n, 1, "dim").as_int(0);
  if (dim < 0) dim += static_cast<int64_t>(rank);
  const int64_t size = x->shape[static_cast<size_t>(dim)];
  int64_t start, step = 1;
  if (select) {
    start = L.arg(n, 2, "index").as_int(0);
    if (start < 0) start += size;
  } else {
    const auto& s = L.arg(n, 2, "start");
    start = s.is_null() ? 0 : s.as_int(0);
    if (start < 0) start += size;
    start = std::clamp<int64_t>(start, 0, size);
    step = L.arg(n, 4, "step").as_int(1);
  }
  Lazy y = *x;
  y.buffer = -1;
  y.shape = Lowerer::meta_shape(n);
  auto inner = x->load;
  const auto d = static_cast<size_t>(dim);
  y.load = [inner, d, start, step, select](const std::vector<IndexPtr>& index) {
    std::vector<IndexPtr> at = index;
    if (select)
      at.insert(at.begin() + static_cast<std::ptrdiff_t>(d), ix::constant(start));
    else
      at[d] = ix::add(ix::constant(start), ix::mul(index[d], step));
    return inner(at);
  };
  return many({y});
}

/// split, split_with_sizes, chunk and unbind: one output a piece, each a slice of the input
/// along dim (unbind's a select, the dimension gone); the pieces' sizes are those the trace
/// recorded, so that a last piece shorter than the others is as torch cut it.
Out lower_split(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  const bool unbind = base_name(n.op) == "unbind";
  const size_t rank = x->shape.size();
  int64_t dim = L.arg(n, unbind ? 1 : 2, "dim").as_int(0);
  if (dim < 0) dim += static_cast<int64_t>(rank);
  if (dim < 0 || static_cast<size_t>(dim) >= rank || !n.meta.is_array())
    return Out::failure("a split whose pieces the export did not record");
  const auto d = static_cast<size_t>(dim);
  std::vector<Lazy> pieces;
  int64_t start = 0;
  for (size_t k = 0; k < n.meta.as_array().size(); ++k) {
    Lazy y = *x;
    y.buffer = -1;
    y.shape = Lowerer::meta_shape(n, k);
    auto inner = x->load;
    y.load = [inner, d, start, unbind](const std::vector<IndexPtr>& index) {
      std::vector<IndexPtr> at = index;
      if (unbind)
        at.insert(at.begin() + static_cast<std::ptrdiff_t>(d), ix::constant(start));
      else
        at[d] = ix::add(ix::constant(start), index[d]);
      return inner(at);
    };
    start += unbind ? 1 : y.shape[d];
    pieces.push_back(y);
  }
  if (start != x->shape[d]) return Out::failure("a split whose pieces do not cover its input");
  return many(pieces);
}

/// unfold(self, dimension, size, step): the windows of `size` elements `step` apart along a
/// dimension (a ViT's patches), the window's position a new last dimension: output index i along
/// the dimension and k along the last read the input at i * step + k.
Out lower_unfold(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  const size_t rank = x->shape.size();
  int64_t dim = L.arg(n, 1, "dimension").as_int(0);
  if (dim < 0) dim += static_cast<int64_t>(rank);
  const int64_t step = L.arg(n, 3, "step").as_int(1);
  if (rank == 0 || dim < 0 || static_cast<size_t>(dim) >= rank || step < 1)
    return Out::failure("an unfold of a scalar or along no dimension");
  Lazy y = *x;
  y.buffer = -1;
  y.shape = Lowerer::meta_shape(n);
  auto inner = x->load;
  const auto d = static_cast<size_t>(dim);
  y.load = [inner, d, step](const std::vector<IndexPtr>& index) {
    std::vector<IndexPtr> at(index.begin(), index.end() - 1);
    at[d] = ix::add(ix::mul(index[d], step), index.back());
    return inner(at);
  };
  return many({y});
}

}  // namespace

SharedLoader stack_loader(std::vector<Lazy> parts, size_t d) {
  return [parts = std::move(parts), d](const std::vector<IndexPtr>& i) {
    std::vector<IndexPtr> at = i;
    at.erase(at.begin() + static_cast<std::ptrdiff_t>(d));
    // read at a known position (an RNN's next layer unbinds its steps): that piece alone, the
    // others never built (a position outside the stack, which a padded window's masked read may
    // ask for, selects as any other)
    if (i[d]->kind == Index::Kind::constant && i[d]->value >= 0 &&
        i[d]->value < static_cast<int64_t>(parts.size()))
      return parts[static_cast<size_t>(i[d]->value)].load(at);
    ExprPtr out = parts.back().load(at);
    for (size_t k = parts.size() - 1; k-- > 0;) {
      auto here =
          f("eq", {ex::index(i[d]), ex::constant(static_cast<double>(k), DType::i64)}, DType::b8);
      out = f("where", {here, parts[k].load(at), out}, out->dtype);
    }
    return out;
  };
}

namespace {

/// stack(tensors, dim): a new dimension at dim whose index k reads the k-th tensor.
Out lower_stack(Lowerer& L, const GraphNode& n) {
  auto list = L.tensors(n, 0, "tensors");
  if (!list) return Out::failure(list.error);
  const std::vector<Lazy> parts = *list;
  if (parts.empty()) return Out::failure("a stack of nothing");
  const auto out_shape = Lowerer::meta_shape(n);
  int64_t dim = L.arg(n, 1, "dim").as_int(0);
  if (dim < 0) dim += static_cast<int64_t>(out_shape.size());
  Lazy y = parts[0];
  y.buffer = -1;
  y.stacked = nullptr;
  y.shape = out_shape;
  y.cost = 0;
  for (const auto& p : parts) y.cost += p.cost + 1;
  const auto d = static_cast<size_t>(dim);
  y.load = stack_loader(parts, d);
  // each part's elements together in the stack: placed in its buffer where it is realised
  int64_t before = 1;
  for (size_t k = 0; k < d; ++k) before *= out_shape[k];
  if (before == 1)
    y.stacked =
        std::make_shared<const Lazy::Stacked>(Lazy::Stacked{y.load, y.shape, y.dtype, parts, d});
  return many({y});
}

// ---- reductions ----

std::vector<int64_t> dims_arg(Lowerer& L, const GraphNode& n, size_t i, const char* key) {
  return ints(L.arg(n, i, key));
}

Out lower_sum_mean(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  const std::string name = base_name(n.op);
  const bool all = n.op.size() > 8 && n.op.substr(n.op.size() - 8) == ".default";
  auto dims = all ? std::vector<int64_t>{} : dims_arg(L, n, 1, "dim");
  const bool keepdim = !all && L.arg(n, 2, "keepdim").as_bool(false);
  dims = normalise_dims(dims, x->shape.size());
  int64_t count = 1;
  for (size_t d = 0; d < x->shape.size(); ++d)
    if (dims.empty() || std::count(dims.begin(), dims.end(), static_cast<int64_t>(d)))
      count *= x->shape[d];
  Lazy in = *x;
  if (in.dtype != DType::f32 && (name == "mean" || in.dtype == DType::b8))
    in = L.map1(in, [](ExprPtr e) { return ex::cast(e, DType::i64); });
  if (name == "mean")
    in = L.map1(in, [](ExprPtr e) { return ex::cast(e, DType::f32); }), in.dtype = DType::f32;
  if (name == "prod") return many({L.reduce(in, dims, keepdim, Combine::prod)});
  return many({L.reduce(in, dims, keepdim, Combine::sum,
                        name == "mean" ? 1.0 / static_cast<double>(count) : 1)});
}

Out lower_extreme(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  const std::string name = base_name(n.op);
  const bool max = name == "amax" || name == "max" || name == "argmax";
  // max.default and min.default reduce everything (amax.default takes dims)
  const bool all = (name == "max" || name == "min") && n.op.size() > 8 &&
                   n.op.substr(n.op.size() - 8) == ".default";
  if (n.op.size() > 6 && n.op.substr(n.op.size() - 6) == ".other") {  // max(a, b): elementwise
    auto b = L.tensor(n, 1, "other");
    if (!b) return Out::failure(b.error);
    return one(L.map({*x, *b}, [max](const Exprs& e) {
      return ex::call(max ? "max2" : "min2", e, e[0]->dtype);
    }));
  }
  if (name == "argmax" || name == "argmin") {
    const auto& dim = L.arg(n, 1, "dim");
    const bool keepdim = L.arg(n, 2, "keepdim").as_bool(false);
    if (dim.is_null()) {
      auto flat = Lowerer::reshape(*x, {numel(x->shape)});
      Lazy r = L.reduce(flat, {0}, false, max ? Combine::argmax : Combine::argmin);
      return many({Lowerer::reshape(r, Lowerer::meta_shape(n))});
    }
    return many({L.reduce(*x, {dim.as_int()}, keepdim, max ? Combine::argmax : Combine::argmin)});
  }
  if (all) return many({L.reduce(*x, {}, false, max ? Combine::max : Combine::min)});
  const bool keepdim = L.arg(n, 2, "keepdim").as_bool(false);
  auto dims = dims_arg(L, n, 1, "dim");
  Lazy values = L.reduce(*x, dims, keepdim, max ? Combine::max : Combine::min);
  if (name == "amax" || name == "amin") return many({values});
  return many({values, L.reduce(*x, dims, keepdim, max ? Combine::argmax : Combine::argmin)});
}

/// Mean and variance of `x` over `dims` (kept as size 1): two passes, the second over x - mean;
/// one where the reductions are split across the GPU (few outputs over many elements: batch
/// norm's channels, group norm's groups), whose two passes each read the whole tensor from
/// memory and computed what x is made of (the activation before a norm) again. That pass sums
/// x - p and its square, p the mean of each group's first 512 elements (the shifted data
/// algorithm: with p near the mean, the sums are of the order of the spread, not of the mean, so
/// that their difference keeps its precision; an outlier among them moves p by a 512th of it).
/// Fewer than 1024, the pivots' own sums are not split across the GPU.
std::pair<Lazy, Lazy> moments(Lowerer& L, const Lazy& x, const std::vector<int64_t>& dims,
                              double correction) {
  auto norm = normalise_dims(dims, x.shape.size());
  int64_t count = 1;
  for (size_t d = 0; d < x.shape.size(); ++d)
    if (norm.empty() || std::count(norm.begin(), norm.end(), static_cast<int64_t>(d)))
      count *= x.shape[d];
  const double denominator = std::max(static_cast<double>(count) - correction, 0.0);
  if (L.splits(x.shape, norm)) {
    std::vector<bool> reduced(x.shape.size(), norm.empty());
    for (int64_t d : norm) reduced[static_cast<size_t>(d)] = true;
    std::vector<int64_t> reduced_shape;
    Lazy sample = x;  // [kept (reduced ones as 1)..., the first elements of the group]
    for (size_t d = 0; d < reduced.size(); ++d) {
      if (!reduced[d]) continue;
      reduced_shape.push_back(x.shape[d]);
      sample.shape[d] = 1;
    }
    const int64_t samples = std::min<int64_t>(count, 512);
    sample.shape.push_back(samples);
    sample.load = [load = x.load, reduced, reduced_shape](const std::vector<IndexPtr>& index) {
      const auto digits = ix::delinear(index.back(), reduced_shape);
      std::vector<IndexPtr> at(index.begin(), index.end() - 1);
      size_t next = 0;
      for (size_t d = 0; d < reduced.size(); ++d)
        if (reduced[d]) at[d] = digits[next++];
      return load(at);
    };
    sample.buffer = -1;
    const Lazy pivot = L.reduce(sample, {static_cast<int64_t>(x.shape.size())}, false, Combine::sum,
                                1.0 / static_cast<double>(samples));
    auto shifted = L.map(
        {x, pivot},
        [](const Exprs& e) {
          return f("sub", {e[0], e[1]});
        },
        DType::f32);
    const double inverse = 1.0 / static_cast<double>(count);
    Lazy s1 = L.reduce(*shifted, norm, true, Combine::sum, inverse);
    Lazy s2 = L.reduce(L.map1(*shifted,
                              [](ExprPtr d) {
                                return f("mul", {d, d});
                              }),
                       norm, true, Combine::sum, inverse);
    auto mean = L.map(
        {pivot, s1},
        [](const Exprs& e) {
          return f("add", {e[0], e[1]});
        },
        DType::f32);
    const double unbias = static_cast<double>(count) / denominator;
    auto var = L.map(
        {s2, s1},
        [unbias](const Exprs& e) {
          auto v = f("sub", {e[0], f("mul", {e[1], e[1]})});
          return f("mul", {f("clamp_lo", {v, num(0)}), num(unbias)});
        },
        DType::f32);
    return {*mean, *var};
  }
  Lazy mean = L.reduce(x, norm, true, Combine::sum, 1.0 / static_cast<double>(count));
  auto centred = L.map(
      {x, mean},
      [](const Exprs& e) {
        auto d = f("sub", {e[0], e[1]});
        return f("mul", {d, d});
      },
      DType::f32);
  Lazy var = L.reduce(*centred, norm, true, Combine::sum, 1.0 / denominator);
  return {mean, var};
}

Out lower_var(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  const std::string name = base_name(n.op);
  const std::string overload = n.op.substr(n.op.rfind('.') + 1);
  std::vector<int64_t> dims;
  double correction = 1;
  bool keepdim = false;
  if (overload == "correction") {
    dims = ints(L.arg(n, 1, "dim"));
    const auto& c = n.kwargs["correction"];
    correction = c.is_null() ? 1 : c.as_number();
    keepdim = n.kwargs["keepdim"].as_bool(false);
  } else if (overload == "dim") {
    dims = ints(L.arg(n, 1, "dim"));
    correction = L.arg(n, 2, "unbiased").as_bool(true) ? 1 : 0;
    keepdim = L.arg(n, 3, "keepdim").as_bool(false);
  } else {
    correction = L.arg(n, 1, "unbiased").as_bool(true) ? 1 : 0;
  }
  auto [mean, var] = moments(L, *x, dims, correction);
  Lazy out = var;
  if (name == "std" || name == "std_mean")
    out = L.map1(var, [](ExprPtr e) { return f("sqrt", {e}); });
  const auto shape = Lowerer::meta_shape(n, 0);
  if (name == "var_mean" || name == "std_mean")
    return many({Lowerer::reshape(out, shape), Lowerer::reshape(mean, Lowerer::meta_shape(n, 1))});
  (void)keepdim;  // the recorded shape says whether the dims stay
  return many({Lowerer::reshape(out, shape)});
}

Out lower_softmax(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  const std::string name = base_name(n.op);
  const int64_t dim = L.arg(n, 1, "dim").as_int(-1);
  Lazy m = L.reduce(*x, {dim}, true, Combine::max);
  auto shifted = L.map(
      {*x, m},
      [](const Exprs& e) {
        return f("sub", {e[0], e[1]});
      },
      DType::f32);
  if (!shifted) return Out::failure(shifted.error);
  Lazy e = L.map1(*shifted, [](ExprPtr v) { return f("exp", {v}); });
  Lazy s = L.reduce(e, {dim}, true, Combine::sum);
  if (name == "_safe_softmax")  // a row of -inf only is 0, not NaN
    return one(L.map(
        {e, s, m},
        [](const Exprs& v) {
          return f("where",
                   {f("eq", {v[2], num(-std::numeric_limits<double>::infinity())}, DType::b8),
                    num(0), f("div", {v[0], v[1]})});
        },
        DType::f32));
  if (name == "_log_softmax")
    return one(L.map(
        {*shifted, s},
        [](const Exprs& v) {
          return f("sub", {v[0], f("log", {v[1]})});
        },
        DType::f32));
  return one(L.map(
      {e, s},
      [](const Exprs& v) {
        return f("div", {v[0], v[1]});
      },
      DType::f32));
}

Out lower_logsumexp(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  auto dims = ints(L.arg(n, 1, "dim"));
  Lazy m = L.reduce(*x, dims, true, Combine::max);
  auto e = L.map(
      {*x, m},
      [](const Exprs& v) {
        // an infinite maximum: its rows are all -inf (or hold +inf); exp(x - m) is taken at 0 then
        return f("exp",
                 {f("sub", {v[0], f("where", {f("isinf", {v[1]}, DType::b8), num(0), v[1]})})});
      },
      DType::f32);
  Lazy s = L.reduce(*e, dims, true, Combine::sum);
  auto out = L.map(
      {s, m},
      [](const Exprs& v) {
        return f("add",
                 {f("log", {v[0]}), f("where", {f("isinf", {v[1]}, DType::b8), num(0), v[1]})});
      },
      DType::f32);
  if (!out) return Out::failure(out.error);
  return many({Lowerer::reshape(*out, Lowerer::meta_shape(n))});
}

Out lower_vector_norm(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  const auto& p = L.arg(n, 1, base_name(n.op) == "norm" ? "p" : "ord");
  const double ord = p.is_null() ? 2 : p.as_number();
  auto dims = ints(L.arg(n, 2, "dim"));
  if (ord == std::numeric_limits<double>::infinity()) {
    Lazy a = L.map1(*x, [](ExprPtr e) { return f("abs", {ex::cast(e, DType::f32)}); });
    return many({Lowerer::reshape(L.reduce(a, dims, true, Combine::max), Lowerer::meta_shape(n))});
  }
  if (ord != 1 && ord != 2) return Out::failure("a vector norm of order " + std::to_string(ord));
  Lazy a = L.map1(*x, [ord](ExprPtr e) {
    e = ex::cast(e, DType::f32);
    return ord == 1 ? f("abs", {e}) : f("mul", {e, e});
  });
  Lazy s = L.reduce(a, dims, true, Combine::sum);
  if (ord == 2) s = L.map1(s, [](ExprPtr e) { return f("sqrt", {e}); });
  return many({Lowerer::reshape(s, Lowerer::meta_shape(n))});
}

/// (x - mean) * rstd, times weight plus bias where given (shaped to broadcast against x).
Result<Lazy> normalise(Lowerer& L, const Lazy& x, const Lazy& mean, const Lazy& rstd) {
  return L.map(
      {x, mean, rstd},
      [](const Exprs& e) {
        return f("mul", {f("sub", {e[0], e[1]}), e[2]});
      },
      DType::f32);
}

Result<Lazy> affine(Lowerer& L, const GraphNode& n, Lazy y, size_t wi, size_t bi,
                    const std::vector<int64_t>& param_shape) {
  for (size_t i : {wi, bi}) {
    if (L.arg(n, i, i == wi ? "weight" : "bias").is_null()) continue;
    auto p = L.tensor(n, i, i == wi ? "weight" : "bias");
    if (!p) return p;
    auto r = L.map(
        {y, Lowerer::reshape(*p, param_shape)},
        [i, wi](const Exprs& e) {
          return f(i == wi ? "mul" : "add", {e[0], e[1]});
        },
        DType::f32);
    if (!r) return r;
    y = *r;
  }
  return {y, ""};
}

Lazy rstd_of(Lowerer& L, const Lazy& var, double eps) {
  return L.map1(var, [eps](ExprPtr v) { return f("rsqrt", {f("add", {v, num(eps)})}); });
}

Out lower_layer_norm(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "input");
  if (!x) return Out::failure(x.error);
  const auto normalized = ints(L.arg(n, 1, "normalized_shape"));
  const double eps = number_or(L.arg(n, 4, "eps"), 1e-5);
  std::vector<int64_t> dims;
  for (size_t k = 0; k < normalized.size(); ++k) dims.push_back(-1 - static_cast<int64_t>(k));
  auto [mean, var] = moments(L, *x, dims, 0);
  Lazy rstd = rstd_of(L, var, eps);
  auto y = normalise(L, *x, mean, rstd);
  if (!y) return Out::failure(y.error);
  auto out = affine(L, n, *y, 2, 3, normalized);
  if (!out) return Out::failure(out.error);
  return many({*out, Lowerer::reshape(mean, Lowerer::meta_shape(n, 1)),
               Lowerer::reshape(rstd, Lowerer::meta_shape(n, 2))});
}

Out lower_group_norm(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "input");
  if (!x) return Out::failure(x.error);
  const int64_t N = L.arg(n, 3, "N").as_int(), C = L.arg(n, 4, "C").as_int(),
                hw = L.arg(n, 5, "HxW").as_int(), groups = L.arg(n, 6, "group").as_int();
  const double eps = number_or(L.arg(n, 7, "eps"), 1e-5);
  if (groups <= 0 || C % groups != 0)
    return Out::failure("a group norm of " + std::to_string(groups) + " groups");
  Lazy grouped = Lowerer::reshape(*x, {N, groups, C / groups * hw});
  auto [mean, var] = moments(L, grouped, {2}, 0);
  Lazy rstd = rstd_of(L, var, eps);
  auto y = normalise(L, grouped, mean, rstd);
  if (!y) return Out::failure(y.error);
  std::vector<int64_t> param_shape{C};
  for (size_t d = 2; d < x->shape.size(); ++d) param_shape.push_back(1);
  auto out = affine(L, n, Lowerer::reshape(*y, x->shape), 1, 2, param_shape);
  if (!out) return Out::failure(out.error);
  return many({*out, Lowerer::reshape(mean, Lowerer::meta_shape(n, 1)),
               Lowerer::reshape(rstd, Lowerer::meta_shape(n, 2))});
}

/// native_batch_norm, _native_batch_norm_legit(_no_training): batch statistics in training,
/// the running ones otherwise (their update in training is a side effect no output shows).
Out lower_batch_norm(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "input");
  if (!x) return Out::failure(x.error);
  const bool no_training = base_name(n.op) == "_native_batch_norm_legit_no_training";
  // _native_batch_norm_legit.no_stats(input, weight, bias, training, momentum, eps): no running
  // stats
  const bool no_stats = n.op.size() > 9 && n.op.substr(n.op.size() - 9) == ".no_stats";
  const bool training = !no_training && L.arg(n, no_stats ? 3 : 5, "training").as_bool(false);
  const double eps = number_or(L.arg(n, no_training ? 6 : no_stats ? 5 : 7, "eps"), 1e-5);
  const size_t rank = x->shape.size();
  std::vector<int64_t> param_shape{x->shape.size() > 1 ? x->shape[1] : 1};
  for (size_t d = 2; d < rank; ++d) param_shape.push_back(1);
  Lazy mean, rstd;
  if (training) {
    std::vector<int64_t> dims{0};
    for (size_t d = 2; d < rank; ++d) dims.push_back(static_cast<int64_t>(d));
    auto [m, var] = moments(L, *x, dims, 0);
    mean = m;
    rstd = rstd_of(L, var, eps);
  } else {
    auto rm = L.tensor(n, 3, "running_mean");
    auto rv = L.tensor(n, 4, "running_var");
    if (!rm || !rv) return Out::failure("batch norm in evaluation mode without running statistics");
    std::vector<int64_t> kept(rank, 1);
    kept[1] = param_shape[0];
    mean = Lowerer::reshape(*rm, kept);
    rstd = rstd_of(L, Lowerer::reshape(*rv, kept), eps);
  }
  auto y = normalise(L, *x, mean, rstd);
  if (!y) return Out::failure(y.error);
  auto out = affine(L, n, *y, 1, 2, param_shape);
  if (!out) return Out::failure(out.error);
  std::vector<Lazy> values{*out};
  const size_t outputs = n.meta.as_array().size();
  for (size_t k = 1; k < outputs; ++k) {
    const auto shape = Lowerer::meta_shape(n, k);
    const Lazy& v = k == 1 ? mean : rstd;
    values.push_back(numel(shape) == numel(v.shape) ? Lowerer::reshape(v, shape)
                                                    : Lowerer::constant(0, DType::f32, shape));
  }
  return many(values);
}

Out lower_loss(Lowerer& L, const GraphNode& n) {
  const std::string name = base_name(n.op);
  auto a = L.tensor(n, 0, "self");
  auto b = L.tensor(n, 1, "target");
  if (!a || !b) return Out::failure(!a ? a.error : b.error);
  const int64_t reduction = L.arg(n, 2, "reduction").as_int(1);
  double beta = 1;
  if (name == "smooth_l1_loss" || name == "huber_loss")
    beta = number_or(L.arg(n, 3, name == "huber_loss" ? "delta" : "beta"), 1);
  auto per = L.map(
      {*a, *b},
      [name, beta](const Exprs& e) {
        auto d = f("sub", {e[0], e[1]});
        if (name == "mse_loss") return f("mul", {d, d});
        auto ad = f("abs", {d});
        if (name == "l1_loss") return ad;
        auto quad = f("mul", {num(0.5), f("mul", {d, d})});
        if (name == "smooth_l1_loss")
          return f("where", {f("lt", {ad, num(beta)}, DType::b8), f("div", {quad, num(beta)}),
                             f("sub", {ad, num(0.5 * beta)})});
        // huber
        return f("where", {f("lt", {ad, num(beta)}, DType::b8), quad,
                           f("mul", {num(beta), f("sub", {ad, num(0.5 * beta)})})});
      },
      DType::f32);
  if (!per) return Out::failure(per.error);
  if (reduction == 0) return many({*per});
  const double scale = reduction == 1 ? 1.0 / static_cast<double>(numel(per->shape)) : 1;
  return many({L.reduce(*per, {}, false, Combine::sum, scale)});
}

/// `e`, an element computed at index `slot` of some dimension, computed instead at the data's
/// position `at` there: each load whose offset reads `slot` made a gather at `at`, where the slot
/// is one term of its offset (`slot` or `slot * stride`); nothing where it is read otherwise (in
/// a quotient or remainder of a reshape, or as a value).
std::optional<ExprPtr> at_position(const ExprPtr& e, const std::string& slot, const ExprPtr& at) {
  if (e->kind == Expr::Kind::index)
    return ix::reads(*e->index, slot) ? std::nullopt : std::optional<ExprPtr>(e);
  if (e->kind == Expr::Kind::load && ix::reads(*e->index, slot)) {
    const auto split = ix::along(*e->index, slot);
    if (!split || !e->args.empty()) return std::nullopt;
    IndexPtr rest = ix::constant(0);
    for (const auto& t : split->rest) rest = ix::add(rest, t);
    return ex::gather(e->buffer, rest, at, split->stride, e->dtype);
  }
  if (e->kind != Expr::Kind::call) return e;
  std::vector<ExprPtr> args;
  for (const auto& a : e->args) {
    auto moved = at_position(a, slot, at);
    if (!moved) return std::nullopt;
    args.push_back(*moved);
  }
  return ex::call(e->fn, std::move(args), e->dtype);
}

/// nll_loss_forward(self, target, weight, reduction, ignore_index) -> (output, total_weight): the
/// log-probabilities read at each row's target. Where they are computed from other buffers by
/// loads that a gather can read at the target (cross entropy's x - max - log(sum)), they are
/// computed there, the [N, C] log-probabilities never written (KernelBench's 95_CrossEntropyLoss
/// wrote and read again its 32768 x 4096, 3 times the memory traffic); else read from them
/// realised.
Out lower_nll_loss(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  auto target = L.tensor(n, 1, "target");
  if (!x || !target) return Out::failure(!x ? x.error : target.error);
  if (x->shape.size() > 2) return Out::failure("nll_loss over more than [N, C]");
  const bool batched = x->shape.size() == 2;
  const int64_t rows = batched ? x->shape[0] : 1, classes = x->shape.back();
  const int64_t reduction = L.arg(n, 3, "reduction").as_int(1);
  const int64_t ignore = L.arg(n, 4, "ignore_index").as_int(-100);
  Lazy lp = Lowerer::reshape(*x, {rows, classes});
  const std::string slot = "kf_class";
  const bool inline_gather =
      at_position(lp.load({ix::named("kf_row", rows), ix::named(slot, classes)}), slot,
                  ex::constant(0, DType::i64))
          .has_value();
  if (!inline_gather) lp = L.realise(lp);
  Lazy t = Lowerer::reshape(*target, {rows});
  int weight = -1;
  if (!L.arg(n, 2, "weight").is_null()) {
    auto w = L.tensor(n, 2, "weight");
    if (!w) return Out::failure(w.error);
    weight = L.realise(*w).buffer;
  }
  auto lt = t.load;
  const int lp_buffer = lp.buffer;
  auto lp_load = lp.load;
  // The log-probability of row i at class k.
  auto picked_at = [=](const IndexPtr& row, const ExprPtr& k) {
    if (!inline_gather) return ex::gather(lp_buffer, ix::mul(row, classes), k, 1, DType::f32);
    return ex::cast(*at_position(lp_load({row, ix::named(slot, classes)}), slot, k), DType::f32);
  };
  auto weight_at = [weight](const ExprPtr& k) {
    return weight < 0 ? num(1) : ex::gather(weight, ix::constant(0), k, 1, DType::f32);
  };
  Lazy loss, w;
  loss.shape = w.shape = {rows};
  loss.load = [=](const std::vector<IndexPtr>& i) {
    auto k = ex::cast(lt(i), DType::i64);
    auto valid = f("ne", {k, ex::constant(static_cast<double>(ignore), DType::i64)}, DType::b8);
    auto picked = picked_at(i[0], k);
    return f("where", {valid, f("neg", {f("mul", {picked, weight_at(k)})}), num(0)});
  };
  w.load = [=](const std::vector<IndexPtr>& i) {
    auto k = ex::cast(lt(i), DType::i64);
    auto valid = f("ne", {k, ex::constant(static_cast<double>(ignore), DType::i64)}, DType::b8);
    return f("where", {valid, weight_at(k), num(0)});
  };
  Lazy total = L.reduce(w, {0}, false, Combine::sum);
  if (reduction == 0) return many({batched ? loss : Lowerer::reshape(loss, {}), total});
  Lazy sum = L.reduce(loss, {0}, false, Combine::sum);
  if (reduction == 2) return many({sum, total});
  auto mean = L.map(
      {sum, total},
      [](const Exprs& e) {
        return f("div", {e[0], e[1]});
      },
      DType::f32);
  if (!mean) return Out::failure(mean.error);
  return many({*mean, total});
}

/// scatter(self, dim, index, value) with one index per row along dim and self's size in every
/// other dimension (a target's one-hot, as nll_loss's backward writes it): self, with `value`
/// where the position along dim is the row's index.
Out lower_scatter(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  auto index = L.tensor(n, 2, "index");
  if (!x || !index) return Out::failure(!x ? x.error : index.error);
  const auto& value = L.arg(n, 3, "value");
  if (!value.is_number()) return Out::failure("scatter of a tensor's values (only of one value)");
  const auto rank = static_cast<int64_t>(x->shape.size());
  int64_t dim = L.arg(n, 1, "dim").as_int(0);
  if (dim < 0) dim += rank;
  if (dim < 0 || dim >= rank || index->shape.size() != x->shape.size())
    return Out::failure("scatter with an index of another rank");
  for (int64_t d = 0; d < rank; ++d)
    if (index->shape[d] != (d == dim ? 1 : x->shape[d]))
      return Out::failure("scatter of more than one index per row (only one-hot scatters)");
  const DType t = x->dtype;
  const double v = value.as_number();
  Lazy out = *x;
  out.buffer = -1;
  out.cost = x->cost + index->cost + 3;
  out.load = [xl = x->load, il = index->load, dim, t, v](const std::vector<IndexPtr>& i) {
    auto row = i;
    row[static_cast<size_t>(dim)] = ix::constant(0);
    auto hit =
        f("eq", {ex::cast(il(row), DType::i64), ex::index(i[static_cast<size_t>(dim)])}, DType::b8);
    return ex::call("where", {hit, ex::constant(v, t), xl(i)}, t);
  };
  return many({out});
}

/// index.Tensor(self, indices): advanced indexing, as `table[idx]` writes it. The index tensors
/// (int64, broadcast together to B) stand for the dimensions d..d+m of self where they are given,
/// adjacent; the result is self's shape with those m dimensions replaced by B, each element read
/// from self (a buffer) at the positions the indices give there, a negative one counting from the
/// end. An index out of range, where torch raises an error, reads the position it is modulo the
/// dimension's size (a kernel never reads outside its buffer). Masks (bool indices) and indices
/// apart, which torch moves to the front, are not lowered.
Out index_by(Lowerer& L, const Lazy& x, int64_t first, const std::vector<Lazy>& indices);

Out lower_index(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  const auto& list = L.arg(n, 1, "indices");
  if (!list.is_array()) return Out::failure("index without a list of indices");
  std::vector<Lazy> indices;
  int64_t first = -1;
  const auto& items = list.as_array();
  for (size_t k = 0; k < items.size(); ++k) {
    if (items[k].is_null()) continue;
    if (first >= 0 && static_cast<int64_t>(k) != first + static_cast<int64_t>(indices.size()))
      return Out::failure("index with indices apart (torch moves their dimensions to the front)");
    if (first < 0) first = static_cast<int64_t>(k);
    GraphNode one;
    one.args = json::Array{items[k]};
    auto t = L.tensor(one, 0, "indices");
    if (!t) return Out::failure(t.error);
    if (t->dtype != DType::i64) return Out::failure("index with a mask (only int64 indices)");
    indices.push_back(*t);
  }
  return index_by(L, *x, first, indices);
}

/// embedding(weight, indices, ...): the weight's rows at the indices (a lookup table), as
/// weight[indices] reads them.
Out lower_embedding(Lowerer& L, const GraphNode& n) {
  auto weight = L.tensor(n, 0, "weight");
  auto indices = L.tensor(n, 1, "indices");
  if (!weight || !indices) return Out::failure(!weight ? weight.error : indices.error);
  if (indices->dtype != DType::i64)
    return Out::failure("embedding with indices that are not int64");
  return index_by(L, *weight, 0, {*indices});
}

/// `x` read along its dimensions first.. at the positions `indices` give (int64 tensors that
/// broadcast together), as index.Tensor says.
Out index_by(Lowerer& L, const Lazy& x, int64_t first, const std::vector<Lazy>& indices) {
  const auto rank = static_cast<int64_t>(x.shape.size());
  const auto m = static_cast<int64_t>(indices.size());
  if (m == 0 || first + m > rank)
    return Out::failure("index with no index or more than self's rank");
  std::vector<int64_t> strides(x.shape.size(), 1);
  for (int64_t d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * x.shape[d + 1];
  // The offset in x that the indices' elements give together, in their broadcast shape.
  auto offset = L.map(
      indices,
      [m, first, strides, sizes = x.shape](const Exprs& p) {
        ExprPtr sum;
        for (int64_t k = 0; k < m; ++k) {
          const auto d = static_cast<size_t>(first + k);
          // torch's position for -size <= p < size; one in the buffer for any other
          auto at = f(
              "remainder",
              {p[static_cast<size_t>(k)], ex::constant(static_cast<double>(sizes[d]), DType::i64)},
              DType::i64);
          if (strides[d] != 1)
            at = f("mul", {at, ex::constant(static_cast<double>(strides[d]), DType::i64)},
                   DType::i64);
          sum = sum ? f("add", {sum, at}, DType::i64) : at;
        }
        return sum;
      },
      DType::i64);
  if (!offset) return Out::failure("index with indices that do not broadcast together");
  const Lazy self = L.realise(x);
  const auto nb = static_cast<int64_t>(offset->shape.size());
  Lazy out;
  out.shape.assign(x.shape.begin(), x.shape.begin() + first);
  out.shape.insert(out.shape.end(), offset->shape.begin(), offset->shape.end());
  out.shape.insert(out.shape.end(), x.shape.begin() + first + m, x.shape.end());
  out.dtype = x.dtype;
  out.cost = offset->cost + 4;
  out.load = [=, xs = x.shape, at_indices = offset->load](const std::vector<IndexPtr>& i) {
    // x's index with the indexed dimensions at 0; their positions come from the data.
    std::vector<IndexPtr> at(i.begin(), i.begin() + first);
    at.insert(at.end(), static_cast<size_t>(m), ix::constant(0));
    at.insert(at.end(), i.begin() + first + nb, i.end());
    auto dynamic = at_indices(std::vector<IndexPtr>(i.begin() + first, i.begin() + first + nb));
    return ex::gather(self.buffer, ix::linear(at, xs), dynamic, 1, self.dtype);
  };
  return many({out});
}

const std::map<std::string, Lowering>& table() {
  static const std::map<std::string, Lowering> t = [] {
    std::map<std::string, Lowering> m;
    for (const auto& [name, fn] : float_unary()) m["aten." + name] = lower_float_unary;
    for (const char* name : {"neg", "abs", "relu"})
      m[std::string("aten.") + name] = lower_typed_unary;
    for (const auto& [name, fn] : binary()) m["aten." + name] = lower_binary;
    m["aten.gelu"] = lower_gelu;
    for (const char* name : {"add", "sub", "rsub"}) m[std::string("aten.") + name] = lower_add_sub;
    m["aten.div"] = lower_div;
    m["aten.where"] = lower_where;
    m["aten.masked_fill"] = lower_masked_fill;
    for (const char* name : {"clamp", "clamp_min", "clamp_max", "hardtanh"})
      m[std::string("aten.") + name] = lower_clamp;
    for (const char* name :
         {"leaky_relu", "elu", "celu", "selu", "softplus", "hardsigmoid", "hardswish", "threshold",
          "hardshrink", "softshrink", "log_sigmoid_forward"})
      m[std::string("aten.") + name] = lower_activation;
    for (const char* name : {"lerp", "addcmul", "addcdiv"})
      m[std::string("aten.") + name] = lower_ternary_arith;
    for (const char* name : {"_to_copy", "to"}) m[std::string("aten.") + name] = lower_cast;
    for (const char* name :
         {"clone", "alias", "detach", "contiguous", "lift_fresh_copy", "positive"})
      m[std::string("aten.") + name] = lower_identity;
    for (const char* name :
         {"full", "zeros", "ones", "zeros_like", "ones_like", "full_like", "fill", "scalar_tensor"})
      m[std::string("aten.") + name] = lower_fill;
    // _reshape_alias is a reshape that torch could do as a view: the same elements in the same
    // order
    for (const char* name : {"view", "_unsafe_view", "reshape", "squeeze", "unsqueeze", "flatten",
                             "unflatten", "view_as", "_reshape_alias"})
      m[std::string("aten.") + name] = lower_reshape;
    for (const char* name : {"permute", "transpose", "t"})
      m[std::string("aten.") + name] = lower_permute;
    for (const char* name : {"expand", "repeat"}) m[std::string("aten.") + name] = lower_expand;
    for (const char* name : {"slice", "select"}) m[std::string("aten.") + name] = lower_slice;
    for (const char* name : {"split", "split_with_sizes", "unsafe_split", "unsafe_split_with_sizes",
                             "chunk", "unbind"})
      m[std::string("aten.") + name] = lower_split;
    m["aten.stack"] = lower_stack;
    m["aten.unfold"] = lower_unfold;
    for (const char* name : {"sum", "mean", "prod"})
      m[std::string("aten.") + name] = lower_sum_mean;
    for (const char* name : {"amax", "amin", "max", "min", "argmax", "argmin"})
      m[std::string("aten.") + name] = lower_extreme;
    for (const char* name : {"var", "std", "var_mean", "std_mean"})
      m[std::string("aten.") + name] = lower_var;
    for (const char* name : {"_softmax", "_log_softmax", "_safe_softmax"})
      m[std::string("aten.") + name] = lower_softmax;
    m["aten.logsumexp"] = lower_logsumexp;
    m["aten.linalg_vector_norm"] = lower_vector_norm;
    m["aten.norm"] = lower_vector_norm;  // norm.ScalarOpt_dim(self, p, dim, keepdim)
    m["aten.native_layer_norm"] = lower_layer_norm;
    m["aten.native_group_norm"] = lower_group_norm;
    for (const char* name :
         {"native_batch_norm", "_native_batch_norm_legit", "_native_batch_norm_legit_no_training",
          "_native_batch_norm_legit_functional"})
      m[std::string("aten.") + name] = lower_batch_norm;
    for (const char* name : {"mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"})
      m[std::string("aten.") + name] = lower_loss;
    for (const char* name : {"empty", "empty_like", "new_empty", "new_zeros"})
      m[std::string("aten.") + name] = lower_fill;
    m["aten.nll_loss_forward"] = lower_nll_loss;
    m["aten.scatter"] = lower_scatter;
    m["aten.index"] = lower_index;
    m["aten.embedding"] = lower_embedding;
    m["aten.roll"] = lower_roll;
    m["aten.copy"] = lower_copy;
    add_window_lowerings(m);
    return m;
  }();
  return t;
}

}  // namespace

Lowering lowering_of(const std::string& op) {
  // "aten.add.Tensor": the table knows "aten.add"; max.default and max.dim differ inside it.
  auto second = op.find('.', op.find('.') + 1);
  auto it = table().find(op.substr(0, second));
  return it == table().end() ? nullptr : it->second;
}

std::vector<std::string> lowered_ops() {
  std::vector<std::string> out;
  for (const auto& [name, fn] : table()) out.push_back(name);
  return out;
}

}  // namespace kforge::generator
