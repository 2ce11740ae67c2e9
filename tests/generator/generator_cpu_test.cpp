// The kernel generator on the CPU backend: every case of the op table
// (tests/generator/op_cases.hpp) gets a generated kernel that the evaluator finds correct on all
// its shape sets; an operator the generator does not know yet is named, never computed wrongly.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>
#include <sstream>

#include "evaluation/build_config.hpp"
#include "evaluation/process.hpp"
#include "evaluation/python_scripts.hpp"
#include "evaluation/task_export.hpp"
#include "generator/aliases.hpp"
#include "generator/emit.hpp"
#include "generator/expr_text.hpp"
#include "generator/generate.hpp"
#include "generator/graph.hpp"
#include "generator/lowering.hpp"
#include "generator/named_values.hpp"
#include "generator/packed_rows.hpp"
#include "proposers/builtin/builtin_proposer.hpp"
#include "search/novelty.hpp"
#include "search/population.hpp"
#include "tests/generator/op_cases.hpp"

namespace kforge::test {
namespace {

class GeneratedCpu : public testing::TestWithParam<OpCase> {};

TEST_P(GeneratedCpu, IsCorrectOnEveryShapeSet) {
  const auto root = std::filesystem::temp_directory_path() / "kforge_generator_cpu_cases";
  const auto dir = write_op_task(GetParam(), root);
  EXPECT_EQ(check_generated(dir, evaluation::Backend::cpu), "");
}

INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCpu, testing::ValuesIn(op_cases()),
                         [](const auto& info) { return info.param.name; });
INSTANTIATE_TEST_SUITE_P(Windows, GeneratedCpu, testing::ValuesIn(window_cases()),
                         [](const auto& info) { return info.param.name; });
INSTANTIATE_TEST_SUITE_P(LongWindows, GeneratedCpu, testing::ValuesIn(long_window_cases()),
                         [](const auto& info) { return info.param.name; });
INSTANTIATE_TEST_SUITE_P(Contractions, GeneratedCpu, testing::ValuesIn(tensor_core_cases()),
                         [](const auto& info) { return info.param.name; });

// Each way of summing a transposed convolution of stride above 1 is correct on the CPU: every
// offset guarded, the offsets found from each output (the CPU's default), and the outputs grouped
// by phase as a batch (CUDA's default, which CI has no GPU to run).
class GeneratedCpuTransposed
    : public testing::TestWithParam<std::tuple<OpCase, generator::TransposedSum>> {};

TEST_P(GeneratedCpuTransposed, IsCorrectSummedEachWay) {
  const auto root = std::filesystem::temp_directory_path() / "kforge_generator_cpu_cases";
  const auto dir = write_op_task(std::get<0>(GetParam()), root);
  EXPECT_EQ(check_generated_transposed(dir, evaluation::Backend::cpu, std::get<1>(GetParam())), "");
}

INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCpuTransposed,
                         testing::Combine(testing::ValuesIn(transposed_cases()),
                                          testing::Values(generator::TransposedSum::every_offset,
                                                          generator::TransposedSum::phase_batches)),
                         [](const auto& info) { return transposed_case_name(info.param); });

// Backward kernels from the gradients' graph the export traces (autograd through forward_fn, as a
// function of what backward_fn is given): robust-kbench-shaped backward tasks get a correct
// generated kernel, a bias backward_fn is not given included (no gradient needs its value).
class GeneratedCpuBackward : public testing::TestWithParam<std::string> {};

TEST_P(GeneratedCpuBackward, IsCorrectOnEveryConfig) {
  EXPECT_EQ(check_generated(backward_task_copy(GetParam(), evaluation::Backend::cpu),
                            evaluation::Backend::cpu, false, "backward"),
            "");
}

INSTANTIATE_TEST_SUITE_P(RobustKbenchShaped, GeneratedCpuBackward,
                         testing::ValuesIn(backward_cases()),
                         [](const auto& info) { return info.param; });

// What the generator cannot write for a backward task yet is named.
TEST(GeneratedCpuBackward, WhatItCannotWriteYetIsNamed) {
  evaluation::ExportOptions o;
  o.cache_dir = cache_dir();
  for (const auto& [task, why] : std::vector<std::pair<std::string, std::string>>{
           {"rkb_saved_statistics", "the gradients need `x`, which backward_fn is not given"}}) {
    const auto exported = evaluation::export_task(source_dir() + "/tests/tasks/" + task, o);
    ASSERT_TRUE(exported.ok) << exported.error;
    generator::GenerateRequest r{
        exported.dir, exported.doc["directions"]["backward"], "backward", "cpu", {}, false};
    auto g = generator::generate_kernel(r);
    ASSERT_FALSE(g) << task;
    EXPECT_NE(g.error.find(why), std::string::npos) << task << ": " << g.error;
  }
}

// An in-place change (`a.add_(r)`) is lowered out of place where later nodes read its result,
// as the export records them (`(x * 2).add_(r) * 0 + a * 3` reads node add_ twice); a graph whose
// later node reads the tensor from before the change is refused, never computed out of place
// (which would give that node the old values).
TEST(GeneratedCpu, AnInPlaceChangeOfATensorReadAgainIsRefused) {
  const auto root = std::filesystem::temp_directory_path() / "kforge_generator_cpu_cases";
  const auto dir = write_op_task({"in_place_read_again",
                                  "x, residual",
                                  "(lambda a: a.add_(residual) * 0 + a * 3)(x * 2)",
                                  {"[torch.randn(4, 9), torch.randn(4, 9)]"}},
                                 root);
  EXPECT_EQ(check_generated(dir, evaluation::Backend::cpu), "");
  const auto& task = exported(dir);
  ASSERT_TRUE(task.ok) << task.error;
  const auto& config = task.doc["directions"]["forward"]["configs"][0];
  auto graph = generator::read_graph(task.dir + "/" + config["graph"]["file"].as_string());
  ASSERT_TRUE(graph) << graph.error;
  ASSERT_TRUE(generator::Lowerer(false).run(*graph));
  // `a * 3` made to read `x * 2`, the tensor add_ changed, instead of add_'s result.
  int changed = -1, before = -1;
  for (const auto& n : graph->nodes)
    if (n.op == "aten.add_.Tensor") {
      changed = n.id;
      before = static_cast<int>(n.args[0]["node"].as_int());
    }
  ASSERT_GE(before, 0);
  int edited = 0;
  for (auto& n : graph->nodes)
    if (n.op == "aten.mul.Tensor" && n.args[0]["node"].as_int(-1) == changed &&
        n.args[1].as_int(-1) == 3) {
      auto args = json::parse("[{\"node\": " + std::to_string(before) + "}, 3]");
      ASSERT_TRUE(args) << args.error;
      n.args = *args;
      ++edited;
    }
  ASSERT_EQ(edited, 1);
  auto program = generator::Lowerer(false).run(*graph);
  ASSERT_FALSE(program);
  EXPECT_NE(
      program.error.find("an in-place change of a tensor the function reads again afterwards"),
      std::string::npos)
      << program.error;
}

// A change made through a view reaches the tensor it is a view of and that tensor's other views;
// computed out of place, a read of those under their names from before the change would see the
// old values: such graphs are refused with the node that reads them, never a wrong kernel. Pieces
// that do not overlap (an LSTM cell's gate chunks changed in place one by one) are told apart.
TEST(GeneratedCpu, AChangeThroughAViewReadUnderAnotherNameIsRefused) {
  const auto root = std::filesystem::temp_directory_path() / "kforge_generator_cpu_cases";
  const std::vector<OpCase> refused = {
      // the tensor a changed view was taken of, read after
      {"view_changed_base_read", "x", "(lambda y: (y[:, 0].mul_(3), y + 1)[1])(x * 2)",
       {"[torch.randn(6, 5)]"}},
      // filled piece by piece (`out[:, i] = v`: a view and a copy_), then returned
      {"view_filled_by_pieces", "x",
       "(lambda out: ([out[:, i].copy_(torch.tanh(x[:, i])) for i in range(4)], out)[1])"
       "(torch.zeros_like(x))",
       {"[torch.randn(6, 4)]"}},
      // a view taken before its tensor changed, read after
      {"view_taken_before_the_change", "x",
       "(lambda y: (lambda v: (y.mul_(2), v + 1)[1])(y[1:3]))(x * 2)", {"[torch.randn(6, 5)]"}},
      // an overlapping slice of the same tensor, taken before the change
      {"overlapping_slice_read", "x",
       "(lambda y: (lambda a, b: (a.add_(1), b * 2)[1])(y[:, 0:3], y[:, 2:5]))(x * 2)",
       {"[torch.randn(6, 5)]"}}};
  for (const auto& c : refused) {
    const auto& task = exported(write_op_task(c, root));
    ASSERT_TRUE(task.ok) << c.name << ": " << task.error;
    generator::GenerateRequest r{
        task.dir, task.doc["directions"]["forward"], "forward", "cpu", {}, false};
    const auto g = generator::generate_kernel(r);
    ASSERT_FALSE(g) << c.name << " was generated";
    EXPECT_NE(g.error.find("an in-place change of a tensor the function reads again afterwards"),
              std::string::npos)
        << c.name << ": " << g.error;
  }
  const std::vector<OpCase> kept = {
      {"gate_chunks_changed_in_place", "x",
       "(lambda a, b: a.sigmoid_() * b.tanh_())(*(x * 2).chunk(2, dim=1))",
       {"[torch.randn(6, 8)]"}},
      {"disjoint_slices_changed", "x",
       "(lambda y: (lambda a, b: (a.add_(1), b * 2 + a)[1])(y[:, 0:2], y[:, 2:4]))(x * 2)",
       {"[torch.randn(6, 5)]"}},
      {"view_changed_then_read_through_the_change", "x", "(x * 2).t().relu_() + 1",
       {"[torch.randn(6, 5)]"}}};
  for (const auto& c : kept)
    EXPECT_EQ(check_generated(write_op_task(c, root), evaluation::Backend::cpu), "") << c.name;
}

// A change nothing reads afterwards, neither its result nor the tensor it changes (BatchNorm's
// `num_batches_tracked += 1`), is left out, made in place (`c.lgamma_()`) or into an `out`
// (`torch.lgamma(x, out=buf)`, traced as `aten.lgamma.out`): lgamma has no lowering, so without
// the rule the generator refuses either graph. The kernels are judged against the reference.
TEST(GeneratedCpu, AChangeNothingReadsAfterwardsIsLeftOut) {
  const auto root = std::filesystem::temp_directory_path() / "kforge_generator_cpu_cases";
  const std::vector<OpCase> cases = {
      {"out_written_unread", "x",
       "(lambda buf: (torch.lgamma(x, out=buf), x * 3)[1])(torch.empty_like(x))",
       {"[torch.randn(6, 5)]"}},
      {"in_place_unread", "x", "(lambda c: (c.lgamma_(), x * 3)[1])(x * 2)", {"[torch.randn(6, 5)]"}}};
  for (const auto& c : cases) {
    const auto dir = write_op_task(c, root);
    EXPECT_EQ(check_generated(dir, evaluation::Backend::cpu), "") << c.name;
    const auto& task = exported(dir);
    ASSERT_TRUE(task.ok) << c.name << ": " << task.error;
    const auto& config = task.doc["directions"]["forward"]["configs"][0];
    auto graph = generator::read_graph(task.dir + "/" + config["graph"]["file"].as_string());
    ASSERT_TRUE(graph) << c.name << ": " << graph.error;
    const bool changes = std::any_of(graph->nodes.begin(), graph->nodes.end(), [](const auto& n) {
      return generator::Aliases::changed_by(n) >= 0;
    });
    EXPECT_TRUE(changes) << c.name << ": the export traced no change";
  }
}

// An RNN's steps share their kernels: each step reads x through a pointer moved to its slice
// (generator/rebase.hpp), so the source holds each kernel once rather than once a step (24 steps
// here; KernelBench's 36_LSTMHn has 512 steps of 6 layers), on either backend. The op table's
// case `rnn_steps` judges the kernels.
TEST(GeneratedCpu, TheStepsOfAnRnnShareTheirKernels) {
  const auto root = std::filesystem::temp_directory_path() / "kforge_generator_cpu_cases";
  const auto& task = exported(write_op_task(op_cases_named({"rnn_steps"}).front(), root));
  ASSERT_TRUE(task.ok) << task.error;
  for (const std::string backend : {"cpu", "cuda"}) {
    generator::GenerateRequest r{
        task.dir, task.doc["directions"]["forward"], "forward", backend, {}, false};
    const auto g = generator::generate_kernel(r);
    ASSERT_TRUE(g) << g.error;
    // the first config's kernels: x of 3 x 24 x 64, its steps' slices 64 elements apart
    const auto begin = g->source.find("namespace cfg0 {");
    const auto end = g->source.find("namespace cfg1 {");
    ASSERT_NE(begin, std::string::npos);
    ASSERT_NE(end, std::string::npos);
    const std::string first = g->source.substr(begin, end - begin);
    const std::string mark = backend == "cuda" ? "__global__ void" : "\nstatic void k";
    size_t functions = 0, moved = 0;
    for (auto at = first.find(mark); at != std::string::npos; at = first.find(mark, at + 1))
      ++functions;
    for (auto at = first.find("(b0 + "); at != std::string::npos; at = first.find("(b0 + ", at + 1))
      ++moved;
    EXPECT_GE(functions, 1u) << backend;
    EXPECT_LE(functions, 3u) << backend << ": " << g->summary;
    // x passed moved to each group of steps' slices but the first: the steps' x_t @ W^T read
    // nothing the recurrence computes and share a kernel four at a time (generator/schedule.cpp)
    EXPECT_GE(moved, 5u) << backend;
  }
}

/// The forward kernel the generator writes for an op case's task on `backend`.
Result<generator::Generated> generated_for(const OpCase& c, const std::string& backend) {
  const auto root = std::filesystem::temp_directory_path() / "kforge_generator_cpu_cases";
  const auto& task = exported(write_op_task(c, root));
  if (!task.ok) return Result<generator::Generated>::failure(task.error);
  generator::GenerateRequest r{task.dir, task.doc["directions"]["forward"], "forward", backend, {},
                               false};
  return generator::generate_kernel(r);
}

/// How many kernel functions a generated source writes, and the most buffers one takes.
std::pair<size_t, size_t> kernel_functions(const std::string& source, const std::string& backend) {
  const std::string mark = backend == "cuda" ? "__global__ void" : "\nstatic void k";
  size_t functions = 0, most = 0;
  for (auto at = source.find(mark); at != std::string::npos; at = source.find(mark, at + 1)) {
    const std::string head = source.substr(at, source.find('{', at) - at);
    ++functions;
    most = std::max<size_t>(most, std::count(head.begin(), head.end(), '*'));
  }
  return {functions, most};
}

/// The steps a source's launch tables run (their "N steps of" comments), and the lines their
/// packed rows take.
std::pair<size_t, size_t> table_rows_written(const std::string& source) {
  size_t steps = 0, lines = 0;
  const std::regex table("// ([0-9]+) steps of");
  for (auto m = std::sregex_iterator(source.begin(), source.end(), table);
       m != std::sregex_iterator(); ++m)
    steps += std::stoul((*m)[1].str());
  for (auto at = source.find("kf_packed[] = {"); at != std::string::npos;
       at = source.find("kf_packed[] = {", at + 1)) {
    const auto end = source.find("};", at);
    lines +=
        static_cast<size_t>(std::count(source.begin() + static_cast<std::ptrdiff_t>(at),
                                       source.begin() + static_cast<std::ptrdiff_t>(end), '\n'));
  }
  return {steps, lines};
}

/// The stored tensors' table of a source (kf_packed_tensors), a row each: rank, sizes, type,
/// the stack it is a piece of (-1), the dimension and index, where its memory is (-2: a tensor of
/// its own; -1: the arena; else the tensor at that place) and its byte offset there.
std::vector<std::vector<int64_t>> stored_rows(const std::string& source) {
  const auto begin = source.find("kf_packed_tensors[] = {");
  if (begin == std::string::npos) return {};
  const auto open = source.find('{', begin), end = source.find("};", begin);
  const auto flat = generator::unpacked_rows(source.substr(open + 1, end - open - 1));
  std::vector<std::vector<int64_t>> rows;
  for (size_t at = 0; at < flat.size(); at += static_cast<size_t>(flat[at]) + 7)
    rows.emplace_back(flat.begin() + static_cast<std::ptrdiff_t>(at),
                      flat.begin() + static_cast<std::ptrdiff_t>(at + flat[at] + 7));
  return rows;
}

// A layer's stacked outputs that the next layer unbinds are read piece by piece, never computed
// whole: computed whole, the stack was one kernel reading every step's buffers (36_LSTMHn: 1539
// arguments, 512 steps, which nvcc did not compile in five minutes; 38_LSTMBidirectional's two
// directions concatenated, 3078). Each kernel here reads a few buffers, not one or more a step
// (96 steps), and the steps are launched from tables. The op table's cases `stacked_layers` and
// `bidirectional_layers` judge them.
TEST(GeneratedCpu, ALayersStackedStepsAreReadPieceByPiece) {
  for (const auto& c : op_cases_named({"stacked_layers", "bidirectional_layers"}))
    for (const std::string backend : {"cpu", "cuda"}) {
      const auto g = generated_for(c, backend);
      ASSERT_TRUE(g) << g.error;
      const auto [functions, most] = kernel_functions(g->source, backend);
      EXPECT_GE(functions, 2u) << c.name << ", " << backend;
      // (a kernel of four products, each step's x_t @ W^T, stores four: generator/schedule.cpp)
      EXPECT_LE(most, 12u) << c.name << ", " << backend << ": a kernel takes " << most
                           << " buffers";
      // the layers' steps launched from tables (generator/host_table.hpp), a statement a kernel
      // rather than a statement a launch
      // (hundreds of launches: 702 in stacked_layers' two configs); on CUDA a table's graph
      // copies' launches beside them (kX_graph<<<, generator/table_graph.hpp)
      const std::regex launch(backend == "cuda" ? "k[0-9]+<<<" : "\n +k[0-9]+\\(");
      const auto launches = static_cast<size_t>(
          std::distance(std::sregex_iterator(g->source.begin(), g->source.end(), launch),
                        std::sregex_iterator()));
      EXPECT_NE(g->source.find("kf_rows"), std::string::npos) << c.name << ", " << backend;
      if (backend == "cuda") {
        EXPECT_NE(g->source.find("kf_replay.run("), std::string::npos) << c.name;
      }
      EXPECT_LE(launches, 80u) << c.name << ", " << backend << ": " << g->summary;
      // the tables' rows packed (generator/packed_rows.hpp): a step's rows written once with how
      // far each pointer moves a step, so the source does not grow with the steps (36_LSTMHn's
      // full-size tables were 1.4 MB as a row a launch and tensor)
      const auto [steps, lines] = table_rows_written(g->source);
      EXPECT_GE(steps, 200u) << c.name << ", " << backend;
      EXPECT_GT(lines, 0u) << c.name << ", " << backend;
      EXPECT_LT(lines * 3, steps) << c.name << ", " << backend << ": " << lines
                                  << " lines of packed rows";
    }
}

// A sequence returned whole is its steps' memory: each step's kernel stores its output in its
// place in the stack (allocated as views of it), so no kernel reads every step's output again
// (KernelBench's 39_GRU: one kernel of 513 arguments; 41: the concatenation of two such stacks).
TEST(GeneratedCpu, ASequenceIsComputedInItsPlace) {
  for (const auto& c : op_cases_named({"sequence_stacks", "bidirectional_sequence"}))
    for (const std::string backend : {"cpu", "cuda"}) {
      const auto g = generated_for(c, backend);
      ASSERT_TRUE(g) << g.error;
      // the steps' tensors indices of the stack's: a `select` each, or where the tensors are
      // many, rows of a table whose memory is their stack's, at the index's offset
      const auto rows = stored_rows(g->source);
      size_t pieces = 0;
      for (const auto& row : rows) {
        const size_t rank = static_cast<size_t>(row[0]);
        const int64_t stack = row[rank + 2], dim = row[rank + 3], index = row[rank + 4];
        if (stack < 0) continue;
        ++pieces;
        const auto& of = rows.at(static_cast<size_t>(stack));
        const size_t stack_rank = static_cast<size_t>(of[0]);
        if (row[rank + 5] == -2) {  // a tensor: its select of the stack, itself a tensor
          EXPECT_EQ(of[stack_rank + 5], -2) << c.name << ", " << backend;
          continue;
        }
        // float32 pieces: the index's offset in the stack's memory (its root and offset)
        int64_t stride = 4;
        for (size_t d = static_cast<size_t>(dim) + 2; d <= stack_rank; ++d) stride *= of[d];
        const bool own = of[stack_rank + 5] == -2;
        EXPECT_EQ(row[rank + 5], own ? stack : of[stack_rank + 5]) << c.name << ", " << backend;
        EXPECT_EQ(row[rank + 6], (own ? 0 : of[stack_rank + 6]) + index * stride)
            << c.name << ", " << backend;
      }
      EXPECT_TRUE(pieces > 0 ||
                  std::regex_search(g->source, std::regex("auto t[0-9]+ = t[0-9]+\\.select\\(")))
          << c.name << ", " << backend;
      if (c.name == "sequence_stacks") {
        // the second shape set's (a statement a tensor): the 9 steps of the sequence, and the 3
        // last steps, two of them copies (one a piece of the sequence already, one never a buffer)
        const std::regex select("= t[0-9]+\\.select\\(");
        const auto second = g->source.find("namespace cfg1 {");
        ASSERT_NE(second, std::string::npos) << backend;
        const auto selects = std::distance(
            std::sregex_iterator(g->source.begin() + static_cast<std::ptrdiff_t>(second),
                                 g->source.end(), select),
            std::sregex_iterator());
        EXPECT_EQ(selects, 12) << backend;
        continue;
      }
      const size_t most = kernel_functions(g->source, backend).second;
      EXPECT_LE(most, 8u) << backend << ": a kernel reads " << most << " buffers";
    }
}

