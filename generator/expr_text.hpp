// An element's expression as C text, the same for the CPU's C++ and CUDA: operators where C has
// them, else the kf_ functions of the prelude (defined once per backend with the qualifier
// KF_FN: `static inline` or `__device__ __forceinline__`).
#pragma once

#include <functional>
#include <set>
#include <string>

#include "generator/ir.hpp"

namespace kforge::generator {

/// `load` prints a load (a buffer's element, or a reduction's accumulator), given what a gather
/// adds to its offset (" + (t) * 10", or nothing).
using LoadText = std::function<std::string(const Expr&, const std::string& added)>;
/// `index`, where given, prints an index's value (its canonical text otherwise).
using IndexText = std::function<std::string(const Index&)>;
std::string expr_text(const ExprPtr& e, const LoadText& load, const IndexText& index = {});
std::string constant_text(double value, DType dtype);
/// The expression with every load as the buffer's element, `b<id>[offset]`: equal text, equal
/// value (what identifies a reduction, and the factors of a product).
std::string memory_text(const ExprPtr& e);
/// A float element that a sum accumulates in double, as text of type double (`text` prints an
/// expression): a product's factors each widened before they are multiplied, so that a dot
/// product's terms are not rounded to float first. That rounding (about 6e-8 of each term) is what
/// flipped a recomputed convolution's sign near zero, and with it the ReLU mask that routes a
/// max-pooling's gradient (robust-kbench's mnist_conv_relu_pool backward).
std::string double_term_text(const ExprPtr& e,
                             const std::function<std::string(const ExprPtr&)>& text);
/// Whether double_term_text widens `e`'s two factors rather than `e`: a product of two floats.
bool is_float_product(const ExprPtr& e);
/// Whether the expression calls `fn` somewhere.
bool calls(const ExprPtr& e, const std::string& fn);
/// The special functions (exp, log, tanh, erf and the like; sqrt not among them) the expression
/// evaluates, counted where its text repeats them and through the kf_ functions that call them
/// (softplus 2, mish 3, a power of a general exponent 2): what an element costs the SM beyond
/// its loads and stores.
int special_functions(const ExprPtr& e);
/// The buffers the expression loads from.
std::set<int> loaded_buffers(const ExprPtr& e);
/// Whether C evaluates argument `i` of `e` only where the data picks it: a where's two branches,
/// the right side of && and ||. A load there may lie outside its buffer where it is not picked
/// (cat's later pieces read at offset -1 at the first element, a padded window's border), so a
/// kernel must not load it ahead of its condition.
bool evaluated_conditionally(const Expr& e, size_t i);
/// The loads (as memory_text prints them) that the expression evaluates whatever the data: those
/// under no argument that is evaluated_conditionally.
std::set<std::string> unconditional_loads(const ExprPtr& e);

/// The kf_ helpers every generated kernel may call (expects KF_FN defined).
extern const char* const kPrelude;

}  // namespace kforge::generator
