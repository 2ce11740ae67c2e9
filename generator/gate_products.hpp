// A recurrent cell's gates as products of their own. An LSTM or GRU step computes its gates as one
// product h @ W_hh^T (plus the step's input gates) whose columns it then splits into the gates
// (`unsafe_split` along 1) and combines element by element: the cell at (b, j) reads columns j,
// j + H, j + 2H, j + 3H of the product, so the cell could not join the product's kernel, whose
// outputs are the columns one by one (a launch a step for the product, one for the cell). Cut
// into one product a gate, of the weight's rows of that gate, every gate's product has the cell's
// outputs and the cell is their epilogue: one kernel a step.
#pragma once

#include <cstddef>

#include "generator/graph.hpp"

namespace kforge::generator {

/// The most products one step's gates may become: schedule.cpp's kSharedProducts, so that they
/// share one kernel.
constexpr size_t kGateProducts = 4;

/// Cuts in place each split of a product along its columns into one product a piece and says how
/// many splits it cut. A split (split, unsafe_split, split_with_sizes, chunk) along the last
/// dimension of E, a two-dimensional [R, N] with R < 16 rows (the tiled GEMM never takes such a
/// product, schedule.cpp's product_kind), whose users are all its pieces (getitem), where E is a
/// product `mm(A, W')` or `addmm(b, A, W')` or a sum (add, add_ without alpha) of such products
/// and of other [R, N] tensors, each product and sum read by nothing else: each piece [s, e)
/// becomes the same tree of the columns s .. e of every product (W' = t(W): t of W's rows s .. e;
/// else W' sliced along 1; the bias sliced) and of every other tensor (sliced along 1). Only where
/// the pieces times the tree's products are at most kGateProducts and 2 or more. The new nodes
/// take each piece's place and every node is renumbered (a node's id is its place).
size_t split_gate_products(Graph& g);

}  // namespace kforge::generator
