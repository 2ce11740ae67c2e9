#include "generator/index.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <optional>

namespace kforge::generator {

int64_t numel(const std::vector<int64_t>& shape) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

namespace ix {
namespace {

std::string number(int64_t v) {
  if (v > std::numeric_limits<int32_t>::max() || v < std::numeric_limits<int32_t>::min())
    return std::to_string(v) + "LL";
  return v < 0 ? "(" + std::to_string(v) + ")" : std::to_string(v);
}

IndexPtr make(Index i) {
  return std::make_shared<const Index>(std::move(i));
}

/// The factor a term is a multiple of (its constant, or a product's factor; 1 otherwise).
int64_t multiple_of(const IndexPtr& t) {
  if (t->kind == Index::Kind::constant) return t->value == 0 ? 0 : t->value;
  if (t->kind == Index::Kind::mul) return t->value;
  return 1;
}

bool divides(int64_t divisor, int64_t v) {
  return v == 0 || v % divisor == 0;
}

std::vector<IndexPtr> terms_of(const IndexPtr& a) {
  if (a->kind == Index::Kind::sum) return a->terms;
  return {a};
}

/// A term as factor * (q % wrap), or factor * q where wrap is 0 and q is a quotient y / unit.
struct Digit {
  IndexPtr q;
  int64_t factor = 1, wrap = 0;
  IndexPtr y;        ///< q's dividend, where q is a quotient
  int64_t unit = 1;  ///< q's divisor, where q is a quotient
};

std::optional<Digit> digit_of(const IndexPtr& t) {
  Digit d;
  IndexPtr core = t;
  if (t->kind == Index::Kind::mul) {
    core = t->terms[0];
    d.factor = t->value;
  }
  if (core->kind == Index::Kind::mod) {
    d.wrap = core->value;
    d.q = core->terms[0];
  } else if (core->kind == Index::Kind::div) {
    d.q = core;
  } else {
    return std::nullopt;
  }
  if (d.q->kind == Index::Kind::div) {
    d.y = d.q->terms[0];
    d.unit = d.q->value;
  }
  return d;
}

/// Joins what delinearising and linearising again leaves. Two digits of one quotient Q, a lower
/// F * (Q % W) and the next one up, F * W * (Q / W) or F * W * ((Q / W) % C), are F * Q or
/// F * (Q % (W * C)). The digits may have been simplified on the way ((o * 59400 + r) / 19800 is
/// o * 3 + r / 19800), so they are recognised either way: the higher one's quotient printing as
/// Q / W, or, where it is Y / K, Y / (K / W) printing as Q. So an offset rebuilt from its digits
/// is the offset again, and one rebuilt from its lower digits is one remainder
/// (`((r / 126) % 126) * 126 + r % 126` is `r % 15876`).
bool join_digits(std::vector<IndexPtr>& terms) {
  for (size_t i = 0; i < terms.size(); ++i) {
    auto high = digit_of(terms[i]);
    if (!high) continue;
    for (size_t j = 0; j < terms.size(); ++j) {
      auto low = digit_of(terms[j]);
      if (j == i || !low || low->wrap == 0 || high->factor != low->factor * low->wrap) continue;
      const bool same = div(low->q, low->wrap)->text == high->q->text ||
                        (high->y && high->unit % low->wrap == 0 &&
                         div(high->y, high->unit / low->wrap)->text == low->q->text);
      if (!same) continue;
      IndexPtr joined =
          mul(high->wrap != 0 ? mod(low->q, low->wrap * high->wrap) : low->q, low->factor);
      terms.erase(terms.begin() + static_cast<std::ptrdiff_t>(std::max(i, j)));
      terms.erase(terms.begin() + static_cast<std::ptrdiff_t>(std::min(i, j)));
      for (const auto& t : terms_of(joined)) terms.push_back(t);
      return true;
    }
  }
  return false;
}

IndexPtr sum_of(std::vector<IndexPtr> terms) {
  // Each join leaves the digits of a larger quotient; the bound only guards against a cycle.
  for (int joins = 0; joins < 64 && terms.size() > 1 && join_digits(terms); ++joins) {
  }
  int64_t constant = 0;
  std::vector<IndexPtr> rest;
  for (auto& t : terms) {
    if (t->kind == Index::Kind::constant)
      constant += t->value;
    else
      rest.push_back(t);
  }
  if (constant != 0) rest.push_back(ix::constant(constant));
  if (rest.empty()) return ix::constant(0);
  if (rest.size() == 1) return rest[0];
  std::sort(rest.begin(), rest.end(),
            [](const IndexPtr& x, const IndexPtr& y) { return x->text < y->text; });
  Index s;
  s.kind = Index::Kind::sum;
  s.bound = 1;
  for (const auto& t : rest) s.may_be_negative = s.may_be_negative || t->may_be_negative;
  s.text = "(";
  for (size_t i = 0; i < rest.size(); ++i) {
    s.bound += rest[i]->bound - 1;
    s.text += (i ? " + " : "") + rest[i]->text;
  }
  s.text += ")";
  s.terms = std::move(rest);
  return make(std::move(s));
}

IndexPtr unary(Index::Kind kind, const IndexPtr& a, int64_t factor, int64_t bound, const char* op) {
  Index i;
  i.kind = kind;
  i.value = factor;
  i.bound = std::max<int64_t>(bound, 1);
  i.may_be_negative = a->may_be_negative;
  i.terms = {a};
  i.text = "(" + a->text + " " + op + " " + number(factor) + ")";
  return make(std::move(i));
}

}  // namespace

IndexPtr var(int id, int64_t extent) {
  if (extent <= 1) return constant(0);
  Index i;
  i.kind = Index::Kind::var;
  i.value = id;
  i.bound = extent;
  i.text = "v" + std::to_string(id);
  return make(std::move(i));
}

IndexPtr named(const std::string& name, int64_t extent) {
  if (extent <= 1) return constant(0);
  Index i;
  i.kind = Index::Kind::var;
  i.value = -1;
  i.bound = extent;
  i.text = name;
  return make(std::move(i));
}

IndexPtr constant(int64_t value) {
  Index i;
  i.kind = Index::Kind::constant;
  i.value = value;
  i.bound = std::max<int64_t>(value + 1, 1);
  i.may_be_negative = value < 0;
  i.text = number(value);
  return make(std::move(i));
}

IndexPtr add(const IndexPtr& a, const IndexPtr& b) {
  auto terms = terms_of(a);
  for (auto& t : terms_of(b)) terms.push_back(t);
  return sum_of(std::move(terms));
}

IndexPtr mul(const IndexPtr& a, int64_t factor) {
  if (factor == 0) return constant(0);
  if (factor == 1) return a;
  if (factor < 0 && a->kind != Index::Kind::constant) {  // a window's offset walking backwards
    Index i;
    i.kind = Index::Kind::mul;
    i.value = factor;
    i.bound = 1;
    i.may_be_negative = true;
    i.terms = {a};
    i.text = "(" + a->text + " * " + number(factor) + ")";
    return make(std::move(i));
  }
  switch (a->kind) {
    case Index::Kind::constant:
      return constant(a->value * factor);
    case Index::Kind::mul:
      return mul(a->terms[0], a->value * factor);
    case Index::Kind::sum: {
      std::vector<IndexPtr> terms;
      for (auto& t : a->terms) terms.push_back(mul(t, factor));
      return sum_of(std::move(terms));
    }
    default:
      return unary(Index::Kind::mul, a, factor, (a->bound - 1) * factor + 1, "*");
  }
}

namespace {

/// A non-negative sum no term of which `divisor` divides, as p * B + S through a factor p of the
/// divisor (1 < p < divisor) that some terms are multiples of, where the other terms S stay below
/// p: the first such p a term gives, with B (those terms over p) and S; none where no term does.
struct ThroughAFactor {
  int64_t p = 1;
  IndexPtr high, low;  ///< B and S
};
std::optional<ThroughAFactor> through_a_factor(const IndexPtr& a, int64_t divisor) {
  for (const auto& t : a->terms) {
    const int64_t p = std::gcd(multiple_of(t), divisor);
    if (p <= 1 || p == divisor) continue;
    std::vector<IndexPtr> high, low;
    for (const auto& u : a->terms) (divides(p, multiple_of(u)) ? high : low).push_back(u);
    IndexPtr rest = sum_of(low);
    if (rest->bound > p) continue;
    return ThroughAFactor{p, ix::div(sum_of(high), p), rest};
  }
  return std::nullopt;
}

/// (p * B + S) / (k * p) = B / k for 0 <= S < p (a group of channels of a row's offset over
/// several channels' rows: a group norm's statistics read by its output). Else the division as it
/// stands.
IndexPtr div_by_a_factor(const IndexPtr& a, int64_t divisor) {
  if (auto f = through_a_factor(a, divisor)) return ix::div(f->high, divisor / f->p);
  return unary(Index::Kind::div, a, divisor, (a->bound - 1) / divisor + 1, "/");
}

/// (p * B + S) % (k * p) = p * (B % k) + S for 0 <= S < p (a channel's parameter at a group norm's
/// element: (o * 32 + r) % 512 = (o % 16) * 32 + r, the remainder of the outer counter alone).
/// Else the remainder as it stands.
IndexPtr mod_by_a_factor(const IndexPtr& a, int64_t divisor) {
  if (auto f = through_a_factor(a, divisor))
    return ix::add(ix::mul(ix::mod(f->high, divisor / f->p), f->p), f->low);
  return unary(Index::Kind::mod, a, divisor, std::min(divisor, a->bound), "%");
}

}  // namespace

IndexPtr div(const IndexPtr& a, int64_t divisor) {
  if (divisor == 1) return a;
  if (a->may_be_negative)
    return unary(Index::Kind::div, a, divisor, (a->bound - 1) / divisor + 1, "/");
  if (a->bound <= divisor) return constant(0);
  switch (a->kind) {
    case Index::Kind::constant:
      return constant(a->value / divisor);
    case Index::Kind::mul:
      if (divides(divisor, a->value)) return mul(a->terms[0], a->value / divisor);
      break;
    case Index::Kind::div:
      return div(a->terms[0], a->value * divisor);
    case Index::Kind::sum: {
      // (k * A + R) / k = A + R / k for non-negative terms
      std::vector<IndexPtr> whole, rest;
      for (auto& t : a->terms) (divides(divisor, multiple_of(t)) ? whole : rest).push_back(t);
      if (whole.empty()) return div_by_a_factor(a, divisor);
      std::vector<IndexPtr> out;
      for (auto& t : whole) out.push_back(div(t, divisor));
      if (!rest.empty()) out.push_back(div(sum_of(rest), divisor));
      return sum_of(std::move(out));
    }
    default:
      break;
  }
  return unary(Index::Kind::div, a, divisor, (a->bound - 1) / divisor + 1, "/");
}

IndexPtr mod(const IndexPtr& a, int64_t divisor) {
  if (divisor == 1) return constant(0);
  if (a->may_be_negative) return unary(Index::Kind::mod, a, divisor, divisor, "%");
  if (a->bound <= divisor) return a;
  switch (a->kind) {
    case Index::Kind::constant:
      return constant(a->value % divisor);
    case Index::Kind::mul:
      if (divides(divisor, a->value)) return constant(0);
      break;
    case Index::Kind::sum: {
      std::vector<IndexPtr> rest;
      for (auto& t : a->terms)
        if (!divides(divisor, multiple_of(t))) rest.push_back(t);
      if (rest.size() == a->terms.size()) return mod_by_a_factor(a, divisor);
      return mod(sum_of(rest), divisor);
    }
    default:
      break;
  }
  return unary(Index::Kind::mod, a, divisor, std::min(divisor, a->bound), "%");
}

IndexPtr linear(const std::vector<IndexPtr>& index, const std::vector<int64_t>& shape) {
  IndexPtr out = constant(0);
  int64_t stride = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    out = add(out, mul(index[d], stride));
    stride *= shape[d];
  }
  return out;
}

std::vector<IndexPtr> delinear(const IndexPtr& offset, const std::vector<int64_t>& shape) {
  std::vector<IndexPtr> out(shape.size());
  int64_t inner = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    out[d] = shape[d] == 1 ? constant(0) : mod(div(offset, inner), shape[d]);
    inner *= shape[d];
  }
  return out;
}