/// The sums of products of the program of an op case's first shape set, and how many of them
/// compute a special function (an operand they read for several outputs that is not a buffer).
std::pair<size_t, size_t> sums_of_special_functions(const OpCase& c, bool tiled_products) {
  const auto& task = exported(
      write_op_task(c, std::filesystem::temp_directory_path() / "kforge_generator_cpu_cases"));
  EXPECT_TRUE(task.ok) << task.error;
  const auto& config = task.doc["directions"]["forward"]["configs"][0];
  auto graph = generator::read_graph(task.dir + "/" + config["graph"]["file"].as_string());
  EXPECT_TRUE(graph) << graph.error;
  if (!graph) return {0, 0};
  auto program =
      generator::Lowerer(false, generator::TransposedSum::every_offset, 0, tiled_products)
          .run(*graph);
  EXPECT_TRUE(program) << program.error;
  if (!program) return {0, 0};
  size_t sums = 0, special = 0;
  for (const auto& b : program->buffers) {
    if (b.kind != generator::Buffer::Kind::reduction) continue;
    const auto term = b.compute(generator::ix::vars(b.space));
    if (term->kind != generator::Expr::Kind::call || term->fn != "mul") continue;
    ++sums;  // a sum of products (not a softmax's sum of exponentials)
    special += generator::special_functions(term) > 0;
  }
  return {sums, special};
}

// An operand a matrix product reads for each of its output columns is computed once where it
// calls a special function: an LSTM's h = o * tanh(c) is a buffer the next step's product reads,
// where inlined it was computed again for each of the 4 x hidden gate columns (KernelBench's
// 36_LSTMHn on the CPU: 0.08x of eager), on the GPU too where the batch is too short for tiles.
// Where CUDA's tiles read an element for fewer than 256 columns (attention's probabilities
// times its values), it is computed a few times, never stored. The op table's case `lstm_steps`
// judges the kernels.
TEST(GeneratedCpu, AnOperandEveryColumnReadsIsComputedOnce) {
  for (const bool tiled : {false, true}) {
    const auto [sums, special] =
        sums_of_special_functions(op_cases_named({"lstm_steps"})[0], tiled);
    EXPECT_GE(sums, 12u);  // each step's gates, x_t @ w + h @ u
    EXPECT_EQ(special, 0u) << (tiled ? "tiled" : "per output");
  }
  const OpCase attention{
      "attention_probabilities",
      "q, k, v",
      "torch.softmax(q @ k.transpose(-1, -2), dim=-1) @ v",
      {"[torch.randn(2, 32, 8), torch.randn(2, 32, 8), torch.randn(2, 32, 24)]"}};
  EXPECT_EQ(sums_of_special_functions(attention, false).second, 0u);
  EXPECT_EQ(sums_of_special_functions(attention, true).second, 1u);
}

// An LSTM step's gates are products of their own with the cell as their epilogue
// (generator/gate_products.hpp): one kernel a step computes the four gates' products of h, c and
// h, where the step's product of every gate column and the cell were a kernel each. The op table's
// case `lstm_steps` (12 steps) judges the kernels.
TEST(GeneratedCpu, AnLstmStepsGatesAndCellAreOneKernel) {
  const auto root = std::filesystem::temp_directory_path() / "kforge_generator_cpu_cases";
  const auto& task = exported(write_op_task(op_cases_named({"lstm_steps"}).front(), root));
  ASSERT_TRUE(task.ok) << task.error;
  const std::regex counted("([0-9]+) kernel\\(s\\)");
  for (const std::string backend : {"cpu", "cuda"})
    for (const bool split : {true, false}) {
      generator::GenerateRequest r{
          task.dir, task.doc["directions"]["forward"], "forward", backend, {}, false};
      r.split_gates = split;
      const auto g = generator::generate_kernel(r);
      ASSERT_TRUE(g) << g.error;
      std::smatch m;
      ASSERT_TRUE(std::regex_search(g->summary, m, counted)) << g->summary;
      const size_t kernels = std::stoul(m[1].str());
      EXPECT_EQ(g->gate_splits, split ? 12u : 0u) << backend;
      // 12 steps, and the input products batched over the sequence before them
      if (split)
        EXPECT_LE(kernels, 13u) << backend << ": " << g->summary;
      else
        EXPECT_GE(kernels, 24u) << backend << ": " << g->summary;
    }
}

// A hand-written LSTM whose gates' weights are selected from one parameter at each step
// (`xt @ w[k]`): the four gates' input products are batched over the sequence (a family each),
// so a step is one kernel of its four recurrent products and the cell, where the eight products
// were two kernels a step. The op table's case `lstm_gate_weights` judges the kernels.
TEST(GeneratedCpu, AHandWrittenLstmsSelectedGateWeightsAreBatchedOverItsSteps) {
  const auto root = std::filesystem::temp_directory_path() / "kforge_generator_cpu_cases";
  const auto& task = exported(write_op_task(op_cases_named({"lstm_gate_weights"}).front(), root));
  ASSERT_TRUE(task.ok) << task.error;
  const std::regex counted("([0-9]+) kernel\\(s\\)");
  for (const std::string backend : {"cpu", "cuda"}) {
    generator::GenerateRequest r{
        task.dir, task.doc["directions"]["forward"], "forward", backend, {}, false};
    const auto g = generator::generate_kernel(r);
    ASSERT_TRUE(g) << g.error;
    EXPECT_EQ(g->step_families, 4u) << backend;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(g->summary, m, counted)) << g->summary;
    // 12 steps and the 4 batched products in one kernel (24 step by step)
    EXPECT_LE(std::stoul(m[1].str()), 13u) << backend << ": " << g->summary;
  }
}

class GeneratedCpuLibrary : public testing::TestWithParam<OpCase> {};

TEST_P(GeneratedCpuLibrary, IsCorrectWithLibraryCalls) {
  const auto root = std::filesystem::temp_directory_path() / "kforge_generator_cpu_cases";
  const auto dir = write_op_task(GetParam(), root);
  EXPECT_EQ(check_generated(dir, evaluation::Backend::cpu, true), "");
}

INSTANTIATE_TEST_SUITE_P(Ops, GeneratedCpuLibrary, testing::ValuesIn(library_cases()),
                         [](const auto& info) { return info.param.name; });

/// The built-in proposer's request for the forward direction of an op case's task, on `backend`.
builtin::BuiltinRequest proposer_request(const OpCase& c, const std::string& backend) {
  const auto root = std::filesystem::temp_directory_path() / "kforge_generator_cpu_cases";
  const auto& task = exported(write_op_task(c, root));
  EXPECT_TRUE(task.ok) << task.error;
  builtin::BuiltinRequest r;
  r.backend = backend;
  r.export_dir = task.dir;
  r.direction = "forward";
  r.direction_doc = task.doc["directions"]["forward"];
  return r;
}

// The built-in proposer offers library calls as one more choice where the task has a matrix
// product or convolution and the policy lets kernels call libraries; first when it allows them.
TEST(GeneratedCpuLibrary, TheProposerOffersLibraryCallsAsThePolicySays) {
  auto request = [&](const OpCase& c, bool library, bool first) {
    auto r = proposer_request(c, "cpu");
    r.library_calls = library;
    r.library_first = first;
    return r;
  };
  const auto cases = library_cases();
  const auto& matmul = cases.front();
  auto forbidden = builtin::propose_builtin(request(matmul, false, false));
  ASSERT_TRUE(forbidden.ok) << forbidden.error;
  EXPECT_EQ(forbidden.params, "{}");
  EXPECT_EQ(forbidden.source.find("at::"), std::string::npos);

  auto allowed = request(matmul, true, true);
  auto first = builtin::propose_builtin(allowed);
  ASSERT_TRUE(first.ok) << first.error;
  EXPECT_EQ(first.params, R"({"library":1})");
  EXPECT_NE(first.source.find("at::mm("), std::string::npos);
  allowed.tried.insert(search::proposal_key(first.strategy, first.params));
  auto second = builtin::propose_builtin(allowed);
  ASSERT_TRUE(second.ok) << second.error;
  EXPECT_EQ(second.params, R"({"library":0})");
  EXPECT_EQ(second.source.find("at::"), std::string::npos);

  auto flagged = builtin::propose_builtin(request(matmul, true, false));
  EXPECT_EQ(flagged.params, R"({"library":0})");

  // Nothing to hand a library: no such choice.
  auto pointwise = builtin::propose_builtin(request(op_cases().front(), true, true));
  ASSERT_TRUE(pointwise.ok) << pointwise.error;
  EXPECT_EQ(pointwise.params, "{}");
}

// TF32 is a choice only where the task's tolerance admits it and the generator's own kernel has a
// tiled contraction; the CUDA sources are rendered here (no GPU needed), judged under `gpu`.
TEST(GeneratedCpuLibrary, TheProposerOffersTf32WhereTheToleranceAdmitsIt) {
  auto request = [&](OpCase c, double tolerance) {
    c.name += tolerance > 0 ? "_loose" : "_strict";
    c.tolerance = tolerance;
    return proposer_request(c, "cuda");
  };
  const auto linear = tensor_core_cases().front();
  auto loose = request(linear, 1e-2);
  std::set<std::string> seen;
  bool on_tensor_cores = false;
  for (int i = 0; i < 200 && !on_tensor_cores; ++i) {
    auto p = builtin::propose_builtin(loose);
    if (!p.ok) break;
    loose.tried.insert(search::proposal_key(p.strategy, p.params));
    seen.insert(p.params);
    if (p.params.find(R"("tf32":1)") != std::string::npos) {
      on_tensor_cores = true;
      EXPECT_NE(p.source.find("wmma::mma_sync"), std::string::npos);
    } else {
      EXPECT_EQ(p.source.find("wmma::"), std::string::npos) << p.params;
    }
  }
  EXPECT_TRUE(on_tensor_cores) << seen.size() << " proposals, none with tf32";
  // The first proposal stays in float32.
  auto first = builtin::propose_builtin(request(linear, 1e-2));
  EXPECT_NE(first.params.find(R"("tf32":0)"), std::string::npos) << first.params;
  // robust-kbench's default tolerance (1e-5): no such choice.
  auto strict = builtin::propose_builtin(request(linear, 0));
  ASSERT_TRUE(strict.ok) << strict.error;
  EXPECT_EQ(strict.params.find("tf32"), std::string::npos) << strict.params;
  // Nothing to contract: no such choice either.
  auto pointwise = request(op_cases().front(), 1e-2);
  auto p = builtin::propose_builtin(pointwise);
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.params.find("tf32"), std::string::npos) << p.params;
}

// fast_math is a choice only on CUDA where the kernel calls exp or log (itself or through the
// prelude's sigmoid, softplus, a softmax's exponentials) and the task's tolerance admits it.
TEST(GeneratedCpuLibrary, TheProposerOffersFastMathWhereExpOrLogRunAndTheToleranceAdmitsIt) {
  auto request = [&](OpCase c, double tolerance, const std::string& backend = "cuda") {
    c.name += tolerance > 0 ? "_loose" : "_strict";
    c.tolerance = tolerance;
    return proposer_request(c, backend);
  };
  const OpCase softmax{
      "fast_math_choice", "x", "torch.softmax(x, dim=-1)", {"[torch.randn(8, 40)]"}};
  auto loose = request(softmax, 1e-2);
  bool fast = false;
  for (int i = 0; i < 200 && !fast; ++i) {
    auto p = builtin::propose_builtin(loose);
    if (!p.ok) break;
    loose.tried.insert(search::proposal_key(p.strategy, p.params));
    fast = p.params.find(R"("fast_math":1)") != std::string::npos;
    EXPECT_EQ(p.source.find("#define expf __expf") != std::string::npos, fast) << p.params;
  }
  EXPECT_TRUE(fast) << "no proposal with fast_math";
  auto first = builtin::propose_builtin(request(softmax, 1e-2));
  EXPECT_NE(first.params.find(R"("fast_math":0)"), std::string::npos) << first.params;
  for (const auto& none :
       {request(softmax, 0),  // robust-kbench's default tolerance (1e-5)
        request({"fast_math_choice_relu", "x", "torch.relu(x) * 2", {"[torch.randn(8, 40)]"}},
                1e-2),  // no exp or log
        request(softmax, 1e-2, "cpu")}) {
    auto p = builtin::propose_builtin(none);
    ASSERT_TRUE(p.ok) << p.error;
    EXPECT_EQ(p.params.find("fast_math"), std::string::npos) << p.params;
  }
}

// batch_steps is a choice only where the generator batches an RNN's input products
// (generator/step_products.hpp): batched first, step by step the other point, each proposal the
// generator's kernel with that choice; no such choice on a function without them.
TEST(GeneratedCpuLibrary, TheProposerOffersStepByStepProductsWhereARecurrencesAreBatched) {
  auto rnn = proposer_request(op_cases_named({"stacked_layers"}).at(0), "cpu");
  const auto first = builtin::propose_builtin(rnn);
  ASSERT_TRUE(first.ok) << first.error;
  EXPECT_NE(first.params.find(R"("batch_steps":1)"), std::string::npos) << first.params;
  rnn.tried.insert(search::proposal_key(first.strategy, first.params));
  const auto second = builtin::propose_builtin(rnn);
  ASSERT_TRUE(second.ok) << second.error;
  EXPECT_NE(second.params.find(R"("batch_steps":0)"), std::string::npos) << second.params;
  const auto generated = [&](const builtin::BuiltinProposal& p) {
    generator::GenerateRequest g{rnn.export_dir,
                                 rnn.direction_doc,
                                 rnn.direction,
                                 "cpu",
                                 {},
                                 p.params.find(R"("library":1)") != std::string::npos};
    g.batch_steps = p.params.find(R"("batch_steps":1)") != std::string::npos;
    auto out = generator::generate_kernel(g);
    return out ? out->source : out.error;
  };
  EXPECT_NE(first.source, second.source);
  EXPECT_EQ(first.source, generated(first));
  EXPECT_EQ(second.source, generated(second));
  const auto plain = builtin::propose_builtin(proposer_request(
      {"batch_steps_choice_relu", "x", "torch.relu(x) * 2", {"[torch.randn(8, 40)]"}}, "cpu"));
  ASSERT_TRUE(plain.ok) << plain.error;
  EXPECT_EQ(plain.params.find("batch_steps"), std::string::npos) << plain.params;
}

// split_gates is a choice only where the generator cuts a recurrent cell's gates into products of
// their own (generator/gate_products.hpp): cut first, each proposal the generator's kernel with
// its batch_steps and split_gates, both points offered; none on an RNN without gates.
TEST(GeneratedCpuLibrary, TheProposerOffersWholeGateProductsWhereACellsGatesAreCut) {
  auto lstm = proposer_request(op_cases_named({"lstm_steps"}).at(0), "cpu");
  const auto generated = [&](const builtin::BuiltinProposal& p) {
    generator::GenerateRequest g{
        lstm.export_dir, lstm.direction_doc, lstm.direction, "cpu", {}, false};
    g.batch_steps = p.params.find(R"("batch_steps":0)") == std::string::npos;
    g.split_gates = p.params.find(R"("split_gates":0)") == std::string::npos;
    auto out = generator::generate_kernel(g);
    return out ? out->source : out.error;
  };
  std::set<std::string> seen;
  for (int i = 0; i < 8 && seen.size() < 2; ++i) {
    const auto p = builtin::propose_builtin(lstm);
    ASSERT_TRUE(p.ok) << p.error;
    if (i == 0) {
      EXPECT_NE(p.params.find(R"("split_gates":1)"), std::string::npos) << p.params;
    }
    for (const char* choice : {R"("split_gates":1)", R"("split_gates":0)"})
      if (p.params.find(choice) != std::string::npos) seen.insert(choice);
    EXPECT_EQ(p.source, generated(p)) << p.params;
    lstm.tried.insert(search::proposal_key(p.strategy, p.params));
  }
  EXPECT_EQ(seen.size(), 2u);
  const auto rnn =
      builtin::propose_builtin(proposer_request(op_cases_named({"stacked_layers"}).at(0), "cpu"));
  ASSERT_TRUE(rnn.ok) << rnn.error;
  EXPECT_EQ(rnn.params.find("split_gates"), std::string::npos) << rnn.params;
}

// The built-in proposer's search on a KernelBench problem as a user brings it (36_RMSNorm_, its
// file unchanged, imported at small size): most of the generator's choices do not apply to a norm
// over channels (windows, tiles, a pointwise kernel's elements), so a random move of the parent's
// choices wrote its source again, a candidate the novelty filter rejects unevaluated. With the
// digests of the target's earlier sources, every proposal is a kernel not proposed before.
TEST(GeneratedCpuLibrary, TheProposerNeverOffersAKernelProposedBefore) {
  const auto root = std::filesystem::temp_directory_path() / "kforge_generator_proposer";
  std::filesystem::create_directories(root);
  const std::string file = source_dir() + "/tests/kernelbench/upstream/level1/36_RMSNorm_.py";
  auto imported = evaluation::run_script(
      evaluation::task_script("", build::kernelbench_importer,
                              {"--out", root.string(), "--shrink", "16", file}),
      std::chrono::minutes(5));
  ASSERT_EQ(imported.exit_code, 0) << imported.output;
  const auto& task = exported((root / "36_RMSNorm_").string());
  ASSERT_TRUE(task.ok) << task.error;
  // A search of 12 proposals: the first the defaults, each later one a move of the first's
  // choices; returns how many distinct kernels they were.
  auto search = [&](bool with_sources) {
    builtin::BuiltinRequest r;
    r.backend = "cuda";
    r.export_dir = task.dir;
    r.direction = "forward";
    r.direction_doc = task.doc["directions"]["forward"];
    std::set<std::string> kernels;
    for (uint64_t i = 0; i < 12; ++i) {
      r.seed = i;
      auto p = builtin::propose_builtin(r);
      EXPECT_TRUE(p.ok) << p.error;
      if (!p.ok) break;
      if (i == 0) {
        r.mode = search::ProposalMode::optimise;
        r.has_parent = true;
        r.parent_strategy = p.strategy;
        r.parent_params = p.params;
      }
      r.tried.insert(search::proposal_key(p.strategy, p.params));
      const std::string digest = search::source_digest(p.source);
      if (with_sources) {
        EXPECT_EQ(r.tried_sources.count(digest), 0u) << "proposal " << i << ": " << p.params;
        r.tried_sources.insert(digest);
      }
      kernels.insert(digest);
    }
    return kernels.size();
  };
  EXPECT_LT(search(false), 12u)
      << "without the sources, the moves repeat kernels (2 of 12 differed)";
  EXPECT_EQ(search(true), 12u);
}

// A tensor the function makes from data (KernelBench's level2/93: torch.min(x, torch.tensor(0.0,
// device=x.device))) keeps its value in the graph when the inputs are too large to trace on zeros
// (over 2^24 elements): the exporter makes it on the CPU while tracing on meta tensors.
TEST(GeneratedCpuConstants, AConstantTheFunctionMakesKeepsItsValueAtFullSize) {
  const auto root = std::filesystem::temp_directory_path() / "kforge_generator_cpu_cases";
  const auto dir = write_op_task({"constant_large",
                                  "x",
                                  "torch.min(x + 0.5, torch.tensor(0.0, device=x.device)) * 2",
                                  {"[torch.randn(4097, 4096)]"}},
                                 root);
  EXPECT_EQ(check_generated(dir, evaluation::Backend::cpu), "");
}

