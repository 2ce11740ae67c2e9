// Lowerings of the operators that combine over windows of their inputs: matrix products (mm, bmm,
// addmm, baddbmm, mv, dot), convolutions (direct and transposed, any number of spatial dims,
// groups), pooling, padding and concatenation. Each is a reduction (or a view) of the IR: a
// product summed over k, a window combined over its offsets, an element read where its index
// falls inside the input (and a constant outside it).
#include <algorithm>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <optional>

#include "generator/expr_text.hpp"
#include "generator/lowering.hpp"

namespace kforge::generator {
namespace {

using Out = Result<std::vector<Lazy>>;
using Exprs = std::vector<ExprPtr>;

ExprPtr f(const char* fn, Exprs args, DType t = DType::f32) {
  return ex::call(fn, std::move(args), t);
}

/// `v` repeated to `n` values when it gives one (PyTorch's `stride=2` for every dimension).
std::vector<int64_t> per_dim(std::vector<int64_t> v, size_t n, int64_t fallback) {
  if (v.empty()) v = {fallback};
  while (v.size() < n) v.push_back(v.back());
  return v;
}

/// 0 <= i < size, as a truth value.
ExprPtr inside(const IndexPtr& i, int64_t size) {
  auto v = ex::index(i);
  return f("and",
           {f("ge", {v, ex::constant(0, DType::i64)}, DType::b8),
            f("lt", {v, ex::constant(static_cast<double>(size), DType::i64)}, DType::b8)},
           DType::b8);
}

ExprPtr all_of(const std::vector<ExprPtr>& conditions) {
  ExprPtr out;
  for (const auto& c : conditions) out = out ? f("and", {out, c}, DType::b8) : c;
  return out;
}

/// a's element where `cond` holds, else `otherwise` (a's load is not evaluated outside).
ExprPtr guarded(const ExprPtr& cond, const ExprPtr& value, double otherwise) {
  if (!cond) return value;
  return f("where", {cond, value, ex::constant(otherwise, value->dtype)}, value->dtype);
}

/// k < kernel: a phased transposed convolution's kernel offset r + s j inside its weight (where
/// the kernel is not a multiple of the stride, the last j overshoots it for some phases).
ExprPtr offset_inside(const IndexPtr& k, int64_t kernel) {
  return f("lt", {ex::index(k), ex::constant(static_cast<double>(kernel), DType::i64)}, DType::b8);
}

/// x w, each factor read only where its own condition holds (else 0): a weight offset past the
/// kernel is never read, where a zeroed input times it would be NaN whenever the memory beyond
/// the weight held one (0 * NaN), or a fault past its allocation.
ExprPtr guarded_product(const ExprPtr& x_cond, const ExprPtr& x, const ExprPtr& w_cond,
                        const ExprPtr& w) {
  return f("mul", {guarded(x_cond, x, 0), guarded(w_cond, w, 0)});
}

/// The operand of a sum of products over `space` (its last dimension summed) as the sum reads
/// it: a buffer where it calls a special function and the sum reads each of its elements for
/// more than one output (a row of a matrix product, read by every column), which would compute
/// it again for each (an LSTM's h_t = o * tanh(c) in the next step's h_t @ W_hh^T: 4 x hidden
/// times; BENCHMARKS.md, sixty-sixth step). Where the kernels sum tiles (CUDA), an element is
/// computed once a tile of 32 to 128 columns: there it stays inlined while fewer than
/// kTiledRereads outputs read it and the product is tiled (both sides 16 or more, as
/// emit_cuda_contraction tiles it; a softmax's probabilities read by attention's head dimension
/// are computed again a few times rather than stored). Where it loads and adds, it stays inlined.
constexpr int64_t kTiledRereads = 256;

Lazy computed_once(Lowerer& L, const Lazy& operand, const std::vector<int64_t>& space) {
  const int64_t elements = numel(operand.shape);
  if (operand.buffer >= 0 || elements == 0 || space.empty() || space.back() == 0) return operand;
  const int64_t outputs = numel(space) / space.back();
  const int64_t rereads = numel(space) / elements;  // the outputs that read an element
  if (rereads < 2) return operand;
  if (L.tiled_products() && rereads < kTiledRereads && rereads >= 16 && outputs / rereads >= 16)
    return operand;
  if (special_functions(operand.load(ix::vars(operand.shape))) == 0) return operand;
  return L.realise_shared(operand);
}

Lazy product_sum(Lowerer& L, const Lazy& a_read, const Lazy& b_read, std::vector<int64_t> space,
                 std::function<std::vector<IndexPtr>(const std::vector<IndexPtr>&)> a_at,
                 std::function<std::vector<IndexPtr>(const std::vector<IndexPtr>&)> b_at) {
  const Lazy a = computed_once(L, a_read, space), b = computed_once(L, b_read, space);
  Lazy prod;
  prod.shape = std::move(space);
  prod.dtype = DType::f32;
  prod.cost = a.cost + b.cost + 1;
  auto la = a.load, lb = b.load;
  prod.load = [la, lb, a_at, b_at](const std::vector<IndexPtr>& i) {
    return f("mul", {ex::cast(la(a_at(i)), DType::f32), ex::cast(lb(b_at(i)), DType::f32)});
  };
  return L.reduce(prod, {static_cast<int64_t>(prod.shape.size()) - 1}, false, Combine::sum);
}

/// Whether the node's tensor arguments (index, keyword name) are float32, the only type the
/// library calls take (checked before any operand is made, so a refusal leaves no buffer behind).
bool float_operands(const Lowerer& L, const GraphNode& n,
                    const std::vector<std::pair<size_t, const char*>>& args) {
  return std::all_of(args.begin(), args.end(), [&](const auto& a) {
    auto t = L.tensor(n, a.first, a.second);
    return t && t->dtype == DType::f32;
  });
}

/// mm, addmm, bmm, baddbmm as the library computes them (cuBLAS on the GPU).
Out library_matmul(Lowerer& L, const GraphNode& n) {
  const std::string name = base_name(n.op);
  const bool adds = name == "addmm" || name == "baddbmm";
  std::vector<int> operands;
  std::vector<std::string> texts;
  const std::vector<const char*> names =
      adds ? std::vector<const char*>{"self", name == "addmm" ? "mat1" : "batch1",
                                      name == "addmm" ? "mat2" : "batch2"}
           : std::vector<const char*>{"self", "mat2"};
  std::vector<std::pair<size_t, const char*>> args;
  for (size_t i = 0; i < names.size(); ++i) args.emplace_back(i, names[i]);
  if (!float_operands(L, n, args)) return Out::failure("a library call takes float32 operands");
  // A factor of the matrices (attention's query and key each times the root of its scale) scales
  // the product instead: alpha where the call has one, else whatever reads the result.
  double factor = 1;
  for (size_t i = 0; i < names.size(); ++i) {
    auto t = L.library_operand(n, i, names[i], operands, adds && i == 0 ? nullptr : &factor);
    if (!t) return Out::failure(t.error);
    texts.push_back(*t);
  }
  std::string call = "at::" + name + "(" + texts[0] + ", " + texts[1];
  if (adds) {
    const auto& beta = L.arg(n, 3, "beta");
    const auto& alpha = L.arg(n, 4, "alpha");
    call += ", " + texts[2] + ", " + exact_number(beta.is_number() ? beta.as_number() : 1) + ", " +
            exact_number((alpha.is_number() ? alpha.as_number() : 1) * factor);
    factor = 1;
  }
  Lazy product = L.library(call + ")", operands, Lowerer::meta_shape(n));
  if (factor == 1) return Out{std::vector<Lazy>{product}, ""};
  return Out{std::vector<Lazy>{L.map1(product,
                                      [factor](ExprPtr e) {
                                        return f("mul", {e, ex::constant(factor)});
                                      })},
             ""};
}

/// mm, bmm, addmm, baddbmm, mv, dot: sums of products over the shared dimension.
Out lower_matmul(Lowerer& L, const GraphNode& n) {
  const std::string name = base_name(n.op);
  if (L.library_calls() &&
      (name == "mm" || name == "addmm" || name == "bmm" || name == "baddbmm")) {
    auto library = library_matmul(L, n);
    if (library) return library;
  }
  const bool adds = name == "addmm" || name == "baddbmm" || name == "addmv";
  const size_t first = adds ? 1 : 0;
  auto a = L.tensor(n, first, adds ? "mat1" : "self");
  auto b = L.tensor(n, first + 1, adds ? "mat2" : "mat2");
  if (name == "baddbmm") {
    a = L.tensor(n, 1, "batch1");
    b = L.tensor(n, 2, "batch2");
  }
  if (name == "mv" || name == "addmv") b = L.tensor(n, first + 1, "vec");
  if (name == "dot") b = L.tensor(n, 1, "tensor");
  if (!a || !b) return Out::failure(!a ? a.error : b.error);
  const auto& as = a->shape;
  const auto& bs = b->shape;
  Lazy prod;
  if (name == "mm" || name == "addmm") {
    prod = product_sum(
        L, *a, *b, {as[0], bs[1], as[1]},
        [](const auto& i) {
          return std::vector<IndexPtr>{i[0], i[2]};
        },
        [](const auto& i) {
          return std::vector<IndexPtr>{i[2], i[1]};
        });
  } else if (name == "bmm" || name == "baddbmm") {
    prod = product_sum(
        L, *a, *b, {as[0], as[1], bs[2], as[2]},
        [](const auto& i) {
          return std::vector<IndexPtr>{i[0], i[1], i[3]};
        },
        [](const auto& i) {
          return std::vector<IndexPtr>{i[0], i[3], i[2]};
        });
  } else if (name == "mv" || name == "addmv") {
    prod = product_sum(
        L, *a, *b, {as[0], as[1]},
        [](const auto& i) {
          return std::vector<IndexPtr>{i[0], i[1]};
        },
        [](const auto& i) { return std::vector<IndexPtr>{i[1]}; });
  } else {  // dot
    prod = product_sum(
        L, *a, *b, {as[0]}, [](const auto& i) { return std::vector<IndexPtr>{i[0]}; },
        [](const auto& i) { return std::vector<IndexPtr>{i[0]}; });
  }
  if (!adds) return Out{std::vector<Lazy>{prod}, ""};
  auto bias = L.tensor(n, 0, "self");
  if (!bias) return Out::failure(bias.error);
  const auto& beta = n.kwargs["beta"];
  const auto& alpha = n.kwargs["alpha"];
  const double be = beta.is_number() ? beta.as_number() : 1,
               al = alpha.is_number() ? alpha.as_number() : 1;
  auto out = L.map(
      {prod, *bias},
      [be, al](const Exprs& e) {
        ExprPtr p = al == 1 ? e[0] : f("mul", {e[0], ex::constant(al)});
        if (be == 0) return p;
        ExprPtr c = be == 1 ? e[1] : f("mul", {e[1], ex::constant(be)});
        return f("add", {p, c});
      },
      DType::f32);
  if (!out) return Out::failure(out.error);
  return Out{std::vector<Lazy>{*out}, ""};
}

/// aten.convolution without its bias as the library computes it (cuDNN on the GPU); the bias is
/// added in the kernel that reads the result (one pass fewer than the library's own bias add).
Result<Lazy> library_convolution(Lowerer& L, const GraphNode& n) {
  if (!float_operands(L, n, {{0, "input"}, {1, "weight"}}))
    return Result<Lazy>::failure("a library call takes float32 operands");
  std::vector<int> operands;
  auto x = L.library_operand(n, 0, "input", operands);
  if (!x) return Result<Lazy>::failure(x.error);
  auto w = L.library_operand(n, 1, "weight", operands);
  if (!w) return Result<Lazy>::failure(w.error);
  const std::string call = "at::convolution(" + *x + ", " + *w + ", c10::optional<at::Tensor>(), " +
                           int_list_text(ints(L.arg(n, 3, "stride"))) + ", " +
                           int_list_text(ints(L.arg(n, 4, "padding"))) + ", " +
                           int_list_text(ints(L.arg(n, 5, "dilation"))) + ", " +
                           (L.arg(n, 6, "transposed").as_bool(false) ? "true" : "false") + ", " +
                           int_list_text(ints(L.arg(n, 7, "output_padding"))) + ", " +
                           std::to_string(L.arg(n, 8, "groups").as_int(1)) + ")";
  return {L.library(call, operands, Lowerer::meta_shape(n)), ""};
}

Out convolution_bias(Lowerer& L, const GraphNode& n, const Lazy& sum);

/// A transposed convolution whose outputs along each `phased` dimension (stride s, dilation d)
/// are grouped by the kernel offsets they take. With g = gcd(s, d), o + padding = q s + r takes
/// terms only where g divides r, and then the offsets k = c + (s / g) j of one class c < s / g
/// (c d = r modulo s), over the input elements q - c d / s - (d / g) j (the quotient rounded
/// down); at dilation 1 the class is the phase r itself and the input element q - j. The sum runs
/// over [N, Cout, (Q, s / g) or O a dimension, Cin/g, J or K a dimension], q from the first the
/// outputs take (padding / s), each term a plain offset of its variables (no remainder or
/// quotient of the output's position); at dilation 1 the class is read by the weight alone (a
/// column of the implicit GEMM beside the output channel), dilated the input reads it too (a
/// batch). Only the classes below the kernel's size have terms and are summed. Its buffer is
/// read back at (o + padding) / s - q0 and the class of (o + padding) % s, 0 where g does not
/// divide it or the class has no terms. An unphased dimension (stride 1) sums every offset,
/// guarded.
Lazy transposed_in_phase_batches(Lowerer& L, const Lazy& x, const Lazy& w,
                                 const std::vector<int64_t>& stride,
                                 const std::vector<int64_t>& padding,
                                 const std::vector<int64_t>& dilation, int64_t groups,
                                 const std::vector<bool>& phased,
                                 const std::vector<int64_t>& out_shape) {
  const size_t nd = x.shape.size() - 2;
  const int64_t cout = out_shape[1], cout_g = cout / groups, cin_g = x.shape[1] / groups;
  // along each phased dimension: q0, gcd(s, d), the classes s / g, d / g, the inverse of d / g
  // modulo s / g (the class of a phase r: (r / g) times it, modulo s / g), and the classes with
  // terms (those below the kernel's size: a kernel of 3 at a stride of 5 takes 3 of 5)
  std::vector<int64_t> first(nd, 0), common(nd, 1), classes(nd, 1), step(nd, 1), inverse(nd, 0),
      summed(nd, 1);
  std::vector<int64_t> space{out_shape[0], cout};
  for (size_t d = 0; d < nd; ++d) {
    if (!phased[d]) {
      space.push_back(out_shape[2 + d]);
      continue;
    }
    first[d] = padding[d] / stride[d];
    common[d] = std::gcd(stride[d], dilation[d]);
    classes[d] = stride[d] / common[d];
    step[d] = dilation[d] / common[d];
    while ((inverse[d] * step[d]) % classes[d] != 1 % classes[d]) ++inverse[d];
    summed[d] = std::min(classes[d], w.shape[2 + d]);
    space.push_back((out_shape[2 + d] - 1 + padding[d]) / stride[d] - first[d] + 1);
    space.push_back(summed[d]);
  }
  const size_t reduced_from = space.size();
  space.push_back(cin_g);
  for (size_t d = 0; d < nd; ++d) {
    const int64_t k = w.shape[2 + d];
    space.push_back(phased[d] ? (k + classes[d] - 1) / classes[d] : k);
  }
  const auto in_shape = x.shape, w_shape = w.shape;
  auto lx = x.load, lw = w.load;
  Lazy prod;
  prod.shape = space;
  prod.cost = x.cost + w.cost + 8;
  prod.load = [=](const std::vector<IndexPtr>& i) {
    const IndexPtr& co = i[1];
    const IndexPtr c = ix::add(ix::mul(ix::div(co, cout_g), cin_g), i[reduced_from]);
    std::vector<IndexPtr> at{i[0], c}, wat{c, ix::mod(co, cout_g)};
    std::vector<ExprPtr> conditions, kernel_conditions;  // the input's; the weight's
    size_t o = 2;  // the output dimension's first variable in the space
    for (size_t d = 0; d < nd; ++d) {
      const IndexPtr& j = i[reduced_from + 1 + d];
      const int64_t kernel = w_shape[2 + d], size = in_shape[2 + d];
      if (phased[d]) {
        // k = c + (s / g) j; the input element q - c d / s - (d / g) j
        const IndexPtr& cls = i[o + 1];
        const IndexPtr k = ix::add(cls, ix::mul(j, classes[d]));
        IndexPtr p = ix::add(ix::add(i[o], ix::constant(first[d])), ix::mul(j, -step[d]));
        if (dilation[d] > 1)
          p = ix::add(p, ix::mul(ix::div(ix::mul(cls, dilation[d]), stride[d]), -1));
        // the last class's last offset past the kernel (a kernel of 5 in classes of 2); not
        // where the kernel is shorter than the classes (3 of 5 summed, one offset each)
        const int64_t last = summed[d] - 1 + classes[d] * ((kernel - 1) / classes[d]);
        if (last >= kernel) kernel_conditions.push_back(offset_inside(k, kernel));
        conditions.push_back(inside(p, size));
        at.push_back(p);
        wat.push_back(k);
        o += 2;
        continue;
      }
      // stride 1 (every stride above it is phased): the input element o + padding - k dilation
      const IndexPtr p = ix::add(ix::add(i[o], ix::constant(padding[d])), ix::mul(j, -dilation[d]));
      conditions.push_back(inside(p, size));
      at.push_back(p);
      wat.push_back(j);
      o += 1;
    }
    return guarded_product(all_of(conditions), ex::cast(lx(at), DType::f32),
                           all_of(kernel_conditions), ex::cast(lw(wat), DType::f32));
  };
  std::vector<int64_t> reduced;
  for (size_t d = reduced_from; d < space.size(); ++d) reduced.push_back(static_cast<int64_t>(d));
  const Lazy sum = L.reduce(prod, reduced, false, Combine::sum);
  // the output (n, co, o...) where the sum keeps it
  Lazy out;
  out.shape = out_shape;
  out.cost = 1;
  auto ls = sum.load;
  out.load = [=](const std::vector<IndexPtr>& i) {
    std::vector<IndexPtr> at{i[0], i[1]};
    std::vector<ExprPtr> taken;  // where the output's phase has terms
    for (size_t d = 0; d < nd; ++d) {
      if (!phased[d]) {
        at.push_back(i[2 + d]);
        continue;
      }
      const IndexPtr shifted = ix::add(i[2 + d], ix::constant(padding[d]));
      at.push_back(ix::add(ix::div(shifted, stride[d]), ix::constant(-first[d])));
      const IndexPtr r = ix::mod(shifted, stride[d]);
      if (common[d] > 1)
        taken.push_back(
            f("eq", {ex::index(ix::mod(r, common[d])), ex::constant(0, DType::i64)}, DType::b8));
      const IndexPtr cls =
          dilation[d] == 1 ? r : ix::mod(ix::mul(ix::div(r, common[d]), inverse[d]), classes[d]);
      if (summed[d] < classes[d])
        taken.push_back(
            f("lt", {ex::index(cls), ex::constant(static_cast<double>(summed[d]), DType::i64)},
              DType::b8));
      at.push_back(cls);
    }
    return guarded(all_of(taken), ls(at), 0);
  };
  return out;
}

/// A grouped convolution's sum of `prod` ([N, Cout, *O, Cin / G, *K]) over the space [N, G,
/// Cout / G, *O, Cin / G, *K]: the output channel's group a dimension of its own, which both
/// factors read, and its channel within the group one that only the weight reads, so that the CUDA
/// contraction kernel tiles it as G products of Cout / G columns. With the output channel one
/// dimension both factors read, it took it for a batch of products one column wide and left the
/// sum to a group of threads an output (KernelBench's 25_ShuffleNetUnit: 1 x 1 convolutions of 3
/// groups at 0.09x of eager). Its buffer is [N, Cout, *O], the same elements in the same order.
Lazy grouped_sum(Lowerer& L, const Lazy& prod, int64_t groups,
                 const std::vector<int64_t>& out_shape) {
  const int64_t cout_g = prod.shape[1] / groups;
  Lazy split = prod;
  split.shape = {prod.shape[0], groups, cout_g};
  split.shape.insert(split.shape.end(), prod.shape.begin() + 2, prod.shape.end());
  auto load = prod.load;
  split.load = [load, cout_g](const std::vector<IndexPtr>& i) {
    std::vector<IndexPtr> at{i[0], ix::add(ix::mul(i[1], cout_g), i[2])};
    at.insert(at.end(), i.begin() + 3, i.end());
    return load(at);
  };
  std::vector<int64_t> reduced;
  for (size_t d = 1 + out_shape.size(); d < split.shape.size(); ++d)
    reduced.push_back(static_cast<int64_t>(d));
  return L.merged(L.reduce(split, reduced, false, Combine::sum), out_shape);
}

/// aten.convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
/// groups): each output element a sum over its group's input channels and the kernel's offsets.
Out lower_convolution(Lowerer& L, const GraphNode& n) {
  std::optional<Lazy> library;
  if (L.library_calls())
    if (auto called = library_convolution(L, n)) library = *called;
  if (library) return convolution_bias(L, n, *library);
  auto x = L.tensor(n, 0, "input");
  auto w = L.tensor(n, 1, "weight");
  if (!x || !w) return Out::failure(!x ? x.error : w.error);
  const size_t nd = x->shape.size() - 2;
  const auto stride = per_dim(ints(L.arg(n, 3, "stride")), nd, 1);
  const auto padding = per_dim(ints(L.arg(n, 4, "padding")), nd, 0);
  const auto dilation = per_dim(ints(L.arg(n, 5, "dilation")), nd, 1);
  const bool transposed = L.arg(n, 6, "transposed").as_bool(false);
  const int64_t groups = L.arg(n, 8, "groups").as_int(1);
  const auto out_shape = Lowerer::meta_shape(n);
  const int64_t cin = x->shape[1], cout = out_shape[1];
  const int64_t cin_g = cin / groups, cout_g = cout / groups;
  // A transposed convolution's output o along a dimension of stride s > 1 (dilation 1) takes only
  // the kernel offsets k = (o + padding) % s + s * j, the others landing between input elements:
  // unless the lowering's transposed_sum is every_offset its sum walks j, ceil(K / s) terms where
  // it walks K of which all but K / s are guarded off (a stride of 2 in three dimensions: an
  // eighth of them); phase_batches also takes the phase out of o, and groups a dilated
  // dimension's outputs by the offsets they take too (transposed_in_phase_batches).
  std::vector<bool> phased(nd, false);
  std::vector<int64_t> space = out_shape;  // [N, Cout, *O, Cin/g, *K] (*J where phased)
  space.push_back(cin_g);
  // output_phases groups a convolution with a dilated strided dimension by class as phase_batches
  // does (the offsets it takes are not (o + padding) % s + s j there)
  bool dilated_strided = false;
  for (size_t d = 0; d < nd; ++d) dilated_strided |= stride[d] > 1 && dilation[d] > 1;
  const TransposedSum sum = L.transposed_sum() == TransposedSum::output_phases && dilated_strided
                                ? TransposedSum::phase_batches
                                : L.transposed_sum();
  for (size_t d = 0; d < nd; ++d) {
    const int64_t k = w->shape[2 + d];
    phased[d] = transposed && stride[d] > 1 && sum != TransposedSum::every_offset;
    space.push_back(phased[d] ? (k + stride[d] - 1) / stride[d] : k);
  }
  if (sum == TransposedSum::phase_batches && std::count(phased.begin(), phased.end(), true) > 0)
    return convolution_bias(L, n,
                            transposed_in_phase_batches(L, *x, *w, stride, padding, dilation,
                                                        groups, phased, out_shape));
  const auto in_shape = x->shape, w_shape = w->shape;
  auto lx = x->load, lw = w->load;
  Lazy prod;
  prod.shape = space;
  prod.cost = x->cost + w->cost + 8;
  prod.load = [=](const std::vector<IndexPtr>& i) {
    const IndexPtr& nn = i[0];
    const IndexPtr& co = i[1];
    const IndexPtr& ci = i[2 + nd];
    const IndexPtr group = ix::div(co, cout_g);
    const IndexPtr c = ix::add(ix::mul(group, cin_g), ci);
    std::vector<IndexPtr> at{nn, c};
    std::vector<ExprPtr> conditions, kernel_conditions;  // the input's; the weight's
    std::vector<IndexPtr> offsets;  // each dimension's kernel offset, where the weight is read
    for (size_t d = 0; d < nd; ++d) {
      const IndexPtr& o = i[2 + d];
      IndexPtr k = i[3 + nd + d];
      if (phased[d]) {
        // k = (o + padding) % s + s * j; the input element (o + padding - k) / s, exact
        const int64_t s = stride[d], kernel = w_shape[2 + d];
        const IndexPtr shifted = ix::add(o, ix::constant(padding[d]));
        k = ix::add(ix::mod(shifted, s), ix::mul(i[3 + nd + d], s));
        const IndexPtr p = ix::add(ix::div(shifted, s), ix::mul(i[3 + nd + d], -1));
        if (kernel % s != 0) kernel_conditions.push_back(offset_inside(k, kernel));
        conditions.push_back(inside(p, in_shape[2 + d]));
        at.push_back(p);
        offsets.push_back(k);
        continue;
      }
      offsets.push_back(k);
      if (!transposed) {
        // p = o * stride - padding + k * dilation
        IndexPtr p = ix::add(ix::add(ix::mul(o, stride[d]), ix::mul(k, dilation[d])),
                             ix::constant(-padding[d]));
        if (padding[d] > 0 ||
            (o->bound - 1) * stride[d] + (k->bound - 1) * dilation[d] >= in_shape[2 + d])
          conditions.push_back(inside(p, in_shape[2 + d]));
        at.push_back(p);
      } else {
        // o = i * stride - padding + k * dilation: i = (o + padding - k * dilation) / stride
        IndexPtr num = ix::add(ix::add(o, ix::constant(padding[d])), ix::mul(k, -dilation[d]));
        IndexPtr p = ix::div(num, stride[d]);
        conditions.push_back(f("ge", {ex::index(num), ex::constant(0, DType::i64)}, DType::b8));
        if (stride[d] > 1)
          conditions.push_back(f(
              "eq", {ex::index(ix::mod(num, stride[d])), ex::constant(0, DType::i64)}, DType::b8));
        conditions.push_back(
            f("lt", {ex::index(p), ex::constant(static_cast<double>(in_shape[2 + d]), DType::i64)},
              DType::b8));
        at.push_back(p);
      }
    }
    std::vector<IndexPtr> wat;
    if (!transposed) {
      wat = {co, ci};
    } else {  // weight [Cin, Cout/g, *K]
      wat = {c, ix::mod(co, cout_g)};
    }
    for (size_t d = 0; d < nd; ++d) wat.push_back(offsets[d]);
    return guarded_product(all_of(conditions), ex::cast(lx(at), DType::f32),
                           all_of(kernel_conditions), ex::cast(lw(wat), DType::f32));
  };
  // groups of 16 output channels or more: the contraction kernel's least width
  if (groups > 1 && cout_g >= 16 && !transposed)
    return convolution_bias(L, n, grouped_sum(L, prod, groups, out_shape));
  std::vector<int64_t> reduced;
  for (size_t d = 2 + nd; d < space.size(); ++d) reduced.push_back(static_cast<int64_t>(d));
  return convolution_bias(L, n, L.reduce(prod, reduced, false, Combine::sum));
}

/// The convolution's sum plus its bias (when it has one), per output channel.
Out convolution_bias(Lowerer& L, const GraphNode& n, const Lazy& sum) {
  if (L.arg(n, 2, "bias").is_null()) return Out{std::vector<Lazy>{sum}, ""};
  auto bias = L.tensor(n, 2, "bias");
  if (!bias) return Out::failure(bias.error);
  std::vector<int64_t> bshape{sum.shape[1]};
  for (size_t d = 2; d < sum.shape.size(); ++d) bshape.push_back(1);
  auto out = L.map(
      {sum, Lowerer::reshape(*bias, bshape)},
      [](const Exprs& e) {
        return f("add", {e[0], e[1]});
      },
      DType::f32);
  if (!out) return Out::failure(out.error);
  return Out{std::vector<Lazy>{*out}, ""};
}

/// A pooling operator's windows: its spatial dimensions (1d, 2d or 3d in its name), the leading
/// ones of a tensor of `rank`, and per spatial dimension the kernel, stride (the kernel's where
/// none is given), padding and dilation, read from the node's arguments from `first` on
/// (kernel_size, stride, padding, then dilation where the operator has one).
struct PoolWindows {
  size_t nd = 2, lead = 0;
  std::vector<int64_t> kernel, stride, padding, dilation;
};

PoolWindows pool_windows(Lowerer& L, const GraphNode& n, size_t rank, int first, bool dilated) {
  PoolWindows w;
  const std::string name = base_name(n.op);
  w.nd = name.find("1d") != std::string::npos ? 1 : name.find("3d") != std::string::npos ? 3 : 2;
  w.lead = rank - w.nd;
  w.kernel = per_dim(ints(L.arg(n, first, "kernel_size")), w.nd, 1);
  w.stride = ints(L.arg(n, first + 1, "stride"));
  w.stride = w.stride.empty() ? w.kernel : per_dim(w.stride, w.nd, 1);
  w.padding = per_dim(ints(L.arg(n, first + 2, "padding")), w.nd, 0);
  w.dilation = dilated ? per_dim(ints(L.arg(n, first + 3, "dilation")), w.nd, 1)
                       : std::vector<int64_t>(w.nd, 1);
  return w;
}

/// max_pool{1,2,3}d_with_indices, avg_pool{1,2,3}d: a window per output element.
Out lower_pool(Lowerer& L, const GraphNode& n) {
  const std::string name = base_name(n.op);
  const bool max = name.rfind("max_pool", 0) == 0;
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  const auto out_shape = Lowerer::meta_shape(n, 0);
  const auto w = pool_windows(L, n, x->shape.size(), 1, max);
  const size_t nd = w.nd, lead = w.lead;
  const auto &kernel = w.kernel, &stride = w.stride, &padding = w.padding, &dilation = w.dilation;
  const bool ceil_mode = L.arg(n, max ? 5 : 4, "ceil_mode").as_bool(false);
  const bool count_pad = max ? true : L.arg(n, 5, "count_include_pad").as_bool(true);
  const auto& divisor_override = L.arg(n, 6, "divisor_override");
  std::vector<int64_t> space(out_shape.begin(),
                             out_shape.begin() + static_cast<std::ptrdiff_t>(lead + nd));
  for (int64_t k : kernel) space.push_back(k);
  const auto in_shape = x->shape;
  auto lx = x->load;
  // The input position along spatial dimension d of window element i (may be in the padding).
  auto position = [=](const std::vector<IndexPtr>& i, size_t d) {
    return ix::add(ix::add(ix::mul(i[lead + d], stride[d]), ix::mul(i[lead + nd + d], dilation[d])),
                   ix::constant(-padding[d]));
  };
  Lazy window;
  window.shape = space;
  window.cost = x->cost + 4;
  window.load = [=](const std::vector<IndexPtr>& i) {
    std::vector<IndexPtr> at(i.begin(), i.begin() + static_cast<std::ptrdiff_t>(lead));
    std::vector<ExprPtr> conditions;
    for (size_t d = 0; d < nd; ++d) {
      IndexPtr p = position(i, d);
      if (padding[d] > 0 || ceil_mode) conditions.push_back(inside(p, in_shape[lead + d]));
      at.push_back(p);
    }
    return guarded(all_of(conditions), ex::cast(lx(at), DType::f32),
                   max ? -std::numeric_limits<double>::infinity() : 0);
  };
  std::vector<int64_t> reduced;
  for (size_t d = lead + nd; d < space.size(); ++d) reduced.push_back(static_cast<int64_t>(d));
  if (!max) {
    double count = 1;
    for (int64_t k : kernel) count *= static_cast<double>(k);
    if (divisor_override.is_number()) count = divisor_override.as_number();
    const bool unpadded =
        std::all_of(padding.begin(), padding.end(), [](int64_t v) { return v == 0; });
    if (divisor_override.is_number() || (!ceil_mode && (count_pad || unpadded)))
      return Out{std::vector<Lazy>{L.reduce(window, reduced, false, Combine::sum, 1 / count)}, ""};
    // The divisor differs by output: as PyTorch counts, the window's positions inside the input
    // (without count_include_pad) or inside the input and its padding (with it, where ceil_mode
    // lets the last window run past the padding), a second sum over the same window beside the
    // first.
    Lazy counted;
    counted.shape = space;
    counted.cost = 4;
    counted.load = [=](const std::vector<IndexPtr>& i) {
      std::vector<ExprPtr> conditions;
      for (size_t d = 0; d < nd; ++d) {
        IndexPtr p = position(i, d);
        if (!count_pad) {
          if (padding[d] > 0 || ceil_mode) conditions.push_back(inside(p, in_shape[lead + d]));
        } else {
          conditions.push_back(
              f("lt",
                {ex::index(p),
                 ex::constant(static_cast<double>(in_shape[lead + d] + padding[d]), DType::i64)},
                DType::b8));
        }
      }
      return guarded(all_of(conditions), ex::constant(1), 0);
    };
    Lazy sum = L.reduce(window, reduced, false, Combine::sum);
    Lazy positions = L.reduce(counted, reduced, false, Combine::sum);
    auto out = L.map(
        {sum, positions},
        [](const Exprs& e) {
          return f("div", {e[0], e[1]});
        },
        DType::f32);
    if (!out) return Out::failure(out.error);
    return Out{std::vector<Lazy>{*out}, ""};
  }
  Lazy values = L.reduce(window, reduced, false, Combine::max);
  Lazy arg = L.reduce(window, reduced, false, Combine::argmax);
  // The index of the maximum in its input plane: its window offset turned into a position.
  Lazy indices = arg;
  indices.buffer = -1;
  auto la = arg.load;
  indices.load = [=](const std::vector<IndexPtr>& i) {
    ExprPtr a = la(i);
    ExprPtr flat;
    int64_t inner = 1;
    for (size_t d = nd; d-- > 0;) {
      ExprPtr k =
          f("remainder",
            {f("div_trunc", {a, ex::constant(static_cast<double>(inner), DType::i64)}, DType::i64),
             ex::constant(static_cast<double>(kernel[d]), DType::i64)},
            DType::i64);
      ExprPtr p =
          f("add",
            {ex::index(ix::add(ix::mul(i[lead + d], stride[d]), ix::constant(-padding[d]))),
             f("mul", {k, ex::constant(static_cast<double>(dilation[d]), DType::i64)}, DType::i64)},
            DType::i64);
      int64_t plane = 1;
      for (size_t e = d + 1; e < nd; ++e) plane *= in_shape[lead + e];
      ExprPtr term =
          f("mul", {p, ex::constant(static_cast<double>(plane), DType::i64)}, DType::i64);
      flat = flat ? f("add", {flat, term}, DType::i64) : term;
      inner *= kernel[d];
    }
    return flat;
  };
  return Out{std::vector<Lazy>{values, indices}, ""};
}

/// constant_pad_nd(self, pad, value): pad lists (before, after) pairs from the last dimension.
Out lower_pad(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  const auto pad = ints(L.arg(n, 1, "pad"));
  const auto& v = L.arg(n, 2, "value");
  const double value = v.is_number() ? v.as_number() : 0;
  Lazy y = *x;
  y.buffer = -1;
  y.shape = Lowerer::meta_shape(n);
  const auto in_shape = x->shape;
  auto lx = x->load;
  y.load = [=](const std::vector<IndexPtr>& i) {
    std::vector<IndexPtr> at = i;
    std::vector<ExprPtr> conditions;
    for (size_t k = 0; 2 * k + 1 < pad.size(); ++k) {
      const size_t d = in_shape.size() - 1 - k;
      if (pad[2 * k] == 0 && pad[2 * k + 1] >= 0) continue;
      at[d] = ix::add(i[d], ix::constant(-pad[2 * k]));
      conditions.push_back(inside(at[d], in_shape[d]));
    }
    for (size_t k = 0; 2 * k + 1 < pad.size(); ++k) {
      const size_t d = in_shape.size() - 1 - k;
      if (pad[2 * k] == 0 && pad[2 * k + 1] > 0) conditions.push_back(inside(i[d], in_shape[d]));
    }
    return guarded(all_of(conditions), lx(at), value);
  };
  return Out{std::vector<Lazy>{y}, ""};
}

/// The exclusive scan that `cat((identity, scan), dim)` is: a slice of one element along dim of
/// the scan's identity (zeros before a sum, ones before a product), then an inclusive scan along
/// dim (of all but the last element: 92_cumsum_exclusive). None for any other concatenation.
std::optional<Lazy> exclusive_scan(Lowerer& L, const std::vector<Lazy>& parts, int64_t dim) {
  if (parts.size() != 2) return std::nullopt;
  const Buffer* s = L.scan_of(parts[1]);
  const auto d = static_cast<size_t>(dim);
  if (!s || !s->reduced[d] || s->reverse || s->exclusive || parts[0].shape[d] != 1 ||
      parts[0].dtype != s->dtype)
    return std::nullopt;
  const ExprPtr first = parts[0].load(ix::vars(parts[0].shape));
  const double identity = s->combine == Combine::sum ? 0 : 1;
  if (first->kind != Expr::Kind::constant || first->value != identity) return std::nullopt;
  Lazy operand;
  operand.shape = s->shape;
  operand.shape[d] += 1;
  operand.dtype = s->dtype;
  operand.load = s->compute;
  return L.scan(operand, dim, s->combine, /*reverse=*/false, /*exclusive=*/true);
}

/// cat(tensors, dim): each element read from the tensor its index falls in; the identity before a
/// scan is an exclusive scan (exclusive_scan).
Out lower_cat(Lowerer& L, const GraphNode& n) {
  int64_t dim = L.arg(n, 1, "dim").as_int(0);
  const auto out_shape = Lowerer::meta_shape(n);
  if (dim < 0) dim += static_cast<int64_t>(out_shape.size());
  auto list = L.tensors(n, 0, "tensors");
  if (!list) return Out::failure(list.error);
  std::vector<Lazy> parts;
  for (const auto& t : *list)
    if (t.shape.size() == out_shape.size()) parts.push_back(t);  // torch skips empty 1-d tensors
  if (parts.empty()) return Out::failure("a concatenation of nothing");
  if (auto y = exclusive_scan(L, parts, dim)) return Out{std::vector<Lazy>{*y}, ""};
  Lazy y = parts[0];
  y.buffer = -1;
  y.shape = out_shape;
  y.dtype = parts[0].dtype;
  const auto d = static_cast<size_t>(dim);
  y.load = [parts, d](const std::vector<IndexPtr>& i) {
    int64_t start = 0;
    std::vector<std::pair<int64_t, ExprPtr>> pieces;
    for (const auto& p : parts) {
      std::vector<IndexPtr> at = i;
      at[d] = ix::add(i[d], ix::constant(-start));
      // read at a known position: that piece alone, the others never built
      if (i[d]->kind == Index::Kind::constant && i[d]->value >= start &&
          i[d]->value < start + p.shape[d])
        return p.load(at);
      pieces.emplace_back(start, p.load(at));
      start += p.shape[d];
    }
    // A balanced tree of selections, as deep as log2 of the pieces: a chain as long as the list
    // (DenseNet201's 33 tensors into its last norm) crashed nvcc's device compiler (cicc) at -O3
    // and at -O1.
    std::function<ExprPtr(size_t, size_t)> pick = [&](size_t lo, size_t hi) -> ExprPtr {
      if (hi - lo == 1) return pieces[lo].second;
      const size_t mid = lo + (hi - lo) / 2;
      auto below = f(
          "lt", {ex::index(i[d]), ex::constant(static_cast<double>(pieces[mid].first), DType::i64)},
          DType::b8);
      auto left = pick(lo, mid);
      return f("where", {below, left, pick(mid, hi)}, left->dtype);
    };
    return pick(0, pieces.size());
  };
  return Out{std::vector<Lazy>{y}, ""};
}

/// as_strided(self, size, stride[, storage_offset]) of a tensor laid out row-major: the element at
/// storage_offset + sum(index * stride) of it.
Out lower_as_strided(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  // strides count in x's memory: known only where x is laid out row-major (a buffer or argument)
  if (x->buffer < 0) return Out::failure("as_strided of a view or a computed value");
  const auto size = ints(L.arg(n, 1, "size"));
  const auto stride = ints(L.arg(n, 2, "stride"));
  const auto& off = L.arg(n, 3, "storage_offset");
  const int64_t offset = off.is_integer() ? off.as_int() : 0;
  Lazy y = *x;
  y.buffer = -1;
  y.shape = size;
  const auto from = x->shape;
  auto lx = x->load;
  y.load = [=](const std::vector<IndexPtr>& i) {
    IndexPtr flat = ix::constant(offset);
    for (size_t d = 0; d < size.size(); ++d) flat = ix::add(flat, ix::mul(i[d], stride[d]));
    return lx(ix::delinear(flat, from));
  };
  return Out{std::vector<Lazy>{y}, ""};
}

/// _adaptive_avg_pool{1,2,3}d, adaptive_max_pool{1,2,3}d: output i covers input
/// [floor(i * In / Out), ceil((i + 1) * In / Out)), a window whose length varies; the reduction
/// runs over the longest and masks what lies beyond each window's end.
Out lower_adaptive_pool(Lowerer& L, const GraphNode& n) {
  const std::string name = base_name(n.op);
  const bool max = name.find("max") != std::string::npos;
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  const auto out_shape = Lowerer::meta_shape(n, 0);
  const size_t nd = name.find("1d") != std::string::npos   ? 1
                    : name.find("3d") != std::string::npos ? 3
                                                           : 2;
  const size_t lead = x->shape.size() - nd;
  const auto in_shape = x->shape;
  std::vector<int64_t> longest, space(out_shape.begin(), out_shape.end());
  for (size_t d = 0; d < nd; ++d) {
    const int64_t in = in_shape[lead + d], out = out_shape[lead + d];
    longest.push_back((in + out - 1) / out + 1);
    space.push_back(std::min(longest.back(), in));
  }
  auto start = [=](const IndexPtr& i, size_t d) {
    return ix::div(ix::mul(i, in_shape[lead + d]), out_shape[lead + d]);
  };
  auto end = [=](const IndexPtr& i, size_t d) {
    const int64_t in = in_shape[lead + d], out = out_shape[lead + d];
    return ix::div(ix::add(ix::mul(i, in), ix::constant(in + out - 1)), out);
  };
  auto lx = x->load;
  Lazy window;
  window.shape = space;
  window.cost = x->cost + 4;
  window.load = [=](const std::vector<IndexPtr>& i) {
    std::vector<IndexPtr> at(i.begin(), i.begin() + static_cast<std::ptrdiff_t>(lead));
    std::vector<ExprPtr> conditions;
    for (size_t d = 0; d < nd; ++d) {
      IndexPtr p = ix::add(start(i[lead + d], d), i[lead + nd + d]);
      conditions.push_back(f("lt", {ex::index(p), ex::index(end(i[lead + d], d))}, DType::b8));
      at.push_back(p);
    }
    return guarded(all_of(conditions), ex::cast(lx(at), DType::f32),
                   max ? -std::numeric_limits<double>::infinity() : 0);
  };
  std::vector<int64_t> reduced;
  for (size_t d = lead + nd; d < space.size(); ++d) reduced.push_back(static_cast<int64_t>(d));
  if (max) {
    // only the values: a graph that reads the indices stops at that getitem
    return Out{std::vector<Lazy>{L.reduce(window, reduced, false, Combine::max)}, ""};
  }
  Lazy sum = L.reduce(window, reduced, false, Combine::sum);
  Lazy mean = sum;
  mean.buffer = -1;
  auto ls = sum.load;
  mean.load = [=](const std::vector<IndexPtr>& i) {
    ExprPtr count;
    for (size_t d = 0; d < nd; ++d) {
      ExprPtr len = ex::cast(
          ex::index(ix::add(end(i[lead + d], d), ix::mul(start(i[lead + d], d), -1))), DType::f32);
      count = count ? f("mul", {count, len}) : len;
    }
    return f("div", {ls(i), count});
  };
  return Out{std::vector<Lazy>{mean}, ""};
}

/// triu, tril (self, diagonal): the element where column - row >= diagonal (triu) or <= (tril).
Out lower_triangle(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  const bool upper = base_name(n.op) == "triu";
  const int64_t diagonal = L.arg(n, 1, "diagonal").as_int(0);
  Lazy y = *x;
  y.buffer = -1;
  auto lx = x->load;
  const size_t rank = x->shape.size();
  y.load = [=](const std::vector<IndexPtr>& i) {
    auto col = ex::index(i[rank - 1]);
    auto row = ex::index(ix::add(i[rank - 2], ix::constant(diagonal)));
    auto keep = f(upper ? "ge" : "le", {col, row}, DType::b8);
    return f("where", {keep, lx(i), ex::constant(0, lx(i)->dtype)}, lx(i)->dtype);
  };
  return Out{std::vector<Lazy>{y}, ""};
}

/// cumsum, cumprod (self, dim): element i combines the elements up to i along dim, a scan (floats
/// as float, integers and booleans as int64, as torch promotes them).
Out lower_cumulative(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  const bool sum = base_name(n.op) == "cumsum";
  int64_t dim = L.arg(n, 1, "dim").as_int(0);
  const auto rank = static_cast<int64_t>(x->shape.size());
  if (dim < 0) dim += std::max<int64_t>(rank, 1);
  const DType t = x->dtype == DType::f32 ? DType::f32 : DType::i64;
  Lazy in = L.map1(*x, [t](ExprPtr e) { return ex::cast(e, t); });
  in.dtype = t;
  return Out{std::vector<Lazy>{L.scan(in, dim, sum ? Combine::sum : Combine::prod)}, ""};
}

/// size - 1 - i, where i is not itself size - 1 - j (a flip of a flip reads j, in order again).
IndexPtr flipped(const IndexPtr& i, int64_t size) {
  if (i->kind == Index::Kind::sum && i->terms.size() == 2) {
    for (size_t c = 0; c < 2; ++c) {
      const IndexPtr& k = i->terms[c];
      const IndexPtr& j = i->terms[1 - c];
      if (k->kind == Index::Kind::constant && k->value == size - 1 && j->kind == Index::Kind::mul &&
          j->value == -1)
        return j->terms[0];
    }
  }
  return ix::add(ix::constant(size - 1), ix::mul(i, -1));
}

/// `x` read with its dimensions `dims` flipped.
Lazy flip_view(const Lazy& x, const std::vector<int64_t>& dims) {
  Lazy y = x;
  y.buffer = -1;
  auto lx = x.load;
  const auto shape = x.shape;
  y.load = [=](const std::vector<IndexPtr>& i) {
    std::vector<IndexPtr> at = i;
    for (int64_t d : dims) {
      const auto k = static_cast<size_t>(d);
      at[k] = flipped(i[k], shape[k]);
    }
    return lx(at);
  };
  return y;
}

/// flip(self, dims): the element at size - 1 - i along each flipped dimension. A scan flipped
/// along its own dimension is the suffix scan of its operand flipped there (one pass that stores
/// in place of a scan and a copy; the operand of `cumsum(x.flip(d), d).flip(d)` is x again).
Out lower_flip(Lowerer& L, const GraphNode& n) {
  auto x = L.tensor(n, 0, "self");
  if (!x) return Out::failure(x.error);
  auto dims = normalise_dims(ints(L.arg(n, 1, "dims")), x->shape.size());
  Lazy y = *x;
  if (const Buffer* s = L.scan_of(*x)) {
    const auto along = static_cast<int64_t>(std::find(s->reduced.begin(), s->reduced.end(), true) -
                                            s->reduced.begin());
    const auto at = std::find(dims.begin(), dims.end(), along);
    if (at != dims.end()) {
      Lazy operand;
      operand.shape = s->shape;
      operand.dtype = s->dtype;
      operand.load = s->compute;
      y = L.scan(flip_view(operand, {along}), along, s->combine, !s->reverse, s->exclusive);
      dims.erase(at);
    }
  }
  return Out{std::vector<Lazy>{dims.empty() ? y : flip_view(y, dims)}, ""};
}

/// max_pool{1,2,3}d_with_indices_backward(grad_output, self, kernel_size, stride, padding,
/// dilation, ceil_mode, indices) where windows do not overlap (stride at least the dilated
/// kernel): each input position lies in at most one window, and gets that window's gradient where
/// the window's index names it.
Out lower_pool_backward(Lowerer& L, const GraphNode& n) {
  auto grad = L.tensor(n, 0, "grad_output");
  auto x = L.tensor(n, 1, "self");
  auto idx = L.tensor(n, 7, "indices");
  if (!grad || !x || !idx) return Out::failure(!grad ? grad.error : !x ? x.error : idx.error);
  const auto w = pool_windows(L, n, x->shape.size(), 2, true);
  const size_t nd = w.nd, lead = w.lead;
  const auto &kernel = w.kernel, &stride = w.stride, &padding = w.padding, &dilation = w.dilation;
  for (size_t d = 0; d < nd; ++d)
    if (stride[d] < (kernel[d] - 1) * dilation[d] + 1)
      return Out::failure("max pooling's backward over overlapping windows");
  const auto in_shape = x->shape, out_shape = grad->shape;
  Lazy out;
  out.shape = in_shape;
  out.dtype = grad->dtype;
  out.cost = grad->cost + idx->cost + 6;
  out.load = [=, lg = grad->load, li = idx->load](const std::vector<IndexPtr>& i) {
    std::vector<IndexPtr> window(i.begin(), i.begin() + static_cast<std::ptrdiff_t>(lead));
    std::vector<ExprPtr> conditions;
    ExprPtr flat;
    for (size_t d = 0; d < nd; ++d) {
      // Position p lies in window (p + padding) / stride, at offset (p + padding) % stride.
      IndexPtr shifted = ix::add(i[lead + d], ix::constant(padding[d]));
      IndexPtr o = ix::div(shifted, stride[d]);
      conditions.push_back(inside(o, out_shape[lead + d]));
      conditions.push_back(f("eq",
                             {ex::index(ix::mod(ix::mod(shifted, stride[d]), dilation[d])),
                              ex::constant(0, DType::i64)},
                             DType::b8));
      window.push_back(o);
      int64_t plane = 1;
      for (size_t e = d + 1; e < nd; ++e) plane *= in_shape[lead + e];
      ExprPtr term = ex::index(ix::mul(i[lead + d], plane));
      flat = flat ? f("add", {flat, term}, DType::i64) : term;
    }
    // A window outside the output (a remainder the pooling dropped) is never read.
    std::vector<IndexPtr> safe(window.begin(), window.end());
    for (size_t d = 0; d < nd; ++d) safe[lead + d] = ix::mod(window[lead + d], out_shape[lead + d]);
    conditions.push_back(f("eq", {ex::cast(li(safe), DType::i64), flat}, DType::b8));
    return guarded(all_of(conditions), ex::cast(lg(safe), DType::f32), 0);
  };
  return Out{std::vector<Lazy>{out}, ""};
}

}  // namespace
void add_window_lowerings(std::map<std::string, Lowering>& table) {
  for (const char* name : {"mm", "bmm", "addmm", "baddbmm", "mv", "addmv", "dot"})
    table[std::string("aten.") + name] = lower_matmul;
  table["aten.convolution"] = lower_convolution;
  for (const char* name : {"max_pool1d_with_indices", "max_pool2d_with_indices",
                           "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d", "avg_pool3d"})
    table[std::string("aten.") + name] = lower_pool;
  for (const char* name : {"max_pool1d_with_indices_backward", "max_pool2d_with_indices_backward",
                           "max_pool3d_with_indices_backward"})
    table[std::string("aten.") + name] = lower_pool_backward;
  for (const char* name : {"_adaptive_avg_pool1d", "_adaptive_avg_pool2d", "_adaptive_avg_pool3d",
                           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d"})
    table[std::string("aten.") + name] = lower_adaptive_pool;
  for (const char* name : {"triu", "tril"}) table[std::string("aten.") + name] = lower_triangle;
  for (const char* name : {"cumsum", "cumprod"})
    table[std::string("aten.") + name] = lower_cumulative;
  table["aten.constant_pad_nd"] = lower_pad;
  table["aten.flip"] = lower_flip;
  table["aten.cat"] = lower_cat;
  table["aten.as_strided"] = lower_as_strided;
}

}  // namespace kforge::generator