std::vector<IndexPtr> vars(const std::vector<int64_t>& shape, int first) {
  std::vector<IndexPtr> out;
  for (size_t d = 0; d < shape.size(); ++d) out.push_back(var(first + int(d), shape[d]));
  return out;
}

bool reads(const Index& i, const std::string& name) {
  if (i.kind == Index::Kind::var) return i.text == name;
  return std::any_of(i.terms.begin(), i.terms.end(),
                     [&](const IndexPtr& t) { return reads(*t, name); });
}

std::optional<int64_t> value_at(const Index& i, const std::map<std::string, int64_t>& at) {
  if (i.kind == Index::Kind::constant) return i.value;
  if (i.kind == Index::Kind::var) {
    const auto it = at.find(i.text);
    return it == at.end() ? std::nullopt : std::optional<int64_t>(it->second);
  }
  std::vector<int64_t> values;
  for (const auto& t : i.terms) {
    const auto v = value_at(*t, at);
    if (!v) return std::nullopt;
    values.push_back(*v);
  }
  switch (i.kind) {
    case Index::Kind::sum: {
      int64_t s = 0;
      for (int64_t v : values) s += v;
      return s;
    }
    case Index::Kind::mul:
      return values.at(0) * i.value;
    case Index::Kind::div:
      return values.at(0) / i.value;
    case Index::Kind::mod:
      return values.at(0) % i.value;
    default:
      return std::nullopt;
  }
}

