// The schedule's order where a stack's pieces are placed in it (Buffer::within, pieces): no kernel
// computes the stack, each piece's kernel stores it, and a kernel that reads the stack comes after
// every kernel that computes a piece of it, however kernels move to take later buffers along
// (join_later) or reductions join earlier ones (join_earlier).
#include <gtest/gtest.h>

#include <algorithm>

#include "generator/schedule.hpp"

namespace kforge::generator {
namespace {

/// The function's argument `id` as buffer `id`.
Buffer input(int id, std::vector<int64_t> shape) {
  Buffer b;
  b.kind = Buffer::Kind::input;
  b.id = id;
  b.shape = std::move(shape);
  b.arg = id;
  return b;
}

Buffer pointwise(int id, std::vector<int64_t> shape, Loader compute) {
  Buffer b;
  b.kind = Buffer::Kind::pointwise;
  b.id = id;
  b.shape = std::move(shape);
  b.compute = std::move(compute);
  return b;
}

ExprPtr scaled(int buffer, const IndexPtr& at, double by) {
  return ex::call("mul", {ex::load(buffer, at, DType::f32), ex::constant(by)});
}

// x; pieces p0 = 2x, p1 = 3x stacked as s; r = s + 1 (a kernel over s's shape); q = x - 1, which
// joins no kernel over s's shape and would take the pieces' kernel along if nothing read it.
Program stacked_program() {
  Program p;
  p.buffers.push_back(input(0, {4}));
  p.buffers.push_back(pointwise(1, {4}, [](const auto& i) { return scaled(0, i[0], 2); }));
  p.buffers.push_back(pointwise(2, {4}, [](const auto& i) { return scaled(0, i[0], 3); }));
  p.buffers.push_back(pointwise(3, {2, 4}, [](const auto& i) {
    auto first = ex::call("eq", {ex::index(i[0]), ex::constant(0, DType::i64)}, DType::b8);
    return ex::call("where", {first, ex::load(1, i[1], DType::f32), ex::load(2, i[1], DType::f32)});
  }));
  p.buffers[3].pieces = {1, 2};
  for (int piece : {1, 2}) {
    p.buffers[static_cast<size_t>(piece)].within = 3;
    p.buffers[static_cast<size_t>(piece)].within_index = piece - 1;
  }
  p.buffers.push_back(pointwise(4, {2, 4}, [](const auto& i) {
    return ex::call("add", {ex::load(3, ix::linear(i, {2, 4}), DType::f32), ex::constant(1)});
  }));
  p.buffers.push_back(pointwise(5, {4}, [](const auto& i) {
    return ex::call("sub", {ex::load(0, i[0], DType::f32), ex::constant(1)});
  }));
  p.outputs = {4, 5};
  return p;
}

TEST(Schedule, AStackIsReadAfterEveryKernelThatComputesAPieceOfIt) {
  const Program p = stacked_program();
  const auto kernels = schedule(p);
  std::vector<size_t> piece_kernels, stack_readers;
  for (size_t k = 0; k < kernels.size(); ++k) {
    const auto& stores = kernels[k].stores;
    const auto& loads = kernels[k].loads;
    EXPECT_EQ(std::count(stores.begin(), stores.end(), 3), 0) << "no kernel computes the stack";
    if (std::count(stores.begin(), stores.end(), 1) || std::count(stores.begin(), stores.end(), 2))
      piece_kernels.push_back(k);
    if (std::count(loads.begin(), loads.end(), 3)) stack_readers.push_back(k);
  }
  std::set<int> stored;
  for (const auto& k : kernels) stored.insert(k.stores.begin(), k.stores.end());
  EXPECT_TRUE(stored.count(1) && stored.count(2) && stored.count(4) && stored.count(5));
  ASSERT_FALSE(piece_kernels.empty());
  ASSERT_EQ(stack_readers.size(), 1u);
  for (size_t k : piece_kernels)
    EXPECT_LT(k, stack_readers[0]) << "kernel " << k << " computes a piece after the stack is read";
}

TEST(Schedule, AStackIsNeededWithItsPieces) {
  const auto live = needed(stacked_program());
  EXPECT_EQ(live, (std::set<int>{0, 1, 2, 3, 4, 5}));
}

// x; c = 2x, stored (an output); h = c + 1 read at each element c stores (an LSTM step's h_t =
// o * tanh(c_t) beside its c_t), or m = c + 1 read at the mirrored element.
Program stored_then_read(bool same_element) {
  Program p;
  p.buffers.push_back(input(0, {4}));
  p.buffers.push_back(pointwise(1, {4}, [](const auto& i) { return scaled(0, i[0], 2); }));
  p.buffers.push_back(pointwise(2, {4}, [same_element](const auto& i) {
    auto at = same_element ? i[0] : ix::add(ix::constant(3), ix::mul(i[0], -1));
    return ex::call("add", {ex::load(1, at, DType::f32), ex::constant(1)});
  }));
  p.outputs = {1, 2};
  return p;
}

TEST(Schedule, AStageReadingWhatItsKernelStoresAtThatElementJoinsItAndComputesItAgain) {
  const auto kernels = schedule(stored_then_read(true));
  ASSERT_EQ(kernels.size(), 1u);
  const auto& k = kernels[0];
  EXPECT_EQ(std::set<int>(k.stores.begin(), k.stores.end()), (std::set<int>{1, 2}));
  EXPECT_EQ(std::count(k.loads.begin(), k.loads.end(), 1), 0) << "c is not read back";
  ASSERT_EQ(k.stages.size(), 2u);
  EXPECT_EQ(k.stages[1].value->size, 1 + k.stages[0].value->size + 1) << "h = (2x) + 1";
}

// x (4 x 8); m = the sum of each row; y = x - m (an output, in m's kernel); z = 2y, read at each
// element y stores: in a reducing kernel the stores run a thread an output row, so z waits for a
// kernel of its own, a thread an element.
TEST(Schedule, AStageReadingWhatAReducingKernelStoresGetsAKernelOfItsOwn) {
  Program p;
  p.buffers.push_back(input(0, {4, 8}));
  Buffer m;
  m.kind = Buffer::Kind::reduction;
  m.id = 1;
  m.shape = {4};
  m.space = {4, 8};
  m.reduced = {false, true};
  m.compute = [](const auto& i) { return ex::load(0, ix::linear(i, {4, 8}), DType::f32); };
  p.buffers.push_back(m);
  p.buffers.push_back(pointwise(2, {4, 8}, [](const auto& i) {
    return ex::call(
        "sub", {ex::load(0, ix::linear(i, {4, 8}), DType::f32), ex::load(1, i[0], DType::f32)});
  }));
  p.buffers.push_back(pointwise(3, {4, 8}, [](const auto& i) {
    return scaled(2, ix::linear(i, {4, 8}), 2);
  }));
  p.outputs = {2, 3};
  const auto kernels = schedule(p);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_TRUE(kernels[0].reduces());
  EXPECT_EQ(std::count(kernels[1].loads.begin(), kernels[1].loads.end(), 2), 1);
}

TEST(Schedule, AStageReadingAnotherElementOfWhatItsKernelStoresWaitsForAKernelAfterIt) {
  const auto kernels = schedule(stored_then_read(false));
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(std::count(kernels[1].loads.begin(), kernels[1].loads.end(), 1), 1);
}

// a (m x 8) and `count` weights (n x 8); each product a @ w^T, an output.
Program products_of_one_input(int64_t m, int64_t n, int count) {
  Program p;
  p.buffers.push_back(input(0, {m, 8}));
  for (int w = 1; w <= count; ++w) p.buffers.push_back(input(w, {n, 8}));
  for (int w = 1; w <= count; ++w) {
    Buffer r;
    r.kind = Buffer::Kind::reduction;
    r.id = count + w;
    r.shape = {m, n};
    r.space = {m, n, 8};
    r.reduced = {false, false, true};
    r.compute = [w](const std::vector<IndexPtr>& i) {
      return ex::call("mul", {ex::load(0, ix::add(ix::mul(i[0], 8), i[2]), DType::f32),
                              ex::load(w, ix::add(ix::mul(i[1], 8), i[2]), DType::f32)});
    };
    p.buffers.push_back(r);
    p.outputs.push_back(r.id);
  }
  return p;
}

size_t reductions_in(const Kernel& k) {
  return static_cast<size_t>(std::count_if(k.stages.begin(), k.stages.end(), [](const Stage& s) {
    return s.kind == Stage::Kind::reduce;
  }));
}

// Products the tiled GEMM never takes (fewer than 16 rows: an LSTM step's batch of 10) share a
// kernel, at most four of them; those it may tile keep a kernel each.
TEST(Schedule, ProductsTooSmallToTileShareAKernelFourAtMost) {
  const auto two = schedule(products_of_one_input(10, 64, 2));
  ASSERT_EQ(two.size(), 1u);
  EXPECT_EQ(reductions_in(two[0]), 2u);
  const auto five = schedule(products_of_one_input(10, 64, 5));
  ASSERT_EQ(five.size(), 2u);
  EXPECT_EQ(reductions_in(five[0]) + reductions_in(five[1]), 5u);
  EXPECT_EQ(std::max(reductions_in(five[0]), reductions_in(five[1])), 4u);
  const auto tileable = schedule(products_of_one_input(32, 64, 2));
  ASSERT_EQ(tileable.size(), 2u);
  EXPECT_EQ(reductions_in(tileable[0]), 1u);
}

}  // namespace
}  // namespace kforge::generator
