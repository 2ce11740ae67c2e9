// Integer index arithmetic over a kernel's loop variables: what a generated kernel computes to find
// an element (views, broadcasts and reshapes become sums, products, quotients and remainders of
// loop variables). Every index is non-negative and knows an exclusive upper bound of its values,
// which lets the builders simplify what reshapes produce (`(n * 64 + c) / 64` is `n` when c < 64),
// so that two ways of reaching the same element print the same text.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kforge::generator {

struct Index;
using IndexPtr = std::shared_ptr<const Index>;

struct Index {
  enum class Kind { var, constant, sum, mul, div, mod };
  Kind kind = Kind::constant;
  int64_t value = 0;  ///< var: its number; constant: the value; mul, div, mod: the factor
  int64_t bound = 1;  ///< every value is below it (and at least 0 unless `may_be_negative`)
  /// It subtracts (a convolution's padding): no simplification that needs non-negative values.
  bool may_be_negative = false;
  std::vector<IndexPtr> terms;  ///< sum: its terms; mul, div, mod: the one operand
  std::string text;             ///< C text, canonical: equal text, equal index
};

namespace ix {
/// Loop variable `id` (printed `v<id>`), ranging over [0, extent); a variable of extent 1 is 0.
IndexPtr var(int id, int64_t extent);
/// A loop counter named `name` (a kernel's `o` or `r`), ranging over [0, extent).
IndexPtr named(const std::string& name, int64_t extent);
IndexPtr constant(int64_t value);
IndexPtr add(const IndexPtr& a, const IndexPtr& b);
IndexPtr mul(const IndexPtr& a, int64_t factor);
IndexPtr div(const IndexPtr& a, int64_t divisor);
IndexPtr mod(const IndexPtr& a, int64_t divisor);

/// The row-major offset of `index` in a tensor of `shape`.
IndexPtr linear(const std::vector<IndexPtr>& index, const std::vector<int64_t>& shape);
/// The index in a tensor of `shape` of row-major offset `offset`.
std::vector<IndexPtr> delinear(const IndexPtr& offset, const std::vector<int64_t>& shape);
/// The loop variables first, first + 1, ... over `shape`.
std::vector<IndexPtr> vars(const std::vector<int64_t>& shape, int first = 0);

/// Whether `i` reads the named variable `name` (ix::named: a kernel's `o`, `r`, ...).
bool reads(const Index& i, const std::string& name);

/// The value of `i` as the generated C computes it (quotients and remainders truncated towards
/// zero) where its named variables take the values of `at`; none where it reads another variable.
std::optional<int64_t> value_at(const Index& i, const std::map<std::string, int64_t>& at);

/// A number every value of `i` is a multiple of (a product's factor, a sum's terms' greatest
/// common divisor; 0 for the constant 0, 1 where nothing better is known).
int64_t factor_of(const Index& i);

/// The constant term of `i`: the constant itself, a sum's constant term, else 0. Where `i` may not
/// be negative, every value of it is at least that.
int64_t constant_term(const Index& i);

/// `i` as `name * stride + rest`, where `name` is one term of the sum (`name` or `name * s`) and
/// no other term reads it; none where it is read otherwise (inside a quotient or remainder).
struct Along {
  int64_t stride = 0;
  std::vector<IndexPtr> rest;  ///< the other terms
};
std::optional<Along> along(const Index& i, const std::string& name);
}  // namespace ix

int64_t numel(const std::vector<int64_t>& shape);

}  // namespace kforge::generator
