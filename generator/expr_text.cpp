#include "generator/expr_text.hpp"

#include <cmath>
#include <cstdio>
#include <map>

namespace kforge::generator {

const char* const kPrelude =
    R"(// kforge's generated kernels: element functions (NaN kept where torch keeps it)
KF_FN float kf_sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }
KF_FN float kf_relu(float x) { return x < 0.0f ? 0.0f : x; }
KF_FN int64_t kf_relu(int64_t x) { return x < 0 ? 0 : x; }
KF_FN float kf_abs(float x) { return fabsf(x); }
KF_FN int64_t kf_abs(int64_t x) { return x < 0 ? -x : x; }
KF_FN float kf_rsqrt(float x) { return 1.0f / sqrtf(x); }
KF_FN float kf_reciprocal(float x) { return 1.0f / x; }
KF_FN float kf_gelu(float x) { return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f)); }
KF_FN float kf_gelu_tanh(float x) {
  return 0.5f * x * (1.0f + tanhf(0.79788456080286536f * (x + 0.044715f * x * x * x)));
}
KF_FN float kf_silu(float x) { return x / (1.0f + expf(-x)); }
KF_FN float kf_softplus(float x) { return x > 20.0f ? x : log1pf(expf(x)); }
KF_FN float kf_mish(float x) { return x * tanhf(kf_softplus(x)); }
KF_FN float kf_sign(float x) { return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : x); }
KF_FN float kf_frac(float x) { return x - truncf(x); }
KF_FN float kf_round(float x) { return rintf(x); }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
// one instruction that keeps NaN (three and two branches otherwise)
KF_FN float kf_max2(float a, float b) { float r; asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b)); return r; }
KF_FN float kf_min2(float a, float b) { float r; asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b)); return r; }
#else
KF_FN float kf_max2(float a, float b) { return a != a ? a : (b != b ? b : fmaxf(a, b)); }
KF_FN float kf_min2(float a, float b) { return a != a ? a : (b != b ? b : fminf(a, b)); }
#endif
KF_FN int64_t kf_max2(int64_t a, int64_t b) { return a > b ? a : b; }
KF_FN int64_t kf_min2(int64_t a, int64_t b) { return a < b ? a : b; }
KF_FN float kf_clamp_lo(float x, float lo) { return x != x ? x : (x < lo ? lo : x); }
KF_FN float kf_clamp_hi(float x, float hi) { return x != x ? x : (x > hi ? hi : x); }
KF_FN int64_t kf_clamp_lo(int64_t x, int64_t lo) { return x < lo ? lo : x; }
KF_FN int64_t kf_clamp_hi(int64_t x, int64_t hi) { return x > hi ? hi : x; }
KF_FN float kf_remainder(float a, float b) {
  float r = fmodf(a, b);
  return (r != 0.0f && ((r < 0.0f) != (b < 0.0f))) ? r + b : r;
}
KF_FN int64_t kf_remainder(int64_t a, int64_t b) {
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
KF_FN float kf_div_floor(float a, float b) { return floorf(a / b); }
KF_FN int64_t kf_div_floor(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
KF_FN float kf_div_trunc(float a, float b) { return truncf(a / b); }
KF_FN int64_t kf_div_trunc(int64_t a, int64_t b) { return a / b; }
// As PyTorch computes a power of a scalar exponent (products, roots and quotients for 2, 3, 0.5,
// -0.5, -1, -2; powf, twenty-odd instructions more, for the others): KernelBench's
// 88_MinGPTNewGelu cubes its input.
KF_FN float kf_pow(float a, float b) {
  if (b == 2.0f) return a * a;
  if (b == 3.0f) return a * a * a;
  if (b == 0.5f) return sqrtf(a);
  if (b == -0.5f) return 1.0f / sqrtf(a);
  if (b == -1.0f) return 1.0f / a;
  if (b == -2.0f) return 1.0f / (a * a);
  return powf(a, b);
}
KF_FN bool kf_isinf(float x) { return fabsf(x) == INFINITY; }
KF_FN float kf_xlogy(float x, float y) { return y != y ? y : (x == 0.0f ? 0.0f : x * logf(y)); }
)";

namespace {

std::string infix(const char* op, const std::vector<std::string>& a) {
  return "(" + a[0] + " " + op + " " + a[1] + ")";
}

}  // namespace

std::string constant_text(double value, DType dtype) {
  if (dtype == DType::b8) return value != 0 ? "true" : "false";
  if (dtype == DType::i64) return "int64_t(" + std::to_string(static_cast<long long>(value)) + ")";
  if (std::isnan(value)) return "NAN";
  if (std::isinf(value)) return value > 0 ? "INFINITY" : "(-INFINITY)";
  char text[64];
  std::snprintf(text, sizeof text, "%.9g", value);
  std::string s = text;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s + "f";
}

std::string memory_text(const ExprPtr& e) {
  return expr_text(e, [](const Expr& l, const std::string& added) {
    return "b" + std::to_string(l.buffer) + "[" + l.index->text + added + "]";
  });
}

std::set<int> loaded_buffers(const ExprPtr& e) {
  std::set<int> out;
  if (e->kind == Expr::Kind::load) out.insert(e->buffer);
  for (const auto& a : e->args) {
    auto more = loaded_buffers(a);
    out.insert(more.begin(), more.end());
  }
  return out;
}

bool evaluated_conditionally(const Expr& e, size_t i) {
  if (e.kind != Expr::Kind::call || i == 0) return false;
  return e.fn == "where" || e.fn == "and" || e.fn == "or";
}

std::set<std::string> unconditional_loads(const ExprPtr& e) {
  std::set<std::string> out;
  if (e->kind == Expr::Kind::load) out.insert(memory_text(e));
  for (size_t i = 0; i < e->args.size(); ++i) {
    if (evaluated_conditionally(*e, i)) continue;
    auto more = unconditional_loads(e->args[i]);
    out.insert(more.begin(), more.end());
  }
  return out;
}

std::string double_term_text(const ExprPtr& e,
                             const std::function<std::string(const ExprPtr&)>& text) {
  if (is_float_product(e))
    return "(" + double_term_text(e->args[0], text) + " * " + double_term_text(e->args[1], text) +
           ")";
  return "static_cast<double>(" + text(e) + ")";
}

bool is_float_product(const ExprPtr& e) {
  return e->kind == Expr::Kind::call && e->fn == "mul" && e->dtype == DType::f32 &&
         e->args.size() == 2 && e->args[0]->dtype == DType::f32 && e->args[1]->dtype == DType::f32;
}

bool calls(const ExprPtr& e, const std::string& fn) {
  if (e->kind == Expr::Kind::call && e->fn == fn) return true;
  for (const auto& a : e->args)
    if (calls(a, fn)) return true;
  return false;
}

int special_functions(const ExprPtr& e) {
  // What each call evaluates (the prelude's kf_ functions by their bodies): softplus is log1pf of
  // expf, mish tanhf of softplus; kf_pow of an exponent other than its six is powf, a log and an
  // exp.
  static const std::map<std::string, int> counts = {
      {"exp", 1},      {"exp2", 1},    {"expm1", 1}, {"log", 1},  {"log2", 1},      {"log10", 1},
      {"log1p", 1},    {"sin", 1},     {"cos", 1},   {"tan", 1},  {"asin", 1},      {"acos", 1},
      {"atan", 1},     {"sinh", 1},    {"cosh", 1},  {"tanh", 1}, {"erf", 1},       {"erfc", 1},
      {"atan2", 1},    {"sigmoid", 1}, {"silu", 1},  {"gelu", 1}, {"gelu_tanh", 1}, {"xlogy", 1},
      {"softplus", 2}, {"mish", 3}};
  int n = 0;
  if (e->kind == Expr::Kind::call) {
    if (auto it = counts.find(e->fn); it != counts.end()) n += it->second;
    if (e->fn == "pow" && e->args.size() == 2) {
      const Expr& b = *e->args[1];
      const bool cheap =
          b.kind == Expr::Kind::constant && (b.value == 2 || b.value == 3 || b.value == 0.5 ||
                                             b.value == -0.5 || b.value == -1 || b.value == -2);
      if (!cheap) n += 2;
    }
  }
  for (const auto& a : e->args) n += special_functions(a);
  return n;
}

std::string expr_text(const ExprPtr& e, const LoadText& load, const IndexText& index) {
  switch (e->kind) {
    case Expr::Kind::constant:
      return constant_text(e->value, e->dtype);
    case Expr::Kind::load:
      return load(*e, e->args.empty() ? ""
                                      : " + (" + expr_text(e->args[0], load, index) + ") * " +
                                            std::to_string(e->dynamic_stride));
    case Expr::Kind::index:
      return "static_cast<int64_t>(" + (index ? index(*e->index) : e->index->text) + ")";
    case Expr::Kind::call:
      break;
  }
  std::vector<std::string> a;
  for (const auto& x : e->args) a.push_back(expr_text(x, load, index));
  static const std::map<std::string, const char*> operators = {
      {"add", "+"}, {"sub", "-"}, {"mul", "*"}, {"div", "/"}, {"lt", "<"},   {"gt", ">"},
      {"le", "<="}, {"ge", ">="}, {"eq", "=="}, {"ne", "!="}, {"and", "&&"}, {"or", "||"}};
  // C's own float functions: expf(x) and the like.
  static const std::map<std::string, const char*> libm = {
      {"exp", "expf"},   {"exp2", "exp2f"},   {"expm1", "expm1f"}, {"log", "logf"},
      {"log2", "log2f"}, {"log10", "log10f"}, {"log1p", "log1pf"}, {"sqrt", "sqrtf"},
      {"sin", "sinf"},   {"cos", "cosf"},     {"tan", "tanf"},     {"asin", "asinf"},
      {"acos", "acosf"}, {"atan", "atanf"},   {"sinh", "sinhf"},   {"cosh", "coshf"},
      {"tanh", "tanhf"}, {"erf", "erff"},     {"erfc", "erfcf"},   {"floor", "floorf"},
      {"ceil", "ceilf"}, {"trunc", "truncf"}, {"fmod", "fmodf"},   {"atan2", "atan2f"}};
  const std::string& fn = e->fn;
  if (auto op = operators.find(fn); op != operators.end()) return infix(op->second, a);
  if (fn == "neg") return "(-" + a[0] + ")";
  if (fn == "not") return "(!" + a[0] + ")";
  if (fn == "where") return "(" + a[0] + " ? " + a[1] + " : " + a[2] + ")";
  if (fn == "cast") return "static_cast<" + std::string(c_type(e->dtype)) + ">(" + a[0] + ")";
  if (fn == "isnan") return "(" + a[0] + " != " + a[0] + ")";
  std::string out = (libm.count(fn) ? std::string(libm.at(fn)) : "kf_" + fn) + "(";
  for (size_t i = 0; i < a.size(); ++i) out += (i ? ", " : "") + a[i];
  return out + ")";
}

}  // namespace kforge::generator