int64_t factor_of(const Index& i) {
  switch (i.kind) {
    case Index::Kind::constant:
      return i.value < 0 ? -i.value : i.value;
    case Index::Kind::mul:
      return (i.value < 0 ? -i.value : i.value) * factor_of(*i.terms.at(0));
    case Index::Kind::sum: {
      int64_t g = 0;
      for (const auto& t : i.terms) g = std::gcd(g, factor_of(*t));
      return g;
    }
    default:
      return 1;
  }
}

int64_t constant_term(const Index& i) {
  if (i.kind == Index::Kind::constant) return i.value;
  if (i.kind != Index::Kind::sum) return 0;
  for (const auto& t : i.terms)
    if (t->kind == Index::Kind::constant) return t->value;
  return 0;
}

std::optional<Along> along(const Index& i, const std::string& name) {
  Along out;
  auto term = [&](const IndexPtr& t) {
    const bool var = t->kind == Index::Kind::var && t->text == name;
    const bool scaled = t->kind == Index::Kind::mul && t->terms[0]->kind == Index::Kind::var &&
                        t->terms[0]->text == name;
    if ((var || scaled) && out.stride == 0) {
      out.stride = var ? 1 : t->value;
      return true;
    }
    if (reads(*t, name)) return false;
    out.rest.push_back(t);
    return true;
  };
  if (i.kind == Index::Kind::sum) {
    for (const auto& t : i.terms)
      if (!term(t)) return std::nullopt;
  } else if (!term(std::make_shared<const Index>(i))) {
    return std::nullopt;
  }
  if (out.stride == 0) return std::nullopt;
  return out;
}

}  // namespace ix
}  // namespace kforge::generator
