// An RNN's input products over its whole sequence as one matrix product. A traced LSTM or GRU layer
// computes at each of its T steps x_t @ W_ih^T + b_ih from the step's input x_t, a piece of one
// sequence (the input unbound along its steps, or the stack of the layer below's outputs), and
// h @ W_hh^T + b_hh from the step before. The first read nothing the recurrence computes, so the T
// of them are one (T * batch) x K by K x N product, computed before the layer's steps as cuDNN
// computes them; each step then reads its rows. The recurrent products stay step by step.
#pragma once

#include <cstddef>

#include "generator/graph.hpp"

namespace kforge::generator {

/// Batches each family of `g`'s step products in place and says how many it batched: the T nodes
/// `addmm(b, getitem(unbind(S), i), t(W))`, i = 0 .. T-1, of one unbind (along dimension 0) of a
/// [T, B, K] tensor S, one bias `b` of one dimension and one weight W, become `addmm(b, reshape(S,
/// [T * B, K]), t(W))`, viewed as [T, B, N] and unbound, each former product that unbind's i-th
/// piece. The new nodes come just before the family's first product and every node is renumbered (a
/// node's id is its place). `g` is left as it is where no family of two steps or more covers all
/// its unbind's pieces.
size_t batch_step_products(Graph& g);

}  // namespace kforge::generator
