// An RNN's input products over its whole sequence as one matrix product. A traced LSTM or GRU layer
// computes at each of its T steps x_t @ W_ih^T + b_ih from the step's input x_t, a piece of one
// sequence (the input unbound along its steps, or the stack of the layer below's outputs), and
// h @ W_hh^T + b_hh from the step before; a hand-written one `xt @ w` for xt in x.unbind(1) (or
// `xt @ w[g]`, a gate's weight selected afresh at each step: one weight for all steps). The
// first read nothing the recurrence computes, so the T of them are one (T * batch) x K by K x N
// product, computed before the layer's steps as cuDNN computes them; each step then reads its
// rows. The recurrent products stay step by step.
#pragma once

#include <cstddef>

#include "generator/graph.hpp"

namespace kforge::generator {

/// Batches each family of `g`'s step products in place and says how many it batched: the T nodes
/// `addmm(b, getitem(unbind(S, d), i), W')` or `mm(getitem(unbind(S, d), i), W')`, i = 0 .. T-1,
/// of one unbind of a three-dimensional S along d = 0 ([T, B, K]) or 1 ([B, T, K], batch first),
/// one bias `b` of one dimension (or none) and one weight, W' = W or t(W) (a select or slice of an
/// input that nothing changes in place is one weight wherever it is taken), become one product of
/// reshape(S, [T * B, K]) by W', viewed as S's first two dimensions by N and unbound along d, each
/// former product that unbind's i-th piece (a step read by two products is one piece for both).
/// Where S is a stack along 1 of the steps' outputs (a batch-first layer below), its parts are
/// stacked along 0 instead and the product unbound along 0, so that each part is computed into
/// its place in the stack (generator/lowering.hpp, whole_stack_parts_). The new nodes come just
/// before the family's first product and every node is renumbered (a node's id is its place).
/// `g` is left as it is where no family of two steps or more covers all its unbind's pieces.
size_t batch_step_products(Graph& g);

}  // namespace kforge::generator