// The same reduction asked for twice (a sum twice, a mean the user takes and the one inside std)
// is computed once: later ones read the first one's buffer.
TEST(GeneratedCpuReductions, TheSameReductionIsComputedOnce) {
  const auto root = std::filesystem::temp_directory_path() / "kforge_generator_cpu_cases";
  const auto dir = write_op_task(
      {"same_reduction",
       "x, y",
       "(x.sum(-1), x.sum(dim=1) * 2, (x - x.mean(-1, keepdim=True)) / x.std(-1, keepdim=True), "
       "torch.bmm(x.unsqueeze(0), y.unsqueeze(0)), torch.matmul(x, y).unsqueeze(0) + 1)",
       {"[torch.randn(6, 40), torch.randn(40, 5)]"}},
      root);
  const auto& task = exported(dir);
  ASSERT_TRUE(task.ok) << task.error;
  const auto& config = task.doc["directions"]["forward"]["configs"][0];
  auto graph = generator::read_graph(task.dir + "/" + config["graph"]["file"].as_string());
  ASSERT_TRUE(graph) << graph.error;
  auto program = generator::Lowerer(false).run(*graph);
  ASSERT_TRUE(program) << program.error;
  int reductions = 0;
  for (const auto& b : program->buffers) reductions += b.kind == generator::Buffer::Kind::reduction;
  // The row sum (asked twice), the mean (the user's and std's own), std's sum of squares, and the
  // two products (bmm's space has a batch dimension, mm's not: not the same): 5; without sharing 7.
  EXPECT_EQ(reductions, 5);
  EXPECT_EQ(check_generated(dir, evaluation::Backend::cpu), "");
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

/// The source the generator writes for an op case's forward direction on `backend`.
std::string backend_source(const OpCase& c, const std::string& backend,
                           const generator::CudaChoices& choices = {}, bool library = false,
                           std::optional<generator::TransposedSum> transposed = std::nullopt,
                           int64_t partials = 0) {
  const auto root = std::filesystem::temp_directory_path() / "kforge_generator_cpu_cases";
  const auto& task = exported(write_op_task(c, root));
  EXPECT_TRUE(task.ok) << task.error;
  auto g = generator::generate_kernel({task.dir, task.doc["directions"]["forward"], "forward",
                                       backend, choices, library, transposed, partials});
  EXPECT_TRUE(g) << g.error;
  return g ? g->source : std::string();
}

/// The CUDA source the generator writes for an op case's forward direction (no GPU needed).
std::string cuda_source(const OpCase& c, const generator::CudaChoices& choices = {},
                        bool library = false) {
  return backend_source(c, "cuda", choices, library);
}

/// The CUDA source of an RMS norm over the channels (dimension 1) of `y`, an expression of x of
/// `shape` (x itself by default).
std::string rms_source(const std::string& name, const std::string& shape,
                       const generator::CudaChoices& c = {}, const std::string& y = "x") {
  return cuda_source(
      {name,
       "x",
       "(lambda y: y / torch.sqrt((y ** 2).mean(1, keepdim=True) + 1e-5))(" + y + ")",
       {"[torch.randn(" + shape + ")]"}},
      c);
}

/// The CUDA source of `expression` over x of `shape` with `warps` warps a scan row (the choice
/// scan_warps; 1: a warp a row, 0 by rule: rows of 1028 are shared by 2 warps).
std::string scan_source(const std::string& name, const std::string& expression,
                        const std::string& shape, int warps, generator::CudaChoices c = {}) {
  c.scan_warps = warps;
  return cuda_source({name, "x", expression, {"[torch.randn(" + shape + ")]"}}, c);
}

// A CPU kernel whose one counter r over several inner dimensions would be divided by their sizes
// (a convolution's channels and window; a reduction over a transposed view) walks them in a nest
// of loops, a counter a dimension, an arg reduction's index the counters' offset (a pool's
// indices); a reduction over contiguous dimensions keeps its one counter, as does an arg
// reduction over a view (torch flattens it: one inner dimension). The kernels are correct
// against PyTorch.
TEST(GeneratedCpuSource, AWalkThatWouldDivideItsCounterIsANest) {
  const auto root = std::filesystem::temp_directory_path() / "kforge_generator_cpu_cases";
  const OpCase conv{"nest_conv",
                    "x, w",
                    "F.conv2d(x, w, padding=1)",
                    {"[torch.randn(2, 3, 8, 7), torch.randn(4, 3, 3, 3)]"}};
  const std::string convolution = backend_source(conv, "cpu");
  EXPECT_EQ(occurrences(convolution, "(r / "), 0u) << convolution;
  for (const char* loop : {"kf_i0 < 3; ++kf_i0", "kf_i1 < 3; ++kf_i1", "kf_i2 < 3; ++kf_i2"})
    EXPECT_EQ(occurrences(convolution, loop), 1u) << loop << "\n" << convolution;
  EXPECT_EQ(check_generated(write_op_task(conv, root), evaluation::Backend::cpu), "");
  const OpCase views{"nest_views",
                     "x",
                     "(x.transpose(1, 2).argmax(), x.permute(2, 0, 1).sum(dim=(1, 2)), "
                     "x.transpose(0, 2).amin(dim=(0, 1)), x.sum(dim=(1, 2)))",
                     {"[torch.randn(4, 6, 5)]", "[torch.randn(3, 7, 9)]"}};
  const std::string walks = backend_source(views, "cpu");
  EXPECT_EQ(occurrences(walks, "kf_i0 < 5; ++kf_i0"), 1u) << walks;  // amin's nest, 5 x 6
  EXPECT_EQ(occurrences(walks, "kf_i1 < 6; ++kf_i1"), 1u) << walks;
  EXPECT_EQ(occurrences(walks, "r < 30; ++r"), 1u) << walks;   // the contiguous sum's one counter
  EXPECT_EQ(occurrences(walks, "r < 120; ++r"), 1u) << walks;  // argmax's, dividing r
  EXPECT_EQ(check_generated(write_op_task(views, root), evaluation::Backend::cpu), "");
  // a pool's arg reduction over its 3 x 3 windows: a nest whose index is the counters' offset
  const OpCase pool{"nest_arg_pool",
                    "x",
                    "F.max_pool2d(x, 3, 2, 1, return_indices=True)",
                    {"[torch.randn(2, 3, 9, 8)]"}};
  const std::string arg = backend_source(pool, "cpu");
  EXPECT_EQ(occurrences(arg, "(r / ") + occurrences(arg, "(r % "), 0u) << arg;
  EXPECT_GE(occurrences(arg, " = ((kf_i0 * 3) + kf_i1);"), 1u) << arg;
  EXPECT_EQ(check_generated(write_op_task(pool, root), evaluation::Backend::cpu), "");
}

// A transposed convolution of stride 2 and a 3 x 3 kernel over 3 channels: each output sums the
// 3 x 2 x 2 offsets it takes (the kernel offset (o + 1) % 2 + 2j along each dimension), on the CPU
// found from the output's position, on CUDA with the outputs grouped by that phase, a dimension
// the contraction kernel tiles (a larger one below). Asked for every offset, the sum
// walks all 27, those an output does not take guarded off.
TEST(GeneratedCpuSource, ATransposedConvolutionSumsOnlyTheOffsetsAnOutputTakes) {
  const auto transposed = [](const std::string& name, const std::string& arguments,
                             const std::string& x = "2, 3, 5, 6", const std::string& w = "3, 4") {
    return OpCase{name,
                  "x, w",
                  "F.conv_transpose2d(x, w, " + arguments + ")",
                  {"[torch.randn(" + x + "), torch.randn(" + w + ", 3, 3)]"}};
  };
  // an offset guarded off: (o + padding - k) % 2 == 0, as the generator writes it
  const std::string guard = "% 2)) == int64_t(0)";
  // Whether an output sums channels x offsets `dims`, as the backend walks them: on CUDA one
  // counter r over all of them, on the CPU a loop a dimension (r would be divided by their sizes).
  const auto sums = [](const std::string& source, const std::string& backend,
                       const std::vector<int>& dims) {
    if (backend == "cuda") {
      int total = 1;
      for (int d : dims) total *= d;
      return occurrences(source, "r < " + std::to_string(total) + ";");
    }
    size_t least = std::string::npos;
    for (size_t i = 0; i < dims.size(); ++i) {
      const std::string c = "kf_i" + std::to_string(i);
      least =
          std::min(least, occurrences(source, c + " < " + std::to_string(dims[i]) + "; ++" + c));
    }
    return least;
  };
  const OpCase strided = transposed("transposed_phases", "stride=2, padding=1");
  for (const char* backend : {"cpu", "cuda"}) {
    const std::string phases = backend_source(strided, backend);
    EXPECT_EQ(sums(phases, backend, {3, 2, 2}), 1u) << backend << "\n" << phases;
    EXPECT_EQ(sums(phases, backend, {3, 3, 3}), 0u) << backend << "\n" << phases;
    EXPECT_EQ(occurrences(phases, guard), 0u) << backend << "\n" << phases;
    // the weight w (b1) read only where the offset (o + 1) % 2 + 2j is inside its 3 x 3: a read
    // past it times a zeroed input was NaN wherever that memory held one (a flaky verdict)
    EXPECT_EQ(occurrences(phases, "? b1["), 1u) << backend << "\n" << phases;
    const std::string every =
        backend_source(strided, backend, {}, false, generator::TransposedSum::every_offset);
    EXPECT_EQ(sums(every, backend, {3, 3, 3}), 1u) << backend << "\n" << every;
    EXPECT_EQ(occurrences(every, guard), 2u) << backend << "\n" << every;
    const std::string dilated =
        backend_source(transposed("transposed_dilated", "stride=2, dilation=2"), backend);
    // each output of an even o + padding takes all 3 x 3 offsets (a dilation of 2 at a stride of
    // 2), an odd one none: only the even are summed, with no offset guarded off; the only
    // remainders by 2 are in the output's read of the sum (b3 from b2)
    EXPECT_EQ(sums(dilated, backend, {3, 3, 3}), 1u) << backend << "\n" << dilated;
    std::istringstream lines(dilated);
    size_t in_output = 0;
    for (std::string line; std::getline(lines, line);)
      if (line.find(guard) != std::string::npos) {
        EXPECT_NE(line.find("b3["), std::string::npos) << backend << ": " << line;
        ++in_output;
      }
    EXPECT_GE(in_output, 1u) << backend << "\n" << dilated;
    // a kernel of 3 at a stride of 5 and a dilation of 2: 3 of the 5 classes summed, an offset
    // each, none past the kernel, so the weight is read without a guard
    const std::string short_kernel =
        backend_source(transposed("transposed_short_kernel", "stride=5, dilation=2"), backend);
    EXPECT_EQ(sums(short_kernel, backend, {3, 3, 3}), 0u) << backend << "\n" << short_kernel;
    EXPECT_EQ(occurrences(short_kernel, "? b1["), 0u) << backend << "\n" << short_kernel;
  }
  // 8 x 32 x 32 x 32 inputs, 64 output channels: on CUDA one implicit GEMM whose columns are the
  // output channels of the 4 phases (the input's element depends on q and j alone), each output
  // summing 32 channels of 2 x 2 offsets (where every offset sums 288)
  const OpCase large =
      transposed("transposed_phases_tiled", "stride=2, padding=1", "8, 32, 32, 32", "32, 64");
  const std::string tiled = backend_source(large, "cuda");
  EXPECT_EQ(occurrences(tiled, "M = 8192, N = 256, K = 128, batch 1;"), 1u) << tiled;
  const std::string tiled_every =
      backend_source(large, "cuda", {}, false, generator::TransposedSum::every_offset);
  EXPECT_EQ(occurrences(tiled_every, "M = 31752, N = 64, K = 288, batch 1;"), 1u) << tiled_every;
}

// The CUDA source (written without a GPU; the `gpu` label runs it): a row's maximum and its sum
// of exp(x - maximum) read the row once (softmax, log-softmax, logsumexp), and only where the sum
// is of that very row minus that very maximum. The choice `online` 1 asks for the online pass
// where the row cache holds these rows (by rule two passes over its registers, tested below).
TEST(GeneratedCudaSource, ARowsMaximumAndItsSumOfExponentialsAreOnePass) {
  // a call in a kernel (the prelude's definition reads "kf_online_add(float& m")
  auto passes = [](const std::string& source) { return occurrences(source, "kf_online_add(s"); };
  generator::CudaChoices online;
  online.online = 1;
  // 128 rows: enough that a row is not split across blocks (which takes its maximum and sum apart)
  for (const char* f :
       {"torch.softmax(x, dim=-1)", "torch.log_softmax(x, dim=1)", "torch.logsumexp(x, dim=-1)"})
    EXPECT_GE(passes(cuda_source({"online", "x", f, {"[torch.randn(128, 2000)]"}}, online)), 1u)
        << f;
  // the exponentials of another tensor than the one whose maximum is taken
  EXPECT_EQ(passes(cuda_source({"not_online",
                                "x, y",
                                "torch.exp(y - x.amax(-1, keepdim=True)).sum(-1)",
                                {"[torch.randn(128, 2000), torch.randn(128, 2000)]"}},
                               online)),
            0u);
}

// A row's statistics computed before a total over every element (another space, which the row's
// output reads) wait for it in their kernel, which the row's output then joins: the rows are
// read by that kernel once, not once for the statistics and again for the output (cross
// entropy's backward: each row's softmax statistics, the count of targets, the gradient).
TEST(GeneratedCudaSource, ARowsStatisticsWaitForATotalSoThatTheRowsOutputJoinsThem) {
  const auto source = cuda_source({"softmax_beside_a_total",
                                   "x, y",
                                   "torch.softmax(x, dim=1) * y.sum()",
                                   {"[torch.randn(4096, 100), torch.randn(4096)]"}});
  // the total's partial sums and their combination, then the rows: three kernels, not four
  EXPECT_NE(source.find("k2<<<"), std::string::npos) << source;
  EXPECT_EQ(source.find("k3<<<"), std::string::npos) << source;
  // the kernel that stores the output computes its row's maximum and sum (over the row cache)
  const auto last = source.find("__global__ void __launch_bounds__(256) k2(");
  ASSERT_NE(last, std::string::npos) << source;
  EXPECT_NE(source.find("KfMax()(s", last), std::string::npos) << source;
  EXPECT_NE(source.find("expf((kf_c0[kf_j]", last), std::string::npos) << source;
}

// The CUDA source of reductions with few outputs: few long rows are split across blocks (a batch
// norm's 128 channels of a million elements were 128 blocks), a column reduction's partials are
// columns still (neighbouring threads, neighbouring columns), and a row's division by its own
// sum is a multiplication by the sum's reciprocal.
TEST(GeneratedCudaSource, FewLongRowsAreSplitColumnsStayColumnsAndARowsSumIsAReciprocal) {
  // 128 rows of 65536 (128 x 256 lanes, the old limit): partials, then their combination
  const auto rows =
      cuda_source({"long_rows", "x", "x.sum(dim=(0, 2))", {"[torch.randn(2, 128, 32768)]"}});
  EXPECT_NE(rows.find("k1<<<"), std::string::npos) << rows;
  // 128 rows of 2000 keep one kernel (and softmax its online pass, tested above)
  const auto short_rows =
      cuda_source({"short_rows", "x", "x.sum(dim=-1)", {"[torch.randn(128, 2000)]"}});
  EXPECT_EQ(short_rows.find("k1<<<"), std::string::npos) << short_rows;
  // 64 columns of 4096: the partial sums' threads are consecutive columns (o % 64)
  const auto columns =
      cuda_source({"split_columns", "x", "x.sum(dim=0)", {"[torch.randn(4096, 64)]"}});
  EXPECT_NE(columns.find("b0[(((o / 64) * 4096) + (o % 64) + (r * 64))]"), std::string::npos)
      << columns;
  // ... kept as their double sums left them, and combined in double (rounded to float, a total
  // near zero was off by several float steps of the partials: robust-kbench's llama_rmsnorm
  // backward on the GPU, 2 of 2048 weight gradients beyond twice eager's miss of float64)
  EXPECT_NE(columns.find("auto t1 = torch::empty({64, 64}, a0.options().dtype(torch::kFloat64));"),
            std::string::npos)
      << columns;
  EXPECT_NE(columns.find("k1(const double* __restrict__ b1, float* __restrict__ b2)"),
            std::string::npos)
      << columns;
  const auto softmax = cuda_source(
      {"softmax_reciprocal", "x", "torch.softmax(x, dim=-1)", {"[torch.randn(128, 2000)]"}});
  EXPECT_NE(softmax.find("* kf_reciprocal(acc"), std::string::npos) << softmax;
}

// The choice fast_math: the CUDA source defines exp and log as the GPU's approximations after its
// includes and before the prelude, whose sigmoid and softmax exponentials then take them too;
// nothing is defined without it, nor on the CPU backend. Whether the kernels stay within 1e-3: the
// fast_math cases under the `gpu` label (tests/gpu/generator_gpu_test.cpp).
TEST(GeneratedCudaSource, FastMathDefinesExpAndLogAsTheGpusApproximations) {
  const OpCase c{"fast_math_source",
                 "x",
                 "torch.log_softmax(x, dim=-1) + torch.sigmoid(x)",
                 {"[torch.randn(8, 100)]"}};
  generator::CudaChoices fast;
  fast.fast_math = true;
  const auto on = cuda_source(c, fast);
  const auto defines = on.find("#define expf __expf\n#define logf __logf\n");
  ASSERT_NE(defines, std::string::npos) << on;
  EXPECT_LT(on.find("#include"), defines) << on;
  EXPECT_LT(defines, on.find("KF_FN float kf_sigmoid")) << on;
  EXPECT_EQ(cuda_source(c).find("__expf"), std::string::npos);
  EXPECT_EQ(backend_source(c, "cpu", fast).find("__expf"), std::string::npos);
}

// How many partial results a split reduction makes (the choice `partials`): by rule 16384 where
// it reduces rows (a group of threads each), 65536 where it reduces columns (a thread each), else
// what the choice says.
TEST(GeneratedCudaSource, ASplitReductionMakesThePartialResultsItsChoiceSays) {
  const OpCase total{"split_total", "x", "x.sum()", {"[torch.randn(1024, 1024)]"}};
  const auto rule = backend_source(total, "cuda");
  EXPECT_NE(rule.find("torch::empty({16384}, a0.options().dtype(torch::kFloat64))"),
            std::string::npos)
      << rule;
  const auto chosen = backend_source(total, "cuda", {}, false, std::nullopt, 1024);
  EXPECT_NE(chosen.find("torch::empty({1024}, a0.options().dtype(torch::kFloat64))"),
            std::string::npos)
      << chosen;
  const OpCase columns{"split_few_columns", "x", "x.sum(dim=0)", {"[torch.randn(1048576, 4)]"}};
  const auto column_rule = backend_source(columns, "cuda");
  EXPECT_NE(column_rule.find("torch::empty({16384, 4}, a0.options().dtype(torch::kFloat64))"),
            std::string::npos)
      << column_rule;
}

// The tiled loops of the contraction kernels are in the source once, and each contraction kernel
// passes them its loads and epilogue: robust-kbench's resnet_block (24 configs, 70 contraction
// kernels) was 272 KB with the loops written into every kernel, over the evaluator's 256 KB, and
// is 195 KB so. The PTX nvcc makes of the two forms is the same instructions (84 kernels of 14
// KernelBench problems x 6 tilings compared, the docs' "Emitters").
TEST(GeneratedCudaSource, TheTiledLoopsAreWrittenOnceAndEveryContractionKernelRunsThem) {
  const OpCase convolutions{"conv_configs",
                            "x, w",
                            "torch.relu(torch.nn.functional.conv2d(x, w, padding=1))",
                            {"[torch.randn(2, 8, 20, 20), torch.randn(32, 8, 3, 3)]",
                             "[torch.randn(4, 8, 20, 20), torch.randn(32, 8, 3, 3)]",
                             "[torch.randn(2, 8, 40, 40), torch.randn(64, 8, 3, 3)]"}};
  for (bool tf32 : {false, true}) {
    generator::CudaChoices choices;
    choices.tf32 = tf32;
    if (!tf32) {  // tiles of 32, 2 x 2 a thread: by size, outputs this few are not tiled (below)
      choices.tile = 32;
      choices.micro = 2;
    }
    const auto source = cuda_source(convolutions, choices);
    const std::string loops = tf32 ? "kf_contraction_tf32<" : "kf_contraction<";
    EXPECT_EQ(occurrences(source,
                          tf32 ? "KF_FN void kf_contraction_tf32(" : "KF_FN void kf_contraction("),
              1u)
        << source;
    EXPECT_EQ(occurrences(source, "struct kf_contraction_stage {"), 1u);
    // only the loops the kernels run: one of the two kinds
    EXPECT_EQ(occurrences(source,
                          tf32 ? "KF_FN void kf_contraction(" : "KF_FN void kf_contraction_tf32("),
              0u);
    EXPECT_EQ(occurrences(source, generator::kContractionMark), 3u) << source;
    EXPECT_EQ(occurrences(source, "  " + loops), 3u) << source;  // a call in each kernel
    EXPECT_EQ(occurrences(source, "__shared__ float As"), tf32 ? 0u : 1u);
    EXPECT_EQ(occurrences(source, "wmma::mma_sync"), tf32 ? 1u : 0u);
  }
}

// A contraction kernel's threads load each operand side by side where its memory is: a row-major
// A along k and B along n (A @ B), a linear layer's weight along k (x @ w.T), a convolution's input
// along its output positions and its weight along k. Measured on an H200 (BENCHMARKS.md, thirtieth
// step): KernelBench's 12_Gemm_Multiply_LeakyReLU 1.49x, 54_conv_standard_3D 1.87x faster than
// the kernel before, which loaded every A along k and every B along n into unpadded rows.
TEST(GeneratedCudaSource, EachOperandIsLoadedAlongTheDimensionItsMemoryHasSideBySide) {
  generator::CudaChoices choices;
  choices.tile = 32;
  choices.micro = 2;
  // the call's A_K and B_K: "true, false" for A along k, B along n
  const auto call = [&](const OpCase& c) {
    const auto source = cuda_source(c, choices);
    const std::string before = "  kf_contraction<32, 2, 16, ";
    const auto at = source.find(before);
    if (at == std::string::npos) return std::string("no tiled call");
    const auto a_end = source.find(", ", at + before.size());
    const auto b_end = source.find(", ", a_end + 2);
    return source.substr(at + before.size(), b_end - at - before.size());
  };
  EXPECT_EQ(
      call({"mm", "a, b", "torch.matmul(a, b)", {"[torch.randn(96, 80), torch.randn(80, 72)]"}}),
      "true, false");
  EXPECT_EQ(call({"linear",
                  "x, w",
                  "torch.nn.functional.linear(x, w)",
                  {"[torch.randn(96, 80), torch.randn(72, 80)]"}}),
            "true, true");
  EXPECT_EQ(call({"mm_t",
                  "a, b",
                  "torch.matmul(a.t(), b)",
                  {"[torch.randn(80, 96), torch.randn(80, 72)]"}}),
            "false, false");
  EXPECT_EQ(call({"conv",
                  "x, w",
                  "torch.nn.functional.conv2d(x, w, padding=1)",
                  {"[torch.randn(2, 8, 40, 40), torch.randn(64, 8, 3, 3)]"}}),
            "false, true");
}

// By size, a product of few outputs is not tiled: robust-kbench's mnist_linear_relu forward (M 64,
// N 128, K 1600) was 8 tiles of 32 x 32 on a GPU of 132 SMs, 0.21x eager, and is 2.98x untiled
// (H200, BENCHMARKS.md). More outputs, or a tile the choices name, are tiled.
// max_pool3d's graph computes the windows' maxima and their indices; KernelBench's
// 43_Max_Pooling_3D returns the maxima only. What nothing reads is not computed (the indices were
// an arg-max pass over every window in the same kernel); asked for, they are.
TEST(GeneratedCudaSource, AValueNothingReadsIsNotComputed) {
  const auto arg_passes = [](const std::string& source) {
    return occurrences(source, "better<true>(best");
  };
  const std::string x = "[torch.randn(2, 3, 16, 16, 16)]";
  EXPECT_EQ(arg_passes(cuda_source({"pool_values", "x", "F.max_pool3d(x, 3, 2, 1, 3)", {x}})), 0u);
  EXPECT_GE(arg_passes(cuda_source(
                {"pool_indices", "x", "F.max_pool3d(x, 3, 2, 1, 3, return_indices=True)", {x}})),
            1u);
}

// A thread's own walk takes its elements in the row's order, so that an arg reduction's step is
// one unordered comparison (kf_later_better) rather than kf_better's comparisons of indices; the
// pairs of a group's threads are still combined by index (kf_group_arg). The op case
// arg_reductions_ties_nan checks the verdicts.
TEST(GeneratedCudaSource, AThreadsArgWalkComparesInTheRowsOrder) {
  const std::string columns =
      cuda_source({"argmax_columns", "x", "x.argmin(dim=1)", {"[torch.randn(64, 100, 300)]"}});
  EXPECT_GE(occurrences(columns, "kf_later_better<false>(best"), 1u) << columns;
  EXPECT_EQ(occurrences(columns, "kf_better<false>(best"), 0u) << columns;
  EXPECT_GE(occurrences(columns, "kf_group_arg<"), 1u) << columns;
}

// The choice column_launch: a column walk's grid (a sum over the middle dimension, 4800 outputs:
// 75 blocks of 64, its columns split across 4 lanes by rule) launched in slices of two blocks an
// SM, the kernel counting its outputs from the slice's first block; a row's reduction (a warp a
// row) stays one launch. By rule, slices of four blocks an SM, eight loads in flight, where the
// walk is one pass of a sum or a maximum over 1024 elements or more; an argmax's walk and shorter
// ones are one launch.
TEST(GeneratedCudaSource, AColumnWalkLaunchesInSlicesOfTheGrid) {
  const auto by_rule = [](const std::string& name, const std::string& expression,
                          const std::string& shape) {
    return cuda_source({name, "x", expression, {"[torch.randn(" + shape + ")]"}});
  };
  const std::string sum = by_rule("rule_sum", "x.sum(dim=1)", "4, 1024, 8200");
  EXPECT_EQ(occurrences(sum, "int64_t{kf_sms} * 4 : 513;"), 1u) << sum;
  EXPECT_EQ(occurrences(sum, "kf_r + 28 < 1024; kf_r += 32"), 1u) << sum;  // 8 loads, 4 lanes
  const std::string max = by_rule("rule_max", "x.amax(dim=1)", "4, 1024, 8200");
  EXPECT_EQ(occurrences(max, "int64_t{kf_sms} * 4 : 513;"), 1u) << max;
  EXPECT_EQ(occurrences(by_rule("rule_argmax", "x.argmax(dim=1)", "4, 1024, 8200"), "kf_block0"),
            0u);
  EXPECT_EQ(occurrences(by_rule("rule_short", "x.sum(dim=1)", "4, 1000, 8200"), "kf_block0"), 0u);
  EXPECT_EQ(occurrences(by_rule("rule_norm", "x / x.norm(dim=1, keepdim=True)", "4, 1024, 8200"),
                        "kf_block0"),
            0u);
  generator::CudaChoices sliced;
  sliced.column_launch = 2;
  const std::string columns =
      cuda_source({"sum_columns", "x", "x.sum(dim=1)", {"[torch.randn(16, 512, 300)]"}}, sliced);
  EXPECT_EQ(occurrences(columns, ", int64_t kf_block0)"), 1u) << columns;
  EXPECT_EQ(occurrences(columns, "(kf_block0 + blockIdx.x) * 64 + threadIdx.x % 64"), 1u)
      << columns;
  EXPECT_EQ(occurrences(columns, "int64_t{kf_sms} * 2 : 75;"), 1u) << columns;
  EXPECT_EQ(occurrences(columns, "for (int64_t kf_b = 0; kf_b < 75; kf_b += kf_slice)"), 1u)
      << columns;
  generator::CudaChoices one;
  one.column_launch = 0;
  const std::string whole =
      cuda_source({"rule_sum", "x", "x.sum(dim=1)", {"[torch.randn(4, 1024, 8200)]"}}, one);
  EXPECT_EQ(occurrences(whole, "kf_block0"), 0u) << whole;
  const std::string rows =
      cuda_source({"sum_rows", "x", "x.sum(dim=-1)", {"[torch.randn(16, 300, 512)]"}}, sliced);
  EXPECT_EQ(occurrences(rows, "kf_block0"), 0u) << rows;
}

// The choice column_split: a column walk's column shared by lanes a block's threads / lanes apart
// (each a share of the column in its row cache, their results combined through shared memory, a
// value a thread); by rule 4 lanes where the column has 32 elements or more (an RMS norm over 64
// channels, a sum over a middle dimension of 1024), none for a shorter one.
TEST(GeneratedCudaSource, AColumnWalkSplitsItsColumnAcrossLanesABlockApart) {
  const auto rms = [](const std::string& name, const std::string& shape,
                      generator::CudaChoices c = {}) {
    c.column_vectors = false;  // a thread an output (four: the next test)
    return rms_source(name, shape, c);
  };
  const std::string split = rms("rms_64", "2, 64, 40, 52");
  EXPECT_EQ(occurrences(split, "blockIdx.x) * 64 + threadIdx.x % 64;"), 1u) << split;
  EXPECT_EQ(occurrences(split, "const int lane = threadIdx.x / 64;"), 1u) << split;
  EXPECT_EQ(occurrences(split, "kf_group_reduce<4, 64>(s"), 1u) << split;
  EXPECT_EQ(occurrences(split, "__shared__ double kf_shared_d[256];"), 1u) << split;
  EXPECT_EQ(occurrences(split, "float kf_c0[16];"), 1u) << split;
  EXPECT_EQ(occurrences(split, "<<<65, 256, 0, stream>>>"), 1u) << split;
  const std::string short_column = rms("rms_16", "2, 16, 40, 52");
  EXPECT_EQ(occurrences(short_column, "const int lane = threadIdx.x / "), 0u) << short_column;
  EXPECT_EQ(occurrences(short_column, "float kf_c0[16];"), 1u) << short_column;
  const std::string sum =
      cuda_source({"rule_sum", "x", "x.sum(dim=1)", {"[torch.randn(4, 1024, 8200)]"}});
  EXPECT_EQ(occurrences(sum, "const int lane = threadIdx.x / 64;"), 1u) << sum;
  generator::CudaChoices four;
  four.column_split = 4;
  const std::string arg =
      cuda_source({"argmin_split", "x", "x.argmin(dim=1)", {"[torch.randn(64, 100, 300)]"}}, four);
  EXPECT_EQ(occurrences(arg, "kf_group_arg<4, false, 64>(best"), 1u) << arg;
  EXPECT_EQ(occurrences(arg, "for (; live && kf_r < 100; kf_r += 4) {"), 1u) << arg;
  generator::CudaChoices narrow;
  narrow.column_split = 8;
  narrow.block_threads = 128;
  const std::string halved = rms("rms_narrow", "2, 64, 40, 52", narrow);
  EXPECT_EQ(occurrences(halved, "const int lane = threadIdx.x / 32;"), 1u) << halved;
  EXPECT_EQ(occurrences(halved, "kf_group_reduce<4, 32>(s"), 1u) << halved;
  generator::CudaChoices one;
  one.column_split = 1;
  EXPECT_EQ(occurrences(rms("rms_one", "2, 64, 40, 52", one), "const int lane = threadIdx.x / "),
            0u);
}

std::string ptx_text(const std::string& source);

// The choice column_vectors: a column walk whose row cache holds its column (an RMS norm over 64
// channels, 4 lanes of 16 where column_split says 4) takes four neighbouring outputs a thread,
// where the outputs' trailing dimensions (40 x 52) hold a multiple of four: its cache of 4 x 16
// registers filled 16 bytes a load, each output's passes in turn, the output stored 16 bytes a
// store (nvcc's PTX has no other global access), 4160 outputs in 17 blocks of 64 quads. By rule
// more lanes while the four outputs' cache passes 32 registers. Not where the outputs of a plane
// are not a multiple of four, not in contiguous elements (a transposed input), not where no
// lanes fit the cache, nor with the choice off.
TEST(GeneratedCudaSource, AColumnWalkWhoseCacheHoldsItsColumnTakesFourOutputsAThread) {
  generator::CudaChoices four;
  four.column_split = 4;  // chosen, not by rule: not widened
  const std::string quads = rms_source("rms_64_four", "2, 64, 40, 52", four);
  EXPECT_EQ(occurrences(quads,
                        "const int64_t kf_o4 = (static_cast<int64_t>(blockIdx.x) * 64 + "
                        "threadIdx.x % 64) * 4;"),
            1u)
      << quads;
  EXPECT_EQ(occurrences(quads, "const bool live = kf_o4 < 4160;"), 1u) << quads;
  EXPECT_EQ(occurrences(quads, "float kf_c0[64];"), 1u) << quads;
  EXPECT_EQ(occurrences(quads, "kf_row_load4(kf_q0, b0 + ("), 1u) << quads;
  EXPECT_EQ(occurrences(quads, "kf_c0[kf_j * 4 + kf_v] = kf_q0[kf_v];"), 1u) << quads;
  EXPECT_EQ(occurrences(quads, "for (int kf_v = 0; kf_v < 4; ++kf_v) {"), 2u) << quads;
  EXPECT_EQ(occurrences(quads, "kf_c0[kf_j * 4 + kf_v]"), 3u) << quads;
  EXPECT_EQ(occurrences(quads, "kf_row_store4(b2 + ("), 1u) << quads;
  EXPECT_EQ(occurrences(quads, "<<<17, 256, 0, stream>>>"), 1u) << quads;
  const std::string ptx = ptx_text(quads);
  EXPECT_EQ(occurrences(ptx, "ld.global.nc.v4.f32"), 16u) << ptx;
  EXPECT_EQ(occurrences(ptx, "st.global.wb.v4.f32"), 16u) << ptx;
  EXPECT_EQ(occurrences(ptx, "ld.global"), 16u) << ptx;
  EXPECT_EQ(occurrences(ptx, "st.global"), 16u) << ptx;
  for (const auto& [name, shape, y] : std::vector<std::array<std::string, 3>>{
           {"rms_odd_plane", "4, 64, 45, 29", "x"},
           {"rms_transposed", "2, 64, 52, 40", "x.transpose(2, 3)"},
           {"rms_256", "2, 256, 40, 52", "x"}}) {
    const std::string single = rms_source(name, shape, {}, y);
    EXPECT_EQ(occurrences(single, "kf_o4"), 0u) << single;
    EXPECT_EQ(occurrences(single, "const int lane = threadIdx.x / 64;"), 1u) << single;
    EXPECT_EQ(occurrences(single, "kf_c0[kf_j] = b0["), 1u) << single;
  }
  // By rule 8 lanes of 8 (a cache of 32 registers) where 4 would take 64; 128 channels 8 lanes
  // of 16, where 4 lanes' cache would not fit; a column of 256 (above) fits in neither.
  const std::string rule = rms_source("rms_64", "2, 64, 40, 52");
  EXPECT_EQ(occurrences(rule, "threadIdx.x % 32) * 4;"), 1u) << rule;
  EXPECT_EQ(occurrences(rule, "float kf_c0[32];"), 1u) << rule;
  EXPECT_EQ(occurrences(rule, "<<<33, 256, 0, stream>>>"), 1u) << rule;
  const std::string wider = rms_source("rms_128", "2, 128, 40, 52");
  EXPECT_EQ(occurrences(wider, "threadIdx.x % 32) * 4;"), 1u) << wider;
  EXPECT_EQ(occurrences(wider, "float kf_c0[64];"), 1u) << wider;
  EXPECT_EQ(occurrences(rms_source("rms_128_four", "2, 128, 40, 52", four), "kf_o4"), 0u);
  generator::CudaChoices off;
  off.column_vectors = false;
  EXPECT_EQ(occurrences(rms_source("rms_off", "2, 64, 40, 52", off), "kf_o4"), 0u);
}

// A reduction over a small image's windows (a batch norm's statistics over 256 channels of 2 x 14 x
// 14, KernelBench's 9_ResNet18) had a thread an output, as a pool's windows have: one block of
// 256 threads for the whole tensor (0.155 ms a call on an H100, where eager took 5 us a norm).
// Under 4096 outputs it is a warp an output, eight a block, each channel's row read once into
// registers; a pool of many outputs keeps a thread an output.
TEST(GeneratedCudaSource, AWindowReductionOfFewOutputsIsAWarpAnOutput) {
  const std::string norm = cuda_source({"bn_small_image",
                                        "x",
                                        "torch.relu(F.batch_norm(x, None, None, training=True))",
                                        {"[torch.randn(2, 256, 14, 14)]"}});
  EXPECT_EQ(occurrences(norm, "const int lane = threadIdx.x % 32;"), 1u) << norm;
  EXPECT_EQ(occurrences(norm, "threadIdx.x % 1;"), 0u) << norm;
  EXPECT_EQ(occurrences(norm, "<<<32, 256, 0, stream>>>"), 1u) << norm;
  EXPECT_GE(occurrences(ptx_text(norm), ".entry"), 1u);  // nvcc builds it
  const std::string pool =
      cuda_source({"pool_many", "x", "F.avg_pool2d(x, 7)", {"[torch.randn(8, 64, 56, 56)]"}});
  EXPECT_EQ(occurrences(pool, "threadIdx.x % 32;"), 0u) << pool;
}

// Batch norm's statistics over few channels are split into partial sums; the mean and the
// variance were two such passes over the whole tensor (KernelBench's 52_Conv2d_Activation_BatchNorm
// computed its activation in both, 0.54x of eager). Now one pass sums x - p and its square (p the
// mean of the first 512 elements of each channel, a kernel of its own), both in one loop; then the
// partials are combined and the output written: four kernels where there were five. Rows that are
// not split keep the two-pass variance in one kernel.
TEST(GeneratedCudaSource, SplitStatisticsAreOnePass) {
  const auto kernels = [](const std::string& source) { return occurrences(source, "__global__"); };
  const std::string norm = cuda_source({"bn_split",
                                        "x",
                                        "F.batch_norm(torch.tanh(x), None, None, training=True)",
                                        {"[torch.randn(16, 3, 64, 64)]"}});
  EXPECT_EQ(kernels(norm), 4u) << norm;
  EXPECT_EQ(kernels(cuda_source(
                {"ln_rows", "x", "F.layer_norm(x, (2000,))", {"[torch.randn(128, 2000)]"}})),
            1u);
  // Only reductions of the same elements join an earlier kernel: two products of other factors
  // stay two kernels, each tiled (of one shape: one function, launched for each).
  generator::CudaChoices tiled;
  tiled.tile = 32;
  tiled.micro = 2;
  const std::string products =
      cuda_source({"two_products",
                   "a, b, c",
                   "(a @ b, (a * 2).sum(), a @ c)",
                   {"[torch.randn(256, 64), torch.randn(64, 256), torch.randn(64, 256)]"}},
                  tiled);
  EXPECT_EQ(occurrences(products, generator::kContractionMark), 1u) << products;
  EXPECT_EQ(occurrences(products, "k0<<<dim3(8, 8, 1), 256, 0, stream>>>(b0, b1, b3);"), 1u)
      << products;
  EXPECT_EQ(occurrences(products, "k0<<<dim3(8, 8, 1), 256, 0, stream>>>(b0, b2, b6);"), 1u)
      << products;
}

// A grouped convolution whose groups have 16 output channels or more is a batch of products, one
// a group (its output channel split into the group and the channel within it: lower_convolution's
// grouped_sum), tiled by size like any other; its sum is the function's output in place, with no
// copy. With the output channel one dimension that both factors read, it was a sum a group of
// threads an output (KernelBench's 25_ShuffleNetUnit: its 1 x 1 convolutions of 3 groups, 0.09x
// of eager). A depthwise convolution (a channel a group) keeps its window kernel.
TEST(GeneratedCudaSource, GroupedConvolutionsAreBatchesOfProducts) {
  const std::string grouped =
      cuda_source({"grouped_1x1",
                   "x, w",
                   "F.conv2d(x, w, groups=3)",
                   {"[torch.randn(4, 48, 32, 32), torch.randn(96, 16, 1, 1)]"}});
  EXPECT_EQ(occurrences(grouped, std::string(generator::kContractionMark) +
                                     ": M = 4096, N = 32, K = 16, batch 3;"),
            1u)
      << grouped;
  EXPECT_EQ(occurrences(grouped, "k0<<<dim3(128, 1, 3), "), 1u) << grouped;
  EXPECT_EQ(occurrences(grouped, "__global__"), 1u) << grouped;
  const std::string depthwise =
      cuda_source({"depthwise_3x3",
                   "x, w",
                   "F.conv2d(x, w, groups=48, padding=1)",
                   {"[torch.randn(4, 48, 32, 32), torch.randn(48, 1, 3, 3)]"}});
  EXPECT_EQ(occurrences(depthwise, generator::kContractionMark), 0u) << depthwise;
}

// A long line's repeated index arithmetic is computed once under a name (generator/named_values.hpp):
// the shifted windows' norm (the op case, whose values the op table checks) repeats its views'
// quotients and remainders; KernelBench's 29_SwinMLP was 359,948 bytes without the names, over
// the evaluator's 262,144, and is 200,990 with them.
TEST(GeneratedCudaSource, RepeatedIndexArithmeticIsNamedOnce) {
  const std::string windows = cuda_source(op_cases_named({"shifted_windows"}).front());
  EXPECT_GE(occurrences(windows, "const auto kf_ix"), 10u) << windows;
  size_t longest = 0;
  for (size_t from = 0, end; from < windows.size(); from = end + 1) {
    end = std::min(windows.find('\n', from), windows.size());
    longest = std::max(longest, end - from);
  }
  EXPECT_LT(longest, 2 * generator::kNamedValuesLine) << windows;
}

// Two matrix products over one iteration space (a gated FFN: silu(x @ w1) * (x @ w3)) are two
// tiled kernels, the second's epilogue reading the first's result; they were one untiled kernel of
// two sums (robust-kbench's llama_ffw own kernel: 0.07x of eager).
TEST(GeneratedCudaSource, TwoProductsOfOneSpaceAreTwoTiledKernels) {
  const std::string ffw =
      cuda_source({"gated_ffn",
                   "x, w1, w3",
                   "F.silu(x @ w1) * (x @ w3)",
                   {"[torch.randn(512, 64), torch.randn(64, 256), torch.randn(64, 256)]"}});
  EXPECT_EQ(occurrences(ffw, generator::kContractionMark), 2u) << ffw;
  EXPECT_EQ(occurrences(ffw, "__global__"), 2u) << ffw;
}

// Kernels of one shape (the op case repeated_blocks: a product and its ReLU, three times) are
// written once and launched for each, on either backend: the second and third layers' products
// are one function, as they would be across a network's repeated blocks or an RNN's steps
// (KernelBench's level-3 39_GRU: 1153 kernels, 143 written). The op table checks the values.
TEST(GeneratedCudaSource, KernelsOfOneShapeAreWrittenOnceAndCalledForEach) {
  const auto& cases = op_cases();
  const auto blocks = std::find_if(cases.begin(), cases.end(),
                                   [](const OpCase& c) { return c.name == "repeated_blocks"; });
  ASSERT_NE(blocks, cases.end());
  // two configs (shape sets), each with 4 kernels of 3 shapes
  const std::string cpu = backend_source(*blocks, "cpu");
  EXPECT_EQ(occurrences(cpu, "static void k"), 6u) << cpu;
  EXPECT_EQ(occurrences(cpu, "  k1(b2, b4, b5);\n  k1(b3, b5, b6);\n"), 2u) << cpu;
  const std::string cuda = backend_source(*blocks, "cuda");
  EXPECT_EQ(occurrences(cuda, "__global__"), 6u) << cuda;
  EXPECT_EQ(occurrences(cuda, "k1<<<"), 4u) << cuda;
  EXPECT_EQ(occurrences(cuda, ">>>(b3, b5, b6);"), 2u) << cuda;
}

// Each config's dispatch in `forward` checks an argument in one short statement, kf_is (its sizes,
// then its type where the config names one): as `.dim() == r && .size(d) == n && ...` terms a
// network's hundreds of parameters took 110 bytes each (KernelBench's level-3 10_ResNet101, 627
// arguments: 82 KB of a 308 KB source, over the 256 KB an experiment accepts by default), and a
// function `matches` of the config's repeated forward's signature (12 KB there). The op table's
// cases of two shape sets check that each config's arguments choose its kernels.
TEST(GeneratedCudaSource, EachArgumentIsCheckedInOneShortStatement) {
  const auto& cases = op_cases();
  const auto one_hot = std::find_if(cases.begin(), cases.end(),
                                    [](const OpCase& c) { return c.name == "scatter_one_hot"; });
  ASSERT_NE(one_hot, cases.end());
  for (const std::string backend : {"cpu", "cuda"}) {
    const std::string source = backend_source(*one_hot, backend);
    EXPECT_EQ(occurrences(source, "static inline bool kf_is("), 2u) << source;
    for (const char* check :
         {"kf_is(a0, {6, 5}, torch::kFloat32)", "kf_is(a1, {6, 1}, torch::kInt64)",
          "kf_is(a0, {3, 4, 7}, torch::kFloat32)", "kf_is(a1, {3, 1, 7}, torch::kInt64)"})
      EXPECT_EQ(occurrences(source, "    if (!" + std::string(check) + ") break;\n"), 1u)
          << check << "\n"
          << source;
    EXPECT_EQ(occurrences(source, "a0.size("), 0u) << source;
    EXPECT_EQ(occurrences(source, "a1.dim()"), 0u) << source;
    // in forward, not a function whose signature repeats forward's
    EXPECT_EQ(occurrences(source, "bool matches("), 0u) << source;
    for (const char* config : {"cfg0", "cfg1"})
      EXPECT_EQ(occurrences(source, "    return " + std::string(config) +
                                        "::run(a0, a1);\n  } while (false);\n"),
                1u)
          << source;
  }
}

// An argument that is not a tensor or is None in some configs (robust-kbench's resnet_block passes
// its downsampling weights or None; KernelBench's problems pass ints and floats) leaves a config's
// block by the negation of its check: `a1.has_value()` where the config had None, `a2 != 2`,
// `!a3`; a tensor where another config had None by `!(a1.has_value() && kf_is(...))`. Each config
// evaluated on the CPU takes its own kernels (a block that let another config's arguments through,
// or stopped its own, would fail the verdict).
TEST(GeneratedCpuDispatch, ScalarAndNoneArgumentsLeaveTheirConfigsBlockByTheirNegation) {
  const OpCase c{"scalars_and_none",
                 "x, b, k, scale, flag",
                 "(x * k * scale + (b if b is not None else 0)) if flag else x - k",
                 {"[torch.randn(4, 5), torch.randn(5), 2, 0.5, True]",
                  "[torch.randn(4, 5), None, 3, 0.25, False]"}};
  const auto root = std::filesystem::temp_directory_path() / "kforge_generator_cpu_cases";
  EXPECT_EQ(check_generated(write_op_task(c, root), evaluation::Backend::cpu), "");
  const std::string source = backend_source(c, "cpu");
  for (const char* leave :
       {"!(a1.has_value() && kf_is(a1.value(), {5}, torch::kFloat32))", "a1.has_value()", "a2 != 2",
        "a2 != 3", "a3 != 0.5", "a3 != 0.25", "!a4", "a4"})
    EXPECT_EQ(occurrences(source, "    if (" + std::string(leave) + ") break;\n"), 1u)
        << leave << "\n"
        << source;
  EXPECT_EQ(occurrences(source, "!(!"), 0u) << source;
}

// A short window one thread walks (KernelBench's 46_Average_Pooling_3D: 27 elements) is unrolled
// whole, its offsets constants, and summed in float; on an H200 the kernel was bound by its
// arithmetic (84 % SM, 9 % DRAM, 0.37x of eager): a double conversion and add per element, and the
// window's divisions at run time. A long row keeps its double sum.
TEST(GeneratedCudaSource, AShortWindowIsUnrolledAndSummedInFloat) {
  const std::string pool = cuda_source(
      {"short_window", "x", "F.avg_pool3d(x, 3, 2, 1)", {"[torch.randn(2, 3, 9, 10, 11)]"}});
  EXPECT_EQ(occurrences(pool, "for (int r = 0; r < 27; ++r)"), 1u) << pool;
  EXPECT_EQ(occurrences(pool, "float s1 = 0.0f;"), 1u) << pool;
  EXPECT_EQ(occurrences(pool, "\n  double s"), 0u) << pool;
  const std::string row = cuda_source({"long_row", "x", "x.sum(-1)", {"[torch.randn(128, 2000)]"}});
  EXPECT_EQ(occurrences(row, "\n  double s"), 1u) << row;
}

// A longer window (KernelBench's 45_Average_Pooling_2D: 11 x 11) is also a thread's, walked in
// two loops: over the window's rows, and unrolled along each row, so that its offsets are the
// counters' multiples and constants (no division of r at run time), summed in float as eager's
// pooling sums. On an H200 a warp an output (the size rule before) ran at 0.44x of eager, a thread
// an output dividing r 0.84x. As many elements read as one run of memory (a row) stay a warp's;
// so do fewer than 4096 windows (a warp an output fills more of the GPU).
TEST(GeneratedCudaSource, ALongWindowIsOneThreadsTwoLoops) {
  const std::string pool =
      cuda_source({"long_window", "x", "F.avg_pool2d(x, 11)", {"[torch.randn(8, 16, 66, 88)]"}});
  EXPECT_EQ(occurrences(pool, "threadIdx.x / 1;"), 1u) << pool;
  EXPECT_EQ(occurrences(pool, "for (int kf_ri = 0; kf_ri < 11; ++kf_ri)"), 1u) << pool;
  EXPECT_EQ(occurrences(pool, "(kf_ro * 88)"), 1u) << pool;
  EXPECT_EQ(occurrences(pool, "r / "), 0u) << pool;
  EXPECT_EQ(occurrences(pool, "float s1 = 0.0f;"), 1u) << pool;
  const std::string row =
      cuda_source({"long_run", "x", "x.sum((1, 2))", {"[torch.randn(64, 11, 11)]"}});
  EXPECT_EQ(occurrences(row, "threadIdx.x / 32;"), 1u) << row;
  EXPECT_EQ(occurrences(row, "kf_ri"), 0u) << row;
  const std::string few =
      cuda_source({"long_window_few", "x", "F.avg_pool2d(x, 11)", {"[torch.randn(2, 3, 33, 44)]"}});
  EXPECT_EQ(occurrences(few, "threadIdx.x / 32;"), 1u) << few;
}

// KernelBench's 11_4D_tensor_matrix_multiplication (einsum "bijl,lk->bijk") is a bmm whose result,
// in the output's shape, is the output: returned as a view of it, not copied by a kernel (the copy
// of 805M elements made the library kernel 0.87x of eager on an H200). An output whose elements
// are the result's in another order is still copied, and two outputs never share one result.
TEST(GeneratedCudaSource, AnOutputThatIsALibraryResultReshapedIsAViewOfIt) {
  const std::string x = "[torch.randn(2, 3, 4, 5), torch.randn(5, 6)]";
  const auto kernels = [](const std::string& source) { return occurrences(source, "__global__"); };
  const std::string view =
      cuda_source({"einsum_4d", "a, b", "torch.einsum('bijl,lk->bijk', a, b)", {x}}, {}, true);
  EXPECT_EQ(kernels(view), 0u) << view;
  EXPECT_EQ(occurrences(view, ".view(std::vector<int64_t>{2, 3, 4, 6})"), 1u) << view;
  EXPECT_EQ(kernels(cuda_source({"einsum_4d_t", "a, b", "torch.einsum('bijl,lk->bikj', a, b)", {x}},
                                {}, true)),
            1u);
  EXPECT_EQ(
      kernels(cuda_source({"einsum_4d_twice",
                           "a, b",
                           "(lambda y: (y, y.flatten(0, 1)))(torch.einsum('bijl,lk->bijk', a, b))",
                           {x}},
                          {}, true)),
      1u);
}

// Attention as torch 2.x's math path records it (KernelBench's 97_ScaledDotProductAttention):
// query and key each times the root of the scale, the key transposed. With library calls the
// products read the inputs themselves (the key as a transposed view, which cuBLAS reads in place)
// and the softmax takes the scale as it loads: one kernel, where two passes wrote a scaled query
// and a transposed scaled key first (0.88x of eager on an H200). A product of two results computed
// the same way once is computed once.
TEST(GeneratedCudaSource, AttentionsScaledOperandsAreReadInPlaceByTheLibrary) {
  const std::string qkv =
      "[torch.randn(2, 3, 5, 8), torch.randn(2, 3, 6, 8), torch.randn(2, 3, 6, 4)]";
  const std::string attention = cuda_source(
      {"attention_math",
       "q, k, v",
       "torch.matmul(torch.softmax(torch.matmul(q * 0.42, k.transpose(-2, -1) * 0.42), -1), v)",
       {qkv}},
      {}, true);
  EXPECT_EQ(occurrences(attention, "__global__"), 1u) << attention;
  EXPECT_EQ(occurrences(attention, "at::bmm(t0.expand("), 1u) << attention;
  EXPECT_EQ(occurrences(attention, "t1.transpose(-2, -1)"), 1u) << attention;
  EXPECT_EQ(occurrences(attention, "0.1764"), 1u) << attention;  // 0.42 squared, in the softmax
  const std::string twice = cuda_source({"scaled_twice",
                                         "x, w",
                                         "((x / 3) @ w, (x * 1.5) @ w)",
                                         {"[torch.randn(4, 9), torch.randn(9, 3)]"}},
                                        {}, true);
  EXPECT_EQ(occurrences(twice, "at::mm("), 1u) << twice;
}

// The choice index32: a reduction's and a scan's indices in 32 bits, where every offset fits.
TEST(GeneratedCudaSource, Index32IndexesReductionsAndScansInInt) {
  const OpCase c{
      "index32", "x", "(x.sum(dim=1), torch.cumsum(x, dim=1))", {"[torch.randn(64, 100)]"}};
  const std::string wide = cuda_source(c);
  EXPECT_EQ(occurrences(wide, "const int o ="), 0u) << wide;
  generator::CudaChoices narrow;
  narrow.index32 = true;
  const std::string source = cuda_source(c, narrow);
  EXPECT_EQ(occurrences(source, "const int o ="), 2u) << source;  // the sum's kernel, the scan's
  EXPECT_EQ(occurrences(source, "const int64_t r ="), 0u) << source;
  EXPECT_GE(occurrences(wide, "const int64_t r ="), 1u) << wide;
}

// The choice unroll: how many elements of a row a reduction's thread loads before it combines
// them. By rule four where a thread walks a column (KernelBench's 47_Sum_reduction_over_a_dimension
// on an H200: 2.31 ms with four, 2.56 ms with eight, 2.58 ms with sixteen, BENCHMARKS.md), eight
// where a warp or more shares the row; the tail after the unrolled loop is walked one at a time.
TEST(GeneratedCudaSource, UnrollSetsTheLoadsAThreadHasInFlight) {
  const OpCase column{"unroll_column", "x", "x.sum(dim=1)", {"[torch.randn(16, 100, 1000)]"}};
  const OpCase row{"unroll_row", "x", "x.amax(dim=-1)", {"[torch.randn(1024, 5000)]"}};
  EXPECT_EQ(occurrences(cuda_source(column), "kf_u0[4];"), 1u) << cuda_source(column);
  EXPECT_EQ(occurrences(cuda_source(row), "kf_u0[8];"), 1u) << cuda_source(row);
  generator::CudaChoices sixteen;
  sixteen.unroll = 16;
  sixteen.column_split = 1;  // a thread a column: its walk r = 0, 1, ...
  const std::string wide = cuda_source(column, sixteen);
  EXPECT_EQ(occurrences(wide, "kf_u0[16];"), 1u) << wide;
  EXPECT_EQ(occurrences(wide, "kf_r + 15 < 100; kf_r += 16"), 1u) << wide;
  EXPECT_EQ(occurrences(wide, "kf_r < 100; kf_r += 1)"), 1u) << wide;  // the tail of 4
  EXPECT_EQ(occurrences(cuda_source(row, sixteen), "kf_u0[16];"), 1u);
  generator::CudaChoices two;
  two.unroll = 2;
  EXPECT_EQ(occurrences(cuda_source(row, two), "kf_u0[2];"), 1u);
}

// A load that only a condition's pick evaluates stays behind its condition in a full block's
// loads ahead of the compute: a cat of zeros and a scan of all but the last column (as
// KernelBench's 92_cumsum_exclusive wrote it before its cumsum became an exclusive scan; zeros
// are no cumprod's identity, so this one stays a cat) reads the scan at offset -1 for the first
// element, which the select never picks; loaded ahead, it read before the 4 GiB buffer's start
// and the H200 reported an illegal address on the full-size problem. A padded tensor's border
// reads likewise. A load under a condition whose offset stays inside its buffer (where's other
// branch) is still read ahead. (Enough elements for four a thread.)
TEST(GeneratedCudaSource, ALoadUnderAConditionIsNotReadAheadOfIt) {
  const OpCase exclusive{
      "zeros_before_cumprod",
      "x",
      "torch.cat((torch.zeros_like(x[:, :1]), torch.cumprod(x[:, :-1], dim=1)), dim=1)",
      {"[torch.randn(512, 1024)]"}};
  const OpCase padded{
      "padded", "x", "torch.nn.functional.pad(x, (1, 1)) * 2", {"[torch.randn(512, 1000)]"}};
  for (const auto* c : {&exclusive, &padded}) {
    const std::string source = cuda_source(*c);
    EXPECT_GE(occurrences(source, "? 0.0f : b1[((-1) + ") + occurrences(source, "? b0[((-1) + "),
              2u)
        << source;  // both in the full block and in the last one, behind the condition
    std::istringstream lines(source);
    for (std::string line; std::getline(lines, line);) {
      if (line.find("kf_l") != std::string::npos && line.find("] = b") != std::string::npos) {
        EXPECT_EQ(line.find("(-"), std::string::npos) << line << "\n" << source;
      }
    }
  }
  const std::string where = cuda_source(
      {"where_inside", "x, y", "torch.where(x > 0, x, y)", {"[torch.randn(512, 1000)] * 2"}});
  EXPECT_EQ(occurrences(where, "float kf_l1[4];"), 1u) << where;
}

/// nvcc's PTX of a generated source's kernels (its first config's; compiled without LibTorch,
/// which the kernels do not use), or nothing when nvcc fails. Each test process has its own
/// folder: under `ctest -j` the tests that read PTX run at once, and one read the other's.
std::string ptx_text(const std::string& source) {
  // the prelude's device functions, without the host's check of the arguments (kf_is, just
  // before the configs' namespaces: it needs LibTorch's tensor)
  std::string kernels =
      source.substr(0, std::min(source.find("namespace cfg0 {"),
                                source.find("// whether a tensor argument has a config's sizes")));
  for (const char* include : {"#include <torch/extension.h>", "#include <ATen/cuda/CUDAContext.h>"})
    kernels.erase(kernels.find(include), std::string(include).size());
  const size_t body = source.find("namespace cfg0 {") + 16;
  // The kernels end where the config's host function begins: `run`.
  kernels += source.substr(body, std::min(source.find("\ntorch::Tensor run(", body),
                                          source.find("\nstd::vector<torch::Tensor> run(", body)) -
                                     body);
  const auto dir = std::filesystem::temp_directory_path() /
                   ("kforge_generator_ptx_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "kernels.cu") << kernels;
  evaluation::SpawnOptions o;
  o.argv = {build::nvcc,
            "-arch=sm_90",
            "-O3",
            "-ptx",
            "-w",
            "-o",
            (dir / "kernels.ptx").string(),
            (dir / "kernels.cu").string()};
  // nvcc names its intermediate files in TMPDIR after its process id, the same in every PID
  // namespace (run's default), so each compile has a TMPDIR of its own, as the evaluator's
  // compiler gives it (evaluation/compiler.cpp). Without it CI once counted 21 loads in a kernel
  // of 8 (4fb17bf, two tests at a time); 12 runs four at a time did not repeat it here.
  o.set_env = {{"TMPDIR", dir.string()}};
  const auto r = evaluation::run(o, std::chrono::minutes(2));
  EXPECT_TRUE(r.ok()) << r.describe() << "\n" << r.output;
  std::string ptx;
  if (r.ok()) {
    std::ifstream in(dir / "kernels.ptx");
    ptx.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  std::filesystem::remove_all(dir);
  return ptx;
}

/// The global loads in nvcc's PTX of a generated source's kernels, or -1 when nvcc fails.
int ptx_loads(const std::string& source) {
  const std::string ptx = ptx_text(source);
  return ptx.empty() ? -1 : static_cast<int>(occurrences(ptx, "ld.global"));
}

// The choice interior: an output whose padded window lies inside its input (all but the
// border's) walks it without a check an element, under one check of the window's extent free of
// r; the border's outputs take the checked walk. A window with no checks (no padding) has one walk;
// off (the default until a GPU measures it), every output takes the checked walk.
TEST(GeneratedCudaSource, AWindowInsideItsInputIsWalkedWithoutItsChecks) {
  const OpCase padded{"interior_2d",
                      "x",
                      "F.max_pool2d(x, 4, stride=1, padding=1)",
                      {"[torch.randn(2, 3, 11, 13)]"}};
  generator::CudaChoices on;
  on.interior = true;
  const std::string source = cuda_source(padded, on);
  ASSERT_EQ(occurrences(source, "} else if (live) {"), 1u) << source;
  const size_t from = source.find("if (live && ("), to = source.find("} else if (live) {");
  ASSERT_LT(from, to) << source;
  const std::string inside = source.substr(from, to - from);
  // the rows' and the columns' extents, r's terms at their greatest (3) for the upper bounds
  EXPECT_EQ(occurrences(inside, " + 3 < int64_t("), 2u) << inside;
  EXPECT_EQ(occurrences(inside.substr(inside.find("for (int r")), " ? "), 0u) << inside;
  EXPECT_GE(occurrences(source.substr(to), " ? "), 1u) << source;  // the border's checks
  EXPECT_EQ(occurrences(cuda_source(padded), "else if (live)"), 0u);
  // four outputs a thread: one check for all of them (kf_j's term at kf_c * 4, and 3 more for
  // the upper bounds), the loop over the outputs twice, the first without a select
  generator::CudaChoices windows = on;
  windows.window = 4;
  const std::string four = cuda_source(padded, windows);
  ASSERT_EQ(occurrences(four, "  } else {\n#pragma unroll\n  for (int kf_v"), 1u) << four;
  EXPECT_EQ(occurrences(four, "kf_c * 4) + 6 < int64_t(13))"), 1u) << four;  // 3 + r's 3
  const size_t walk = four.find("  if ((static_cast"), checked = four.find("  } else {\n#pragma");
  ASSERT_LT(walk, checked) << four;
  EXPECT_EQ(occurrences(four.substr(walk, checked - walk), "kf_select("), 0u) << four;
  EXPECT_GE(occurrences(four.substr(checked), "kf_select("), 1u) << four;
  const OpCase unpadded{
      "interior_none", "x", "F.max_pool2d(x, 2)", {"[torch.randn(2, 3, 12, 12)]"}};
  EXPECT_EQ(occurrences(cuda_source(unpadded, on), "else if (live)"), 0u);
}

// KernelBench's 41_Max_Pooling_1D at a smaller length: windows of 8 elements, 3 apart, padded by
// 4, one a position. A thread an output loads its 8 elements, each behind its border check; eight
// neighbouring outputs of one thread (the choice `window`) read 8 + 7 * 3 = 29 elements at the
// thread's part (kf_c * 8 + kf_q * 1000, a multiple of 4) plus -4 to 24, which it loads as the 8
// aligned groups of four that hold them, 16 bytes a load (`window_vectors`); without them, or
// where the thread's part is not a multiple of 4 (rows of 1001), nvcc loads the 29 once each
// (PTX counted here, without a GPU; the `gpu` label checks the values): every load issued
// whatever its border check says, at a clamped offset written as the thread's part plus a
// constant. By rule a thread an output (the GPU measured the choice slower on most problems:
// BENCHMARKS.md).
TEST(GeneratedCudaSource, NeighbouringWindowsLoadWhatTheyShareOnce) {
  if (std::string(build::nvcc).empty()) GTEST_SKIP() << "no nvcc";
  const OpCase pool{"dilated_pool",
                    "x",
                    "F.max_pool1d(x, 8, stride=1, padding=4, dilation=3)",
                    {"[torch.randn(2, 4, 1000)]"}};
  generator::CudaChoices one, eight, scalar, interior;
  one.window = 1;
  eight.window = 8;
  scalar.window = 8;
  scalar.window_vectors = false;
  interior.interior = true;
  const std::string single = cuda_source(pool, one), shared = cuda_source(pool, eight);
  EXPECT_EQ(ptx_loads(single), 8) << single;
  const std::string vector_ptx = ptx_text(shared);
  EXPECT_EQ(occurrences(vector_ptx, "ld.global"), 8u) << shared;
  EXPECT_EQ(occurrences(vector_ptx, "ld.global.nc.v4.f32"), 8u) << shared;
  EXPECT_EQ(occurrences(vector_ptx, ".local"), 0u) << vector_ptx;  // the registers stay registers
  EXPECT_EQ(occurrences(shared, "kf_load4(kf_w0 + 28, b0, (kf_c * 8 + (kf_q * 1000)) + 24, 8000)"),
            1u)
      << shared;
  // the first group starts 4 before the thread's part, its slot 4 past it
  EXPECT_EQ(occurrences(shared, "kf_load4(kf_w0 + 0, b0, (kf_c * 8 + (kf_q * 1000)) - 4, 8000)"),
            1u)
      << shared;
  EXPECT_EQ(occurrences(shared, ": 0 + static_cast<int>(x + 4)"), 1u) << shared;
  // an input tensor not 16-byte aligned is read from an aligned copy
  EXPECT_EQ(occurrences(shared, "reinterpret_cast<uintptr_t>(b0) % 16 != 0"), 1u) << shared;
  EXPECT_EQ(ptx_loads(cuda_source(pool, scalar)), 29);
  const OpCase odd{"dilated_pool_odd",
                   "x",
                   "F.max_pool1d(x, 8, stride=1, padding=4, dilation=3)",
                   {"[torch.randn(2, 4, 1001)]"}};
  const std::string unaligned = cuda_source(odd, eight);
  EXPECT_EQ(occurrences(unaligned, "kf_load4(kf_w"), 0u) << unaligned;
  EXPECT_EQ(ptx_loads(unaligned), 29) << unaligned;
  EXPECT_EQ(occurrences(shared, "kf_v < 8"), 1u) << shared;
  // by rule 4 where every load along the row is a vector load, else a thread an output
  const std::string by_rule = cuda_source(pool);
  EXPECT_EQ(occurrences(by_rule, "kf_v < 4"), 1u) << by_rule;
  EXPECT_EQ(occurrences(by_rule, "kf_load4(kf_w0 + "), 7u) << by_rule;  // elements -4 to 23
  EXPECT_EQ(cuda_source(odd), cuda_source(odd, one));
  EXPECT_EQ(occurrences(cuda_source(odd), "kf_v"), 0u);
  // the choice interior: the interior walk's 8 and the border's 8
  EXPECT_EQ(ptx_loads(cuda_source(pool, interior)), 16);
  // the choice window_stores: each thread's 8 outputs into shared memory 9 apart (distinct
  // banks), then the warp's 256 stored 32 consecutive ones a store; no thread returns early
  generator::CudaChoices stores = eight;
  stores.window_stores = true;
  const std::string together = cuda_source(pool, stores);
  EXPECT_EQ(occurrences(together, "kf_st3[threadIdx.x * 9 + kf_v] = acc1;"), 1u) << together;
  EXPECT_EQ(occurrences(together, "kf_st3[(threadIdx.x & ~31) * 9 + kf_m + kf_m / 8]"), 1u)
      << together;
  EXPECT_EQ(occurrences(together, "if (kf_q >= "), 0u) << together;
  const std::string stored_ptx = ptx_text(together);
  EXPECT_EQ(occurrences(stored_ptx, "st.shared"), 8u) << stored_ptx;
  EXPECT_EQ(occurrences(stored_ptx, "st.global"), 8u) << stored_ptx;
  // 1024 threads keep 36 KiB of one output; two outputs (72 KiB) would pass the 48 KiB a block
  // may declare, so each thread stores its own
  generator::CudaChoices wide_block = stores;
  wide_block.block_threads = 1024;
  const std::string one_output = cuda_source(pool, wide_block);
  EXPECT_EQ(occurrences(one_output, "__shared__ float kf_st3[9216];"), 1u) << one_output;
  const OpCase two{"dilated_pool_twice",
                   "x",
                   "(lambda p: (p, p * 2))(F.max_pool1d(x, 8, stride=1, padding=4, dilation=3))",
                   {"[torch.randn(2, 4, 1000)]"}};
  const std::string two_outputs = cuda_source(two, wide_block);
  EXPECT_EQ(occurrences(two_outputs, "kf_st"), 0u) << two_outputs;
  EXPECT_EQ(occurrences(two_outputs, "kf_v < 8"), 1u) << two_outputs;
  wide_block.block_threads = 256;
  const std::string small_block = cuda_source(two, wide_block);
  EXPECT_EQ(occurrences(small_block, "__shared__ float kf_st"), 2u) << small_block;
}

// The choice window_rows: KernelBench's 42_Max_Pooling_2D at a smaller size (4 x 4 windows,
// stride 1, padded by 1; 63 x 63 outputs of 64 x 64 planes). Four outputs a row a thread read 3
// groups of four in each of their windows' 4 input rows: 12 loads of 16 bytes for 4 outputs. Four
// rows of them read the 7 input rows their windows cover once, 21 loads for 16 outputs, each a
// constant register once the loops are unrolled (PTX counted here, without a GPU; the `gpu` label
// checks the values); the last group of a plane (rows 60 to 63) computes row 63 and stores it
// not. By rule 2 rows where the windows check their rows' borders (padding), none for unpadded
// windows; rows ask for window outputs: by rule there is one a thread where the rows are not
// 16-byte aligned, and rows change nothing.
TEST(GeneratedCudaSource, RowsOfWindowOutputsLoadTheInputRowsTheyShareOnce) {
  if (std::string(build::nvcc).empty()) GTEST_SKIP() << "no nvcc";
  const OpCase pool{
      "rows_pool", "x", "F.max_pool2d(x, 4, stride=1, padding=1)", {"[torch.randn(2, 4, 64, 64)]"}};
  // (without a ring of input rows, which the rule takes for this pool: RingSteps... below)
  generator::CudaChoices one, four, stores, no_ring;
  no_ring.window_ring = 0;
  one.window_ring = four.window_ring = 0;
  one.window = 4;
  one.window_rows = 1;
  four.window = 4;
  four.window_rows = 4;
  const std::string single = cuda_source(pool, one), rows = cuda_source(pool, four);
  EXPECT_EQ(occurrences(ptx_text(single), "ld.global.nc.v4.f32"), 12u) << single;
  const std::string rows_ptx = ptx_text(rows);
  EXPECT_EQ(occurrences(rows_ptx, "ld.global"), 21u) << rows;
  EXPECT_EQ(occurrences(rows_ptx, "ld.global.nc.v4.f32"), 21u) << rows;
  EXPECT_EQ(occurrences(rows_ptx, ".local"), 0u) << rows_ptx;  // the registers stay registers
  EXPECT_EQ(occurrences(rows_ptx, "st.global"), 16u) << rows_ptx;
  EXPECT_EQ(occurrences(rows, "const int64_t kf_h = kf_rg * 4 + kf_rw;"), 1u) << rows;
  EXPECT_EQ(occurrences(rows, "const bool live = kf_j < 63 && kf_h < 63;"), 1u) << rows;
  // the thread's part: 4 outputs of a row, 4 rows of 64 elements, a plane of 4096
  EXPECT_EQ(occurrences(rows,
                        "kf_load4(kf_w0 + 80, b0, (kf_c * 4 + kf_rg * 256 + (kf_z * "
                        "4096)) + 324, 32768);"),
            1u)
      << rows;
  // 16 threads a row of 63 outputs, 16 groups of the 63 rows, 2 x 4 planes: 2048 threads
  EXPECT_EQ(occurrences(rows, "<<<8, 256, 0, stream>>>"), 1u) << rows;
  // neither with the warp's stores nor with the interior walk; nothing without window outputs
  stores = four;
  stores.window_stores = true;
  stores.interior = true;
  const std::string plain = cuda_source(pool, stores);
  EXPECT_EQ(occurrences(plain, "kf_st"), 0u) << plain;
  EXPECT_EQ(occurrences(plain, "else if (live)"), 0u) << plain;
  EXPECT_EQ(occurrences(plain, "kf_rw < 4"), 1u) << plain;
  const OpCase odd{"rows_pool_odd",
                   "x",
                   "F.max_pool2d(x, 4, stride=1, padding=1)",
                   {"[torch.randn(2, 4, 9, 30)]"}};
  generator::CudaChoices rows_alone;
  rows_alone.window_rows = 4;
  EXPECT_EQ(cuda_source(odd, rows_alone), cuda_source(odd));
  // the rule: 2 rows of the padded pool (5 input rows of 3 groups), 1 where asked or unpadded
  const std::string by_rule = cuda_source(pool, no_ring);
  EXPECT_EQ(occurrences(by_rule, "kf_rw < 2"), 1u) << by_rule;
  EXPECT_EQ(occurrences(by_rule, "kf_load4(kf_w0 + "), 15u) << by_rule;
  EXPECT_EQ(occurrences(single, "kf_rw"), 0u) << single;
  const OpCase unpadded{
      "rows_pool_unpadded", "x", "F.max_pool2d(x, 3, stride=1)", {"[torch.randn(2, 4, 64, 64)]"}};
  const std::string unpadded_source = cuda_source(unpadded, no_ring);
  EXPECT_EQ(occurrences(unpadded_source, "kf_rw"), 0u) << unpadded_source;
  EXPECT_EQ(occurrences(unpadded_source, "kf_v < 4"), 1u) << unpadded_source;
}

// The choice window_ring: a 3 x 3 depthwise convolution, unpadded (KernelBench's
// 82_conv_depthwise_2D_square_input_square_kernel at a smaller size: 4 channels of 20 x 64). By
// rule a block walks 8 output rows of a plane; its 32 threads (a warp's multiple of the 16 that
// copy a row of 64 floats, 16 bytes each) compute 2 columns of each, and the input rows go
// through a ring of 8 rows of 72 floats in shared memory, 6 in flight ahead of the first a window
// reads: nvcc's PTX has 8 copies by cp.async (7 before the walk, 1 a row), 18 reads of shared
// memory for the 2 outputs' windows, their 2 stores, the 9 weights its only global loads, and no
// local memory (the ring's rows a register each once the loops are unrolled; the `gpu` label
// checks the values). Not for rows that are not a multiple of 4 floats, padded windows, strided
// ones, or by rule windows of one column (3 x 1: on an H200 1-4 % slower through a ring).
TEST(GeneratedCudaSource, WindowRingsStreamTheInputRowsThroughSharedMemory) {
  if (std::string(build::nvcc).empty()) GTEST_SKIP() << "no nvcc";
  const OpCase conv{"ring_conv",
                    "x, w",
                    "F.conv2d(x, w, groups=4)",
                    {"[torch.randn(2, 4, 20, 64), torch.randn(4, 1, 3, 3)]"}};
  const std::string ring = cuda_source(conv);
  EXPECT_EQ(occurrences(ring, "__shared__ __align__(16) float kf_ring0[8][72];"), 1u) << ring;
  EXPECT_EQ(occurrences(ring, "__launch_bounds__(32)"), 1u) << ring;
  EXPECT_EQ(occurrences(ring, "kf_async_wait<4>();"), 1u) << ring;
  EXPECT_EQ(occurrences(ring, "kf_v < 2;"), 1u) << ring;
  EXPECT_EQ(occurrences(ring,
                        "kf_rr0[] = {kf_ring0[(kf_h + 0) % 8], kf_ring0[(kf_h + 1) % 8], "
                        "kf_ring0[(kf_h + 2) % 8]};"),
            1u)
      << ring;
  // 18 output rows in bands of 8 (the last of 2), 8 planes: 24 blocks
  EXPECT_EQ(occurrences(ring, "<<<24, 32, 0, stream>>>"), 1u) << ring;
  EXPECT_EQ(occurrences(ring, "reinterpret_cast<uintptr_t>(b0) % 16 != 0"), 1u) << ring;
  const std::string ptx = ptx_text(ring);
  EXPECT_EQ(occurrences(ptx, "cp.async.cg.shared.global"), 8u) << ptx;
  EXPECT_EQ(occurrences(ptx, "ld.shared.f32"), 18u) << ptx;
  EXPECT_EQ(occurrences(ptx, "ld.global"), 9u) << ptx;
  EXPECT_EQ(occurrences(ptx, "st.global"), 2u) << ptx;
  EXPECT_EQ(occurrences(ptx, ".local"), 0u) << ptx;
  // the choice index32: the ring's counters in 32 bits too
  generator::CudaChoices narrow;
  narrow.index32 = true;
  const std::string narrow_ring = cuda_source(conv, narrow);
  EXPECT_EQ(occurrences(narrow_ring, "for (int kf_h = kf_h0; kf_h < kf_h1; ++kf_h)"), 1u)
      << narrow_ring;
  EXPECT_EQ(occurrences(narrow_ring, "const int kf_j = kf_min_i64(kf_x, 61);"), 1u) << narrow_ring;
  EXPECT_EQ(occurrences(ring, "for (int64_t kf_h = kf_h0; kf_h < kf_h1; ++kf_h)"), 1u) << ring;
  // none where asked for none, for strided windows, or rows of 30 floats (not a multiple of 4)
  generator::CudaChoices none, sixteen;
  none.window_ring = 0;
  sixteen.window_ring = 16;
  EXPECT_EQ(occurrences(cuda_source(conv, none), "kf_ring0"), 0u);
  EXPECT_EQ(occurrences(cuda_source(conv, sixteen), "kf_min_i64(kf_h0 + 16, 18)"), 1u);
  for (const auto& [call, shape] :
       {std::pair<std::string, std::string>{"stride=2", "64"}, {"stride=1", "30"}}) {
    const std::string other =
        cuda_source({"ring_none_" + shape,
                     "x, w",
                     "F.conv2d(x, w, groups=4, " + call + ")",
                     {"[torch.randn(2, 4, 20, " + shape + "), torch.randn(4, 1, 3, 3)]"}},
                    sixteen);
    EXPECT_EQ(occurrences(other, "kf_ring0"), 0u) << other;
  }
  // padded windows (KernelBench's 86_conv_depthwise_separable_2D's 3 x 3, padding 1), at a row a
  // step (by rule 2: RingStepsReadTheRowsTheirWindowsShareOnce): the ring's row u is input row
  // u - 1, from the 4 floats before the row to the 4 past it (the last output's window reads one
  // column past the row): 72 + 8 of padding, 3 rows a window. Each read is the convolution's
  // where(inside, x, 0), its checks the read's own row and column against the input's 20 x 64:
  // the ring holds the 0 there (its
  // lead and tail in every slot once, the rows outside the plane, u < 1 or u >= 21, stored as
  // zeros), copies the 16 floats of the row alone (threads 1 to 16 of the warp), and no output
  // checks anything
  const OpCase padded_conv{"ring_padded",
                           "x, w",
                           "F.conv2d(x, w, groups=4, padding=1)",
                           {"[torch.randn(2, 4, 20, 64), torch.randn(4, 1, 3, 3)]"}};
  generator::CudaChoices eight;
  eight.window_ring = 8;
  eight.window_rows = 1;
  const std::string padded = cuda_source(padded_conv, eight);
  EXPECT_EQ(occurrences(padded, "__shared__ __align__(16) float kf_ring0[8][80];"), 1u) << padded;
  EXPECT_EQ(occurrences(padded, "const float kf_fill0 = 0.0f;"), 1u) << padded;
  EXPECT_EQ(occurrences(padded, "for (int kf_k = threadIdx.x; kf_k < 16; kf_k += 32) {"), 1u)
      << padded;
  EXPECT_EQ(occurrences(padded, "for (int kf_k = threadIdx.x + 1; kf_k < 17; kf_k += 32)"), 1u)
      << padded;
  EXPECT_EQ(occurrences(padded, "if (kf_u < 1 || kf_u >= 21)"), 1u) << padded;
  EXPECT_EQ(occurrences(padded, " - 68 >= 0 && "), 1u) << padded;
  EXPECT_EQ(occurrences(padded, "kf_async_wait<4>();"), 1u) << padded;
  EXPECT_EQ(occurrences(padded, "<<<24, 32, 0, stream>>>"), 1u) << padded;  // 20 rows, 8 planes
  EXPECT_EQ(occurrences(padded, "kf_select("), occurrences(ring, "kf_select(")) << padded;
  EXPECT_EQ(occurrences(ptx_text(padded), ".local"), 0u);
  // a max pool's padding is -inf; an average that does not count the padding keeps its count's
  // checks (the outputs whose window lies inside the input skip them)
  const std::string pool = cuda_source({"ring_padded_pool",
                                        "x",
                                        "F.max_pool2d(x, 3, stride=1, padding=1)",
                                        {"[torch.randn(2, 4, 20, 64)]"}},
                                       eight);
  EXPECT_EQ(occurrences(pool, "const float kf_fill0 = (-INFINITY);"), 1u) << pool;
  EXPECT_EQ(occurrences(pool, "kf_select("), occurrences(ring, "kf_select(")) << pool;
  const std::string average =
      cuda_source({"ring_padded_average",
                   "x",
                   "F.avg_pool2d(x, 3, stride=1, padding=1, count_include_pad=False)",
                   {"[torch.randn(2, 4, 20, 64)]"}},
                  eight);
  EXPECT_EQ(occurrences(average, "const float kf_fill0 = 0.0f;"), 1u) << average;
  EXPECT_EQ(occurrences(average, "  if ((static_cast<int64_t>(((-1) + kf_h)) + 2 < int64_t(20))"),
            1u)
      << average;
  const std::string wide = cuda_source({"ring_padded_wide",
                                        "x, w",
                                        "F.conv2d(x, w, groups=4, padding=1)",
                                        {"[torch.randn(1, 4, 3, 512), torch.randn(4, 1, 3, 3)]"}},
                                       eight);
  EXPECT_EQ(occurrences(wide, "for (int kf_k = threadIdx.x + 1; kf_k < 129; kf_k += 128)"), 1u)
      << wide;
  // 3 x 1 windows: by rule none, where asked a ring that holds the 3 rows
  const OpCase column{"ring_column",
                      "x, w",
                      "F.conv2d(x, w, groups=4)",
                      {"[torch.randn(2, 4, 20, 64), torch.randn(4, 1, 3, 1)]"}};
  EXPECT_EQ(occurrences(cuda_source(column), "kf_ring0"), 0u);
  EXPECT_EQ(occurrences(cuda_source(column, sixteen), "kf_async_wait<4>();"), 1u);
}

// Several output rows a step of a ring's band (the choice window_rows with window_ring): one wait
// and one barrier a step, the rows the step's windows read in one array, and each output row's
// windows reading it from their own row on, so that nvcc reads a ring row its windows share once.
TEST(GeneratedCudaSource, RingStepsReadTheRowsTheirWindowsShareOnce) {
  if (std::string(build::nvcc).empty()) GTEST_SKIP() << "no nvcc";
  const OpCase conv{"ring_conv",
                    "x, w",
                    "F.conv2d(x, w, groups=4)",
                    {"[torch.randn(2, 4, 20, 64), torch.randn(4, 1, 3, 3)]"}};
  generator::CudaChoices two, four, one_row_band;
  two.window_rows = 2;
  four.window_rows = 4;
  one_row_band.window_rows = 2;
  one_row_band.window_ring = 1;
  // 3 x 3 windows (2 rows past the first), 8 slots: 5 rows in flight ahead of the step's first,
  // of which the step waits for 2 + 1 more than its windows read
  const std::string stepped = cuda_source(conv, two);
  EXPECT_EQ(occurrences(stepped, "for (int64_t kf_hs = kf_h0; kf_hs < kf_h1; kf_hs += 2)"), 1u)
      << stepped;
  EXPECT_EQ(occurrences(stepped, "kf_async_wait<2>();"), 1u) << stepped;
  EXPECT_EQ(
      occurrences(stepped, "for (int kf_i = 1; kf_i <= 2; ++kf_i) kf_issue(kf_hs + 5 + kf_i);"), 1u)
      << stepped;
  EXPECT_EQ(occurrences(stepped,
                        "kf_rrs0[] = {kf_ring0[(kf_hs + 0) % 8], kf_ring0[(kf_hs + 1) % 8], "
                        "kf_ring0[(kf_hs + 2) % 8], kf_ring0[(kf_hs + 3) % 8]};"),
            1u)
      << stepped;
  EXPECT_EQ(occurrences(stepped, "const bool live = kf_x < 62 && kf_h < kf_h1;"), 1u) << stepped;
  // 2 outputs a row a thread, their windows' 9 reads each: 18 a row a step, 12 for two rows (each
  // ring row's three columns once)
  const std::string ptx = ptx_text(stepped);
  EXPECT_EQ(occurrences(ptx, "ld.shared.f32"), 24u) << ptx;
  EXPECT_EQ(occurrences(ptx, "st.global"), 4u) << ptx;
  EXPECT_EQ(occurrences(ptx, ".local"), 0u) << ptx;
  // 4 rows a step need 2 + 2 x 4 = 10 slots: 5 rows in flight, none the step may leave unread
  const std::string stepped4 = cuda_source(conv, four);
  EXPECT_EQ(occurrences(stepped4, "__shared__ __align__(16) float kf_ring0[10][72];"), 1u)
      << stepped4;
  EXPECT_EQ(occurrences(stepped4, "kf_async_wait<0>();"), 1u) << stepped4;
  EXPECT_EQ(occurrences(ptx_text(stepped4), "ld.shared.f32"), 36u);
  // a band of one row takes a row a step, as without the choice
  const std::string single = cuda_source(conv, one_row_band);
  EXPECT_EQ(occurrences(single, "for (int64_t kf_h = kf_h0; kf_h < kf_h1; ++kf_h)"), 1u) << single;
  EXPECT_EQ(occurrences(single, "kf_hs"), 0u) << single;
  // the rule: a row a step for unpadded windows; rings of 8 rows, 2 a step, for padded windows of
  // 3 or 4 columns whose rings hold their padding (a convolution's 0, a max pool's -inf, the 0 of
  // an average that does not count the padding, whose count keeps its checks)
  EXPECT_EQ(occurrences(cuda_source(conv), "kf_hs"), 0u);
  const auto rule_of = [](const std::string& name, const std::string& call) {
    return cuda_source(
        {name, "x, w", call, {"[torch.randn(2, 4, 20, 64), torch.randn(4, 1, 3, 3)]"}});
  };
  for (const auto& [name, call] : std::vector<std::pair<std::string, std::string>>{
           {"ring_rule_conv", "F.conv2d(x, w, groups=4, padding=1)"},
           {"ring_rule_max", "F.max_pool2d(x, 4, stride=1, padding=1) + w.sum()"},
           {"ring_rule_average",
            "F.avg_pool2d(x, 3, stride=1, padding=1, count_include_pad=False) + w.sum()"}}) {
    const std::string source = rule_of(name, call);
    EXPECT_EQ(occurrences(source, "kf_min_i64(kf_h0 + 8, "), 1u) << source;
    EXPECT_EQ(occurrences(source, "kf_hs += 2)"), 1u) << source;
  }
}

// The choice window_fills: a 1-D max pool of 8 taps 3 apart padded by 4 (KernelBench's
// 41_Max_Pooling_1D's), 4 outputs a thread, rows of 64: the thread's 7 groups of four at kf_c * 4
// - 4 to kf_c * 4 + 20 each lie inside the row or outside it whole, so that it puts the pool's
// -inf in place of those outside, behind one check of the seven, and its 32 taps read their
// registers unchecked (by rule: the taps span 22 elements). An average of 8 neighbouring taps
// (44_Average_Pooling_1D's) keeps its checks by rule and holds its 0 where asked. A padding of 3
// fills too (the groups lie at multiples of 4 from the row's start whatever the padding); rows of
// 37 floats (no vector loads) and rows of 66 (a slice from 2 of rows of 68: groups across the
// row's border) keep their checks always.
TEST(GeneratedCudaSource, WindowVectorLoadsHoldTheirPadding) {
  const auto pool = [](const std::string& name, const std::string& call, const std::string& shape,
                       const generator::CudaChoices& c = {}) {
    return cuda_source({name, "x", call, {"[torch.randn(" + shape + ")]"}}, c);
  };
  // the kernels, after the common header's definitions
  const auto kernels = [](const std::string& s) { return s.substr(s.find("namespace cfg0 {")); };
  const std::string dilated = "F.max_pool1d(x, 8, stride=1, padding=4, dilation=3)";
  const std::string max = pool("fills_max", dilated, "2, 3, 64");
  EXPECT_EQ(occurrences(max, "  if (!(kf_c * 4 - 4 >= 0 && kf_c * 4 + 20 < 64)) {"), 1u) << max;
  EXPECT_EQ(occurrences(max,
                        "    if (!(kf_c * 4 + 8 >= 0 && kf_c * 4 + 8 < 64)) kf_w0[12] = kf_w0[13] "
                        "= kf_w0[14] = kf_w0[15] = (-INFINITY);"),
            1u)
      << max;
  EXPECT_EQ(occurrences(max, "] = (-INFINITY);"), 7u) << max;
  EXPECT_EQ(occurrences(kernels(max), "kf_select"), 0u) << max;
  if (!std::string(build::nvcc).empty()) {
    const std::string ptx = ptx_text(max);
    EXPECT_EQ(occurrences(ptx, "ld.global.nc.v4.f32"), 7u) << ptx;
    EXPECT_EQ(occurrences(ptx, "max.NaN.f32"), 32u) << ptx;
  }
  generator::CudaChoices never, always;
  never.window_fills = 0;
  always.window_fills = 1;
  const std::string checked = pool("fills_max", dilated, "2, 3, 64", never);
  EXPECT_EQ(occurrences(checked, "] = (-INFINITY);"), 0u) << checked;
  EXPECT_GT(occurrences(kernels(checked), "kf_select"), 0u) << checked;
  const std::string average = "F.avg_pool1d(x, 8, stride=1, padding=4)";
  const std::string sum = pool("fills_avg", average, "2, 3, 64");
  EXPECT_EQ(occurrences(sum, "] = 0.0f;"), 0u) << sum;
  EXPECT_GT(occurrences(kernels(sum), "kf_select"), 0u) << sum;
  const std::string filled = pool("fills_avg", average, "2, 3, 64", always);
  EXPECT_EQ(occurrences(filled, "kf_w0[11] = 0.0f;"), 1u) << filled;
  EXPECT_EQ(occurrences(kernels(filled), "kf_select"), 0u) << filled;
  // the groups lie at multiples of 4 from the row's start whatever the padding
  const std::string three =
      pool("fills_three", "F.max_pool1d(x, 7, stride=1, padding=3, dilation=3)", "2, 3, 64");
  EXPECT_GT(occurrences(three, "] = (-INFINITY);"), 0u) << three;
  EXPECT_EQ(occurrences(kernels(three), "kf_select"), 0u) << three;
  for (const auto& [name, call, shape] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"fills_37", dilated, "2, 3, 37"},
           {"fills_slice", "F.max_pool1d(x[..., 2:], 8, stride=1, padding=4, dilation=3)",
            "2, 3, 68"}}) {
    const std::string other = pool(name, call, shape, always);
    EXPECT_EQ(occurrences(other, "] = (-INFINITY);"), 0u) << other;
    EXPECT_GT(occurrences(kernels(other), ">= int64_t(0)"), 0u) << other;
  }
}

// The choice spread: four outputs a thread, a block's width apart (o = kf_b + kf_v * 256, the
// last block's threads past the outputs clamped to the last one, whose value they store as its
// own thread does), each load behind its border check (not clamped into the buffer as window
// outputs' are: those compares were what the kernel spent its issue slots on) and no store under
// a branch: nvcc's PTX has the 4 windows' 32 loads (read-only, `.nc`) and 4 stores (PTX read
// here, without a GPU or a disassembler; the `gpu` label checks the values). By rule 4 where
// 1024 blocks of 256 threads remain, 2 where they remain at 2, else 1; where `window` computes
// neighbouring outputs, spread is ignored.
TEST(GeneratedCudaSource, SpreadOutputsHaveTheirLoadsInFlightTogether) {
  if (std::string(build::nvcc).empty()) GTEST_SKIP() << "no nvcc";
  const OpCase pool{"spread_pool",
                    "x",
                    "F.max_pool1d(x, 8, stride=1, padding=4, dilation=3)",
                    {"[torch.randn(2, 4, 1000)]"}};
  generator::CudaChoices four, both;
  four.spread = 4;
  both.spread = 4;
  both.window = 2;
  const std::string spread = cuda_source(pool, four);
  EXPECT_EQ(occurrences(spread, "for (int kf_v = 0; kf_v < 4; ++kf_v)"), 1u) << spread;
  EXPECT_EQ(occurrences(spread, "const int64_t kf_o = kf_b + kf_v * 256;"), 1u) << spread;
  EXPECT_EQ(occurrences(spread, "(live ? kf_o : 7895)"), 1u) << spread;
  EXPECT_EQ(occurrences(spread, "<<<8, 256"), 1u) << spread;  // 7896 outputs, 1024 a block
  const std::string ptx = ptx_text(spread);
  EXPECT_EQ(occurrences(ptx, "ld.global.nc"), 32u) << ptx;
  EXPECT_EQ(occurrences(ptx, "st.global"), 4u) << ptx;
  EXPECT_EQ(occurrences(spread, "kf_in("), 1u) << spread;  // the prelude's, not called
  EXPECT_EQ(occurrences(spread, "? b0["), 1u) << spread;   // the load behind its check
  const std::string windows = cuda_source(pool, both);
  EXPECT_EQ(occurrences(windows, "kf_b + kf_v"), 0u) << windows;
  EXPECT_EQ(occurrences(windows, "kf_v < 2"), 1u) << windows;
  // by rule, where window outputs have no vector loads (rows of 100009): 799,968 outputs, 2 (782
  // blocks at 4); 1,599,936, 4. Rows of 1000 take window outputs by rule instead.
  const std::string by_rule = cuda_source(pool);
  EXPECT_EQ(occurrences(by_rule, "kf_b + kf_v"), 0u) << by_rule;
  EXPECT_EQ(occurrences(by_rule, "for (int kf_v = 0; kf_v < 4; ++kf_v)"), 1u) << by_rule;
  EXPECT_GE(occurrences(by_rule, "kf_load4(kf_w0 + "), 1u) << by_rule;
  const OpCase mid{"spread_pool_mid",
                   "x",
                   "F.max_pool1d(x, 8, stride=1, padding=4, dilation=3)",
                   {"[torch.randn(2, 4, 100009)]"}};
  EXPECT_EQ(occurrences(cuda_source(mid), "kf_v < 2;"), 1u);
  const OpCase large{"spread_pool_large",
                     "x",
                     "F.max_pool1d(x, 8, stride=1, padding=4, dilation=3)",
                     {"[torch.randn(4, 4, 100009)]"}};
  EXPECT_EQ(occurrences(cuda_source(large), "kf_v < 4;"), 1u);
}

// Cross entropy (KernelBench's 95_CrossEntropyLoss): the log-probability at each row's target is
// computed there from the row's maximum and sum of exponentials, with the logit read at the
// target; the [N, C] log-probabilities are never written (they were, 32768 x 4096, and read
// again by the gather). nll_loss of log-probabilities the function is given reads them there.
TEST(GeneratedCudaSource, CrossEntropyWritesNoLogProbabilities) {
  const std::string ce = cuda_source({"cross_entropy_rows",
                                      "x, t",
                                      "F.cross_entropy(x, t)",
                                      {"[torch.randn(64, 1000), torch.randint(0, 1000, (64,))]"}});
  EXPECT_EQ(occurrences(ce, "torch::empty({64, 1000}"), 0u) << ce;
  EXPECT_EQ(occurrences(ce, "* 1]"), 1u) << ce;  // the one gather, of the logits
  const std::string nll = cuda_source({"nll_given",
                                       "x, t",
                                       "F.nll_loss(x, t)",
                                       {"[torch.randn(64, 1000), torch.randint(0, 1000, (64,))]"}});
  EXPECT_EQ(occurrences(nll, "torch::empty({64, 1000}"), 0u) << nll;
  EXPECT_EQ(occurrences(nll, "* 1]"), 1u) << nll;
}

// The choice online: where the row cache holds a row in a block, a maximum and its sum of
// exponentials walk the registers twice (the maximum first) instead of once online, whose
// rescaling branch divides a warp at most elements of a short share (KernelBench's
// 95_CrossEntropyLoss: 16 elements a thread, at 29 % of DRAM peak); `online` 1 keeps the one pass.
// A row too long for the cache keeps the online pass: one read of memory instead of two.
TEST(GeneratedCudaSource, AMaximumAndItsSumWalkACachedRowTwice) {
  const OpCase ce{"cross_entropy_short",
                  "x, t",
                  "F.cross_entropy(x, t)",
                  {"[torch.randn(64, 1000), torch.randint(0, 1000, (64,))]"}};
  const std::string two = cuda_source(ce);
  EXPECT_EQ(occurrences(two, "kf_online_add(s"), 0u) << two;
  EXPECT_EQ(occurrences(two, "KfMax()(s"), 1u) << two;
  EXPECT_GE(occurrences(two, "float kf_c0["), 1u) << two;
  generator::CudaChoices one;
  one.online = 1;
  const std::string online = cuda_source(ce, one);
  EXPECT_GE(occurrences(online, "kf_online_add(s"), 1u) << online;  // the loop and its tail
  const OpCase long_rows{
      "softmax_long_rows", "x", "torch.softmax(x, dim=-1)", {"[torch.randn(256, 20000)]"}};
  // a row cache that holds another row (the mean's y, met first) but not the maximum's x: the
  // two passes would read x from memory twice, the online pass once
  const OpCase other{"softmax_beside_a_mean",
                     "x, y",
                     "y.mean(-1, keepdim=True) * y + torch.softmax(x, dim=-1)",
                     {"[torch.randn(256, 16384), torch.randn(256, 16384)]"}};
  const std::string beside = cuda_source(other);
  EXPECT_GE(occurrences(beside, "kf_online_add(s"), 1u) << beside;
  generator::CudaChoices no_cluster;
  no_cluster.cluster = false;
  const std::string long_source = cuda_source(long_rows, no_cluster);
  EXPECT_GE(occurrences(long_source, "kf_online_add(s"), 1u) << long_source;
}

// The row cache: a norm over 64 channels (KernelBench's 36_RMSNorm_: a thread an output walks its
// column twice, for the mean of squares and for the quotient; the unrolled loop and its tail read
// it in two places a pass without the cache) and a softmax over rows of 300 (a
// warp a row: its online maximum and sum, then the quotient) load each element once, into
// registers that both passes read; without the choice, once a pass. A row longer than the cache
// holds is read from memory in each pass.
TEST(GeneratedCudaSource, PassesOverAShortRowReadItOnceIntoRegisters) {
  const OpCase rms{"rms_channels",
                   "x",
                   "x / torch.sqrt(torch.mean(x ** 2, dim=1, keepdim=True) + 1e-5)",
                   {"[torch.randn(16, 64, 32, 32)]"}};
  const OpCase softmax{"softmax_rows", "x", "torch.softmax(x, dim=1)", {"[torch.randn(64, 300)]"}};
  const OpCase long_rows{
      "softmax_long", "x", "torch.softmax(x, dim=1)", {"[torch.randn(8, 40000)]"}};
  generator::CudaChoices off;
  off.row_cache = false;
  const auto reads_of_x = [](const std::string& source) { return occurrences(source, "b0["); };
  const std::string cached = cuda_source(rms);
  // 8 lanes a column, four outputs a thread (column_vectors), read 16 bytes a load
  EXPECT_EQ(occurrences(cached, "float kf_c0[32];"), 1u) << cached;
  EXPECT_EQ(occurrences(cached, "kf_row_load4(kf_q0, b0 + ("), 1u) << cached;
  EXPECT_EQ(reads_of_x(cached), 0u) << cached;
  EXPECT_GE(reads_of_x(cuda_source(rms, off)), 2u);
  const std::string rows = cuda_source(softmax);
  EXPECT_EQ(occurrences(rows, "float kf_c0[10];"), 1u) << rows;  // 300 elements, 32 threads
  EXPECT_EQ(reads_of_x(rows), 1u) << rows;
  EXPECT_GE(reads_of_x(cuda_source(softmax, off)), 2u);
  const std::string long_row = cuda_source(long_rows);
  EXPECT_EQ(occurrences(long_row, "kf_c0"), 0u) << long_row;
}

// A row too long for one block's row cache: KernelBench's 39_L2Norm_ (rows of 65535; 128 of
// them here, as few as stay unsplit) read twice by a block a row, once by a cluster of 8 blocks
// of 256 threads, 32 elements a thread, whose partial sums meet across the cluster; launched
// with the kernel without clusters beside it. A softmax over rows of 40000 takes clusters of 8
// too, its online pair combined across them (rows of 393216, 23_Softmax, are too long for a
// cluster's registers: the next test). Without the choice, no cluster.
TEST(GeneratedCudaSource, ARowTooLongForABlockIsCachedByAClusterOfBlocks) {
  const OpCase l2{"l2_norm_long_rows",
                  "x",
                  "x / torch.norm(x, p=2, dim=1, keepdim=True)",
                  {"[torch.rand(128, 65535)]"}};
  const OpCase softmax{
      "softmax_cluster_rows", "x", "torch.softmax(x, dim=1)", {"[torch.randn(128, 40000)]"}};
  const std::string source = cuda_source(l2);
  EXPECT_EQ(occurrences(source, "// a row shared by a cluster of 8 blocks"), 1u) << source;
  EXPECT_EQ(occurrences(source, "#include <cooperative_groups.h>"), 1u) << source;
  EXPECT_EQ(occurrences(source, "float kf_c0[33];"), 1u) << source;
  EXPECT_EQ(occurrences(source, "kf_cluster_reduce<8, true>(s"), 1u) << source;
  EXPECT_EQ(occurrences(source, "kf_config.gridDim = dim3(1024);"), 1u) << source;
  EXPECT_EQ(occurrences(source, "kf_cluster[0].val.clusterDim.x = 8;"), 1u) << source;
  EXPECT_EQ(occurrences(source, "k0_plain<<<128, 256, 0, stream>>>"), 1u) << source;
  // x read once by the cluster's kernel into its cache, four elements a load from the row's
  // first 16-byte aligned one (the rows of 65535 start at any multiple of 4 bytes), the lane's
  // element of the row's head or tail on its own; its output stored four a store. The plain
  // kernel reads x twice.
  const auto k0 = source.substr(source.find("// a row shared"));
  const auto cluster_kernel = k0.substr(0, k0.find("k0_plain("));
  EXPECT_EQ(occurrences(cluster_kernel, "b0["), 1u) << source;
  EXPECT_EQ(occurrences(cluster_kernel, "kf_h = (4 - (((o * 65535)) & 3)) & 3;"), 1u) << source;
  EXPECT_EQ(occurrences(cluster_kernel, "kf_row_load4(kf_c0 + 4 * kf_k, b0 + ((o * 65535)) + kf_h"),
            1u)
      << source;
  EXPECT_EQ(occurrences(cluster_kernel, "kf_row_store4("), 1u) << source;
  EXPECT_EQ(occurrences(cluster_kernel, "__launch_bounds__(256, 5)"), 1u) << source;
  const std::string rows = cuda_source(softmax);
  EXPECT_EQ(occurrences(rows, "// a row shared by a cluster of 8 blocks"), 1u) << rows;
  EXPECT_EQ(occurrences(rows, "float kf_c0[21];"), 1u) << rows;
  EXPECT_EQ(occurrences(rows, "kf_cluster_online<8, true>("), 1u) << rows;
  // the op table's case of rows of 20001 in groups of four takes that path: its CUDA run covers
  // heads and tails of up to 5 elements, an online pair and four outputs
  const std::string quads =
      cuda_source(op_cases_named({"rows_across_a_cluster_in_groups_of_four"}).front());
  EXPECT_EQ(occurrences(quads, "kf_row_load4(kf_c0 + 4 * kf_k, b0 + ((o * 20001)) + kf_h"), 1u)
      << quads;
  EXPECT_EQ(occurrences(quads, "kf_row_store4(b"), 4u) << quads;
  auto without = [&](bool generator::CudaChoices::*choice) {
    generator::CudaChoices choices;
    choices.*choice = false;
    return cuda_source(l2, choices);
  };
  // without row vectors, the elements a span apart
  const std::string apart = without(&generator::CudaChoices::row_vectors);
  EXPECT_EQ(occurrences(apart, "float kf_c0[32];"), 1u) << apart;
  EXPECT_EQ(occurrences(apart, "kf_row_load4"), 1u) << apart;  // its definition
  const std::string plain = without(&generator::CudaChoices::cluster);
  EXPECT_EQ(occurrences(plain, "cluster"), 0u) << plain;
  EXPECT_EQ(occurrences(plain, "cooperative_groups"), 0u) << plain;
}

// A row too long for a cluster's registers (rows of 20001 at blocks of 32 threads: 40 elements a
// thread of 16 blocks) held in groups of four in shared memory by the cluster whose SMs then hold
// the most threads (16 blocks, 10 groups of four a thread: 5120 bytes a block, 32 blocks an SM),
// read from memory once; the launch asks for that dynamic shared memory, the launch bounds for
// those blocks an SM. nvcc's PTX of the cluster's kernel: x's groups go to shared memory, 16
// bytes a load and a store, and the outputs are stored 16 bytes a store. At 256 threads a
// cluster's registers hold the row; without clusters, no shared memory.
TEST(GeneratedCudaSource, ARowTooLongForAClustersRegistersIsCachedInItsSharedMemory) {
  const OpCase grouped = op_cases_named({"rows_across_a_cluster_in_groups_of_four"}).front();
  generator::CudaChoices narrow;
  narrow.block_threads = 32;
  const std::string source = cuda_source(grouped, narrow);
  const std::string mark =
      "// a row shared by a cluster of 16 blocks, cached in their shared memory";
  EXPECT_EQ(occurrences(source, mark), 1u) << source;  // one kernel for the four outputs
  EXPECT_EQ(occurrences(source, "kf_config.dynamicSmemBytes = 5120;"), 1u) << source;
  EXPECT_EQ(occurrences(source, "cudaFuncAttributeMaxDynamicSharedMemorySize, 5120);"), 1u)
      << source;
  EXPECT_EQ(occurrences(source, "__launch_bounds__(32, 32)"), 1u) << source;
  const auto k0 = source.substr(source.find(mark));
  const auto cluster_kernel = k0.substr(0, k0.find("k0_plain("));
  EXPECT_EQ(occurrences(cluster_kernel, "extern __shared__ float4 kf_smem[];"), 1u) << source;
  EXPECT_EQ(occurrences(cluster_kernel, "for (int kf_k = 0; kf_k < 10; ++kf_k) {"), 7u)
      << source;  // the load, two passes of two sums, the four outputs' stores
  EXPECT_EQ(occurrences(cluster_kernel,
                        "kf_s0[kf_k * 32 + threadIdx.x] = __ldg(reinterpret_cast<const "
                        "float4*>(b0 + ((o * 20001)) + kf_h"),
            1u)
      << source;
  EXPECT_EQ(occurrences(cluster_kernel, "b0["), 1u) << source;  // the head or tail element
  const std::string ptx = ptx_text(source);
  const auto entry = ptx.find(".entry _Z2k0P");
  ASSERT_NE(entry, std::string::npos) << ptx;
  const std::string k0_ptx = ptx.substr(entry, ptx.find(".entry", entry + 1) - entry);
  EXPECT_GE(occurrences(k0_ptx, "ld.global.nc.v4.f32"), 1u) << k0_ptx;
  EXPECT_GE(occurrences(k0_ptx, "st.shared.v4.f32"), 1u) << k0_ptx;
  EXPECT_GE(occurrences(k0_ptx, "ld.shared.v4.f32"), 1u) << k0_ptx;
  EXPECT_GE(occurrences(k0_ptx, "st.global.wb.v4.f32"), 1u) << k0_ptx;
  EXPECT_EQ(occurrences(cuda_source(grouped), "kf_smem"), 0u);
  narrow.cluster = false;
  EXPECT_EQ(occurrences(cuda_source(grouped, narrow), "kf_smem"), 0u);
}

// Rows of 300001 at the default 256 threads a block: no cluster's registers hold them (16 blocks
// of 256 threads hold 131072 elements at kClusterShare), and a cluster of 16 such blocks caching
// them in shared memory (19 groups of four a thread, 76 KB a block) leaves two blocks, 512
// threads, an SM (kClusterSharedThreads: 1024). So the kernel takes blocks of 512 threads (10
// groups, 80 KB, two blocks an SM), as with --block-threads 512, whatever narrower block the
// choices say; not without clusters or without the row cache. 23_Softmax's rows of 393216 take
// clusters of 16 blocks of 96 KB this way. A row a cluster of blocks of 512 holds in registers
// takes them likewise.
TEST(GeneratedCudaSource, ARowOnlyAWiderClusterCachesTakesBlocksOfItsWidth) {
  const OpCase wide = wide_shared_cache_case();
  // its three rows unsplit (partials 1), as KernelBench's hundreds are
  const auto cuda_source = [&](const OpCase& c, const generator::CudaChoices& choices = {}) {
    return backend_source(c, "cuda", choices, false, std::nullopt, 1);
  };
  const std::string source = cuda_source(wide);
  EXPECT_EQ(occurrences(source, ", cached in their shared memory\n"), 1u) << source;
  generator::CudaChoices at512;
  at512.block_threads = 512;
  EXPECT_EQ(source, cuda_source(wide, at512));
  generator::CudaChoices at128;
  at128.block_threads = 128;
  EXPECT_EQ(source, cuda_source(wide, at128));
  EXPECT_EQ(occurrences(source, "kf_config.blockDim = dim3(512);"), 1u) << source;
  for (const auto off : {&generator::CudaChoices::cluster, &generator::CudaChoices::row_cache}) {
    generator::CudaChoices without;
    without.*off = false;
    const std::string narrow = cuda_source(wide, without);
    EXPECT_EQ(occurrences(narrow, "kf_smem"), 0u) << narrow;
    EXPECT_EQ(occurrences(narrow, "(512)"), 0u) << narrow;
  }
  // rows of 240000: 15 groups of four a thread of 16 blocks of 256 (60 KB, three blocks an SM),
  // 30 elements a thread's registers at 512 (34_InstanceNorm's rows of 262144: 32)
  const std::string registers = cuda_source({"rows_a_wider_clusters_registers_hold",
                                             "x",
                                             "F.layer_norm(x, x.shape[-1:])",
                                             {"[torch.randn(3, 240000)]"}});
  EXPECT_EQ(occurrences(registers, "// a row shared by a cluster of 16 blocks\n"), 1u) << registers;
  EXPECT_EQ(occurrences(registers, "kf_config.blockDim = dim3(512);"), 1u) << registers;
  EXPECT_EQ(occurrences(registers, "kf_smem"), 0u) << registers;
}

// What the row cache holds: a double sum of a product widens the factors (double_term_text), so
// the instance norm of (x + b) * m shares x + b between its mean and its variance, not the
// product, and x is read once (holding the product read x in the cache's loop and again in the
// mean's: KernelBench's 79_Conv3d_Multiply_InstanceNorm_Clamp_Multiply_Max, 0.86x of the kernel
// without the cache on an H200). And no cache where the unrolled passes would be long: a
// logsumexp over 64 channels of a 40-node expression, computed in two passes.
TEST(GeneratedCudaSource, TheRowCacheHoldsWhatThePassesPrintWhileTheirCodeIsShort) {
  const OpCase scaled{"instance_norm_scaled",
                      "x, b, m",
                      "F.instance_norm((x + b.view(1, -1, 1, 1)) * m.view(1, -1, 1, 1))",
                      {"[torch.randn(32, 32, 40, 40), torch.randn(32), torch.randn(32)]"}};
  const std::string norm = cuda_source(scaled);
  EXPECT_EQ(occurrences(norm, "float kf_c0[7];"), 1u) << norm;  // 1600 elements, 256 threads
  EXPECT_EQ(occurrences(norm, "b0["), 1u) << norm;
  const auto chain = [](int links) {
    std::string v = "x";
    for (int i = 0; i < links; ++i) v = "torch.tanh(" + v + ") + x";
    return v;
  };
  generator::CudaChoices whole;
  whole.column_split = 1;  // a thread a column of 64 (split across lanes, a share of 16 fits)
  const auto logsumexp = [&](int links) {
    return cuda_source({"lse_chain_" + std::to_string(links),
                        "x",
                        "torch.logsumexp(" + chain(links) + ", dim=1)",
                        {"[torch.randn(16, 64, 32, 32)]"}},
                       whole);
  };
  const std::string light = logsumexp(3), heavy = logsumexp(13);
  EXPECT_EQ(occurrences(light, "float kf_c0[64];"), 1u) << light;
  EXPECT_EQ(occurrences(heavy, "kf_c0"), 0u) << heavy;
}

// The row cache computes its values before any condition, so it holds no load that only a
// condition's pick evaluates where that load may lie outside its buffer: a softmax over a padded
// row reads x at -1 for the first element, which the pad's select never picks (loaded ahead of
// it, before the buffer's start, the fault KernelBench's 92_cumsum_exclusive met in a pointwise
// kernel's loads). The select as a whole is what the cache holds; the second pad's select (by
// 1.0), in the output's pass alone, reads the same load, which the passes share but the cache
// must not hold (it did before 111abb4).
TEST(GeneratedCudaSource, TheRowCacheHoldsNoLoadThatAConditionGuards) {
  const std::string source = cuda_source({"softmax_padded",
                                          "x",
                                          "torch.softmax(F.pad(x, (1, 1)), dim=1) * "
                                          "F.pad(x, (1, 1), value=1.0)",
                                          {"[torch.randn(64, 1000)]"}});
  ASSERT_GE(occurrences(source, "kf_c0["), 2u) << source;  // the row is cached
  std::istringstream lines(source);
  size_t cached = 0;
  for (std::string line; std::getline(lines, line);) {
    // a register the cache fills: kf_c<i>[kf_j] = ...
    const size_t at = line.find_first_not_of(' ');
    if (at == std::string::npos || line.compare(at, 4, "kf_c") != 0 ||
        line.find("[kf_j] = ") == std::string::npos)
      continue;
    ++cached;
    // the padded load (offset -1 from the element) only behind the select's condition
    const size_t load = line.find("b0[((-1) + ");
    if (load != std::string::npos) {
      EXPECT_NE(line.rfind(" ? ", load), std::string::npos) << line;
    }
  }
  EXPECT_GE(cached, 1u) << source;
}

// A reduction's walk of a contiguous float row from a multiple of four elements reads four
// consecutive elements a load (row_vectors) and stores a float output row likewise, as a pointwise
// kernel's full blocks do (pointwise_vectors); not a row
// whose length (and so each row's start) is odd, not a load that only a condition's pick reads
// (cat's second piece lies before its buffer's start for the first piece's elements), and not
// where the choice is off. The tensor is copied where it is not 16-byte aligned.
TEST(GeneratedCudaSource, AContiguousRowIsReadFourElementsALoad) {
  generator::CudaChoices plain;  // the walk of the row itself, not its cache's
  plain.row_cache = false;
  plain.cluster = false;
  const auto loads = [](const std::string& source) {
    return occurrences(source, "kf_row_load4(kf_rv");
  };
  const OpCase softmax{
      "softmax_rows", "x", "torch.softmax(x, dim=1)", {"[torch.randn(128, 4096)]"}};
  const std::string rows = cuda_source(softmax, plain);
  EXPECT_EQ(loads(rows), 2u) << rows;  // the online pass and the output's
  EXPECT_EQ(occurrences(rows, "kf_row_store4(b"), 1u) << rows;
  EXPECT_EQ(occurrences(rows, "% 16 != 0"), 1u) << rows;
  const std::string odd = cuda_source(
      {"softmax_odd_rows", "x", "torch.softmax(x, dim=1)", {"[torch.randn(128, 4095)]"}}, plain);
  EXPECT_EQ(loads(odd), 0u) << odd;
  EXPECT_EQ(occurrences(odd, "kf_row_store4(b"), 0u) << odd;
  const std::string pieces = cuda_source({"softmax_cat",
                                          "x, y",
                                          "torch.softmax(torch.cat([x, y], dim=1), dim=1)",
                                          {"[torch.randn(128, 2048), torch.randn(128, 2048)]"}},
                                         plain);
  EXPECT_EQ(loads(pieces), 0u) << pieces;
  generator::CudaChoices scalar = plain;
  scalar.row_vectors = false;
  const std::string off = cuda_source(softmax, scalar);
  EXPECT_EQ(loads(off) + occurrences(off, "kf_row_store4(b"), 0u) << off;
  // A pointwise kernel: x and the output four elements a load and a store, w (the same for the
  // four, its channel) once for them; an odd row keeps a load an element. (Enough elements for
  // four a thread: a kernel of fewer than two blocks an SM at four a thread takes fewer.)
  const auto scaled = [&](const std::string& shape, const generator::CudaChoices& c = {}) {
    return cuda_source({"relu_scaled_" + shape.substr(shape.rfind(' ') + 1),
                        "x, w",
                        "torch.relu(x) * w.view(1, -1, 1)",
                        {"[torch.randn(" + shape + "), torch.randn(16)]"}},
                       c);
  };
  const std::string even = scaled("512, 16, 64");
  EXPECT_EQ(occurrences(even, "kf_row_load4(kf_l"), 1u) << even;
  EXPECT_EQ(occurrences(even, "[kf_q] = b1["), 1u) << even;
  EXPECT_EQ(occurrences(even, "kf_row_store4(b"), 1u) << even;
  const std::string uneven = scaled("512, 16, 63");
  EXPECT_EQ(occurrences(uneven, "kf_row_load4(kf_l") + occurrences(uneven, "kf_row_store4(b"), 0u)
      << uneven;
  generator::CudaChoices apart;
  apart.pointwise_vectors = false;
  const std::string one_each = scaled("512, 16, 64", apart);
  EXPECT_EQ(occurrences(one_each, "kf_row_load4(kf_l"), 0u) << one_each;
}

// Elements a thread of a pointwise kernel computes (the choice `elements`): by rule 8 where an
// element evaluates two special functions or more (softplus: exp and log1p; a tanh and a sigmoid; a
// power of a general exponent: a log and an exp) and holds at most four loaded values, else 4 (a
// tanh alone, a ReLU squared, a softplus of five inputs); either halved while the grid would have
// fewer than two blocks for each of an H100's 132 SMs (an LSTM step's cell, 10 x 256, takes 1); a
// chosen count is kept. On an H200 eight took 29_Softplus 1.07x faster, 22_Tanh 0.96x, and level
// 2's 52 (seven loads an element) 0.90x; on an H100 one took 36_LSTMHn's cells 1.4-1.5x faster,
// and 29_Softplus on 98K elements was 1.38x slower at eight (48 blocks) than at two.
TEST(GeneratedCudaSource, APointwiseKernelOfTwoSpecialFunctionsAnElementTakesEightElements) {
  const auto per_thread = [](const std::string& name, const std::string& signature,
                             const std::string& expression, const std::string& inputs,
                             const generator::CudaChoices& c = {}) {
    const std::string source =
        cuda_source({"elements_" + name, signature, expression, {inputs}}, c);
    const bool eight = source.find("blockIdx.x) * 2048 + ") != std::string::npos &&
                       source.find("j < 8; ++j") != std::string::npos;
    const bool four = source.find("blockIdx.x) * 1024 + ") != std::string::npos &&
                      source.find("j < 4; ++j") != std::string::npos;
    const bool two = source.find("blockIdx.x) * 512 + ") != std::string::npos &&
                     source.find("j < 2; ++j") != std::string::npos;
    const bool one = source.find("blockIdx.x) * 256 + ") != std::string::npos &&
                     source.find("j < 1; ++j") != std::string::npos;
    EXPECT_EQ(int(eight) + int(four) + int(two) + int(one), 1) << source;
    return eight ? 8 : four ? 4 : two ? 2 : 1;
  };
  const auto of_x = [&](const std::string& name, const std::string& expression,
                        const generator::CudaChoices& c = {}) {
    return per_thread(name, "x", expression, "[torch.randn(1024, 1024)]", c);
  };
  EXPECT_EQ(of_x("softplus", "torch.nn.functional.softplus(x)"), 8);
  EXPECT_EQ(of_x("tanh_sigmoid", "torch.tanh(x) * torch.sigmoid(x)"), 8);
  EXPECT_EQ(of_x("general_power", "torch.abs(x) ** 2.5"), 8);
  EXPECT_EQ(of_x("tanh", "torch.tanh(x)"), 4);
  EXPECT_EQ(of_x("square", "torch.relu(x) ** 2 + 1"), 4);
  EXPECT_EQ(per_thread("softplus_five_loads", "x, a, b, c, d",
                       "torch.nn.functional.softplus(x) * a + b * c - d",
                       "[torch.randn(1024, 1024)] + [torch.randn(1024) for _ in range(4)]"),
            4);
  generator::CudaChoices four;
  four.elements = 4;
  EXPECT_EQ(of_x("softplus", "torch.nn.functional.softplus(x)", four), 4);
  const auto cell = [&](const std::string& rows, const generator::CudaChoices& c = {}) {
    return per_thread("cell_" + rows, "x", "torch.sigmoid(x) * torch.tanh(x)",
                      "[torch.randn(" + rows + ", 256)]", c);
  };
  EXPECT_EQ(cell("10"), 1);
  EXPECT_EQ(cell("526"), 1);   // 263 blocks of 256 at two a thread
  EXPECT_EQ(cell("527"), 2);   // 264 at two
  EXPECT_EQ(cell("2104"), 4);  // 263 at eight, 526 at four
  EXPECT_EQ(cell("2105"), 8);  // 264 at eight
  EXPECT_EQ(cell("10", four), 4);
}

// A scan along a contiguous row (KernelBench's 89_cumsum, 93_masked_cumsum): each lane scans its
// four consecutive elements, read and stored 16 bytes at a time, before the warp scans the lanes'
// totals; the rows' last elements (a row of 1028: two steps of 512, then 4) one a lane. A row
// whose start is not a multiple of four elements is stored one element a store.
TEST(GeneratedCudaSource, AScanReadsAndStoresFourElementsALane) {
  const auto source = [](const std::string& name, const std::string& expression,
                         const std::string& shape, const generator::CudaChoices& c = {}) {
    return scan_source(name, expression, shape, 1, c);
  };
  const std::string masked = source("scan_masked", "torch.cumsum(x * (x > 0), dim=1)", "64, 1028");
  EXPECT_EQ(occurrences(masked, "kf_row_load4(kf_rv"), 1u) << masked;
  EXPECT_EQ(occurrences(masked, "kf_row_store4(b"), 1u) << masked;
  EXPECT_EQ(occurrences(masked, "kf_r + 512 <= 1028"), 1u) << masked;
  EXPECT_EQ(occurrences(masked, "kf_n["), 0u) << masked;
  EXPECT_EQ(occurrences(masked, "kf_r < 1028; kf_r += 128"), 1u) << masked;  // the last 4
  // a float sum's groups of 128 scanned in float, the carry of the groups before in double
  EXPECT_EQ(occurrences(masked, "double kf_c = double(0);"), 1u) << masked;
  EXPECT_EQ(occurrences(masked, "float kf_q[4];"), 1u) << masked;
  EXPECT_EQ(occurrences(masked, "const float w = __shfl_up_sync"), 1u) << masked;
  EXPECT_EQ(occurrences(masked, "const float kf_cl = static_cast<float>(kf_c - "), 1u) << masked;
  EXPECT_EQ(occurrences(masked, "kf_ch + ((kf_p + kf_q[kf_e]) + kf_cl)"), 1u) << masked;
  const std::string shorter = source("scan_shorter", "torch.cumsum(x[:, :-1], dim=1)", "64, 1028");
  EXPECT_EQ(occurrences(shorter, "kf_row_load4(kf_rv"), 1u) << shorter;
  EXPECT_EQ(occurrences(shorter, "kf_row_store4(b"), 0u) << shorter;  // rows of 1027 stored
  const std::string odd = source("scan_odd", "torch.cumprod(x, dim=1)", "64, 1027");
  EXPECT_EQ(occurrences(odd, "kf_row_load4(kf_rv") + occurrences(odd, "kf_r + 512"), 0u) << odd;
  // scan_prefetch: the next step's values loaded (kf_n) before this step's are scanned: loads for
  // the first step and in the loop, stores in the loop and for the last step
  generator::CudaChoices prefetch;
  prefetch.scan_prefetch = true;
  const std::string ahead =
      source("scan_masked", "torch.cumsum(x * (x > 0), dim=1)", "64, 1028", prefetch);
  EXPECT_EQ(occurrences(ahead, "kf_row_load4(kf_rv"), 2u) << ahead;
  EXPECT_EQ(occurrences(ahead, "kf_row_store4(b"), 2u) << ahead;
  EXPECT_EQ(occurrences(ahead, "kf_r + 1024 <= 1028"), 1u) << ahead;
  EXPECT_EQ(occurrences(ahead, "float kf_n[16];"), 1u) << ahead;
  generator::CudaChoices scalar;
  scalar.row_vectors = false;
  const std::string off =
      source("scan_masked", "torch.cumsum(x * (x > 0), dim=1)", "64, 1028", scalar);
  EXPECT_EQ(occurrences(off, "kf_r + 512") + occurrences(off, "kf_r + 1024"), 0u) << off;
}

// KernelBench's 91_cumsum_reverse and 92_cumsum_exclusive as they write them: one scan kernel
// each (no copy of a flipped or concatenated scan), reading and storing four elements a lane.
TEST(GeneratedCudaSource, AReversedOrExclusiveScanIsOnePass) {
  const auto source = [](const std::string& name, const std::string& expression) {
    return scan_source(name, expression, "64, 1028", 1);
  };
  const std::string reversed = source("scan_reversed", "torch.cumsum(x.flip(1), dim=1).flip(1)");
  const std::string exclusive =
      source("scan_exclusive",
             "torch.cat((torch.zeros_like(x.select(1, 0).unsqueeze(1)), "
             "torch.cumsum(x.narrow(dim=1, start=0, length=x.size(1) - 1), dim=1)), dim=1)");
  // ones before a cumulative product: an exclusive product, one pass too
  const std::string product = source(
      "scan_exclusive_product",
      "torch.cat((torch.ones_like(x[:, :1]), torch.cumprod(1 + x[:, :-1] * 0.01, dim=1)), 1)");
  for (const auto& s : {reversed, exclusive, product}) {
    EXPECT_EQ(occurrences(s, "__global__"), 1u) << s;
    EXPECT_EQ(occurrences(s, "kf_row_load4(kf_rv"), 1u) << s;
    EXPECT_EQ(occurrences(s, "kf_row_store4(b"), 1u) << s;
  }
  // its lane's four elements loaded, then scanned and stored, from R - 4 - q
  EXPECT_EQ(occurrences(reversed, "kf_r4 = 1024 - (kf_r + kf_k * 128 + lane * 4)"), 2u) << reversed;
  EXPECT_EQ(occurrences(exclusive, "kf_r + 512 <= 1027"), 1u) << exclusive;
  EXPECT_EQ(occurrences(product, "kf_r + 512 <= 1027"), 1u) << product;
  EXPECT_EQ(occurrences(product, "float kf_c = float(1);"), 1u) << product;  // the product's carry
  EXPECT_EQ(occurrences(product, "kf_ch"), 0u) << product;  // a product's groups: no split carry
  // the exclusive sum's element: its carry, then the lane's elements walked before it
  EXPECT_EQ(occurrences(exclusive, "kf_ch + ((kf_e == 0 ? kf_p : kf_p + kf_q[kf_e - 1]) + kf_cl)"),
            1u)
      << exclusive;
}

// Warps of a block sharing a scan's row (the choice scan_warps; KernelBench's 89-93, rows of
// 32768): by rule 16 where the row takes steps of 8192 leaving fewer than 512 elements to warp 0,
// halved until it does; each warp's groups scanned as with a warp a row, the warps' totals added
// through shared memory in double (a float sum's), one barrier a step.
TEST(GeneratedCudaSource, ScanWarpsShareALongRow) {
  const auto source = [](const std::string& name, const std::string& expression,
                         const std::string& shape,
                         int warps = 0) { return scan_source(name, expression, shape, warps); };
  const std::string sum = source("scan_long", "torch.cumsum(x, dim=1)", "4, 16384");
  EXPECT_EQ(occurrences(sum, "__launch_bounds__(512)"), 1u) << sum;
  EXPECT_EQ(occurrences(sum, "__shared__ double kf_scan_total[2][16];"), 1u) << sum;
  EXPECT_EQ(occurrences(sum, "kf_r + 8192 <= 16384; kf_r += 8192"), 1u) << sum;
  EXPECT_EQ(occurrences(sum, "kf_r + kf_wp * 512 + kf_k * 128 + lane * 4"), 3u) << sum;
  EXPECT_EQ(occurrences(sum, "    __syncthreads();\n    double kf_pw"), 1u) << sum;
  EXPECT_EQ(occurrences(sum, "kf_ch + (kf_l[kf_k * 4 + kf_e] + kf_cl)"), 1u) << sum;
  EXPECT_EQ(occurrences(sum, "live && kf_wp == 0 && kf_r < 16384"), 1u) << sum;
  EXPECT_EQ(occurrences(sum, "<<<4, 512, 0, stream>>>"), 1u) << sum;
  // an exclusive scan of rows of 16384 reads 16383: 8191 left past a step of 8192, 4095 past
  // steps of 4096, ..., 511 past 512: a warp a row
  const std::string exclusive = source(
      "scan_exclusive_long",
      "torch.cat((torch.zeros_like(x[:, :1]), torch.cumsum(x[:, :-1], dim=1)), 1)", "4, 16384");
  EXPECT_EQ(occurrences(exclusive, "kf_scan_total"), 0u) << exclusive;
  EXPECT_EQ(occurrences(exclusive, "kf_r + 512 <= 16383"), 1u) << exclusive;
  // a product's totals in float; the choice 4 over rows of 1028 halved to 2 (steps of 1024)
  const std::string product = source("scan_product", "torch.cumprod(x, dim=-1)", "4, 1028", 4);
  EXPECT_EQ(occurrences(product, "__shared__ float kf_scan_total[2][2];"), 1u) << product;
  EXPECT_EQ(occurrences(product, "kf_r + 1024 <= 1028"), 1u) << product;
  EXPECT_EQ(occurrences(product, "float kf_b = kf_c * kf_pw;"), 1u) << product;
  // 1: a warp a row, 8 rows a block of 256 threads
  const std::string one = source("scan_long", "torch.cumsum(x, dim=1)", "4, 16384", 1);
  EXPECT_EQ(occurrences(one, "kf_scan_total"), 0u) << one;
  EXPECT_EQ(occurrences(one, "<<<1, 256, 0, stream>>>"), 1u) << one;
}

TEST(GeneratedCudaSource, FewOutputsAreNotTiledByDefault) {
  const auto marks = [](const std::string& source) {
    return occurrences(source, generator::kContractionMark);
  };
  const OpCase linear_relu{"few_outputs",
                           "x, w, b",
                           "torch.relu(F.linear(x, w, b))",
                           {"[torch.randn(64, 1600), torch.randn(128, 1600), torch.randn(128)]"}};
  EXPECT_EQ(marks(cuda_source(linear_relu)), 0u);
  generator::CudaChoices tiled;
  tiled.tile = 32;
  EXPECT_EQ(marks(cuda_source(linear_relu, tiled)), 1u);
  // 512 x 512 outputs: 64 tiles of 64 x 64, too many outputs to read A and B once for each
  EXPECT_EQ(marks(cuda_source({"many_outputs",
                               "x, w",
                               "F.linear(x, w)",
                               {"[torch.randn(512, 64), torch.randn(512, 64)]"}})),
            1u);
  // A @ B reads B down its columns: tiled from fewer outputs (256 x 256 here), untiled below
  const auto matmul = [&](int m) {
    return cuda_source({"matmul_" + std::to_string(m),
                        "a, b",
                        "a @ b",
                        {"[torch.randn(" + std::to_string(m) + ", 512), torch.randn(512, 256)]"}});
  };
  EXPECT_EQ(marks(matmul(256)), 1u);
  EXPECT_EQ(marks(matmul(16)), 0u);
  // A 1 x 1 convolution reads its input across the channels, H x W apart (its last dimension of K
  // with more than one element): 32768 outputs, tiled
  EXPECT_EQ(marks(cuda_source({"pointwise_conv",
                               "x, w",
                               "F.conv2d(x, w)",
                               {"[torch.randn(4, 64, 16, 16), torch.randn(32, 64, 1, 1)]"}})),
            1u);
  EXPECT_TRUE(generator::few_outputs(64, 128, 1, 32, true));
  EXPECT_FALSE(generator::few_outputs(256, 256, 1, 64, false));
  EXPECT_FALSE(generator::few_outputs(512, 512, 1, 64, true));
  EXPECT_FALSE(generator::few_outputs(64, 128, 16, 32, true));  // 128 blocks
}

// The generator's refusal of `c` on the CPU backend (its message); "" where it wrote a kernel.
std::string refusal(const OpCase& c) {
  const auto root = std::filesystem::temp_directory_path() / "kforge_generator_cpu_cases";
  const auto& task = exported(write_op_task(c, root));
  if (!task.ok) return "the export failed: " + task.error;
  auto g = generator::generate_kernel(
      {task.dir, task.doc["directions"]["forward"], "forward", "cpu", {}, false});
  return g ? std::string{} : g.error;
}

TEST(GeneratedCpuLimits, AnOperatorItCannotLowerIsNamedWithTheConfig) {
  const std::string why =
      refusal({"sort", "x", "torch.sort(x, dim=1).values * 2", {"[torch.randn(3, 4)]"}});
  EXPECT_NE(why.find("aten.sort"), std::string::npos) << why;
  EXPECT_NE(why.find("config 0 (shape_set=0)"), std::string::npos) << why;
}

// A tensor with no elements (a row of one without its last element) is refused by name, not
// lowered: the index arithmetic divides by its dimensions (it stopped the generator with SIGFPE).
TEST(GeneratedCpuLimits, AnEmptyTensorIsRefusedByName) {
  const std::string why =
      refusal({"empty_scan", "x", "torch.cumsum(x[..., :-1], dim=-1)", {"[torch.randn(3, 1)]"}});
  EXPECT_NE(why.find("no elements"), std::string::npos) << why;
}

}  // namespace
}  // namespace kforge::test
