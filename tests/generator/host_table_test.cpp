// Launches from tables: tabled_steps turns each run of kTableRun launches or more that pass only
// buffer pointers into one loop over a table, keeps every other step as it was written, and reads
// the pointers of stored tensors from kf_stored, the others by name where the run begins; on CUDA a
// run of launches alone replays as a graph. The op table's cases `stacked_layers` and
// `bidirectional_layers` (hundreds of launches) run the tables; GeneratedCudaGraphs times one.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "generator/host_table.hpp"
#include "generator/packed_rows.hpp"
#include "generator/table_graph.hpp"

namespace kforge::generator {
namespace {

struct Calls {
  std::string text;
  std::vector<size_t> ends;
  void add(const std::string& step) {
    text += step;
    ends.push_back(text.size());
  }
};

/// A table's rows: the integers of its packed kf_packed, unpacked.
std::vector<int64_t> table_rows(const std::string& table) {
  const auto begin = table.find("kf_packed[] = {\n");
  const auto end = table.find("    };", begin);
  if (begin == std::string::npos || end == std::string::npos) return {};
  return unpacked_rows(table.substr(begin + 16, end - begin - 16));
}

/// Whether `rows` holds `part`, in order and together.
bool holds(const std::vector<int64_t>& rows, const std::vector<int64_t>& part) {
  return std::search(rows.begin(), rows.end(), part.begin(), part.end()) != rows.end();
}

std::string listed(const std::vector<int64_t>& rows) {
  std::string out;
  for (int64_t v : rows) out += std::to_string(v) + " ";
  return out;
}

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(HostTable, RunsOfLaunchesBecomeTablesAndOtherStepsStayAsWritten) {
  Calls c;
  // a step no table holds: a library call that reads a pointer
  const std::string library =
      "  t40 = at::mm(t1, at::from_blob(b2, {4})).contiguous();\n  b40 = t40.data_ptr<float>();\n";
  for (int i = 0; i < 20; ++i)  // two kernels, each step's input 64 elements further
    c.add("  k" + std::to_string(3 + i % 2) + "<<<40, 256, 0, stream>>>((b1 + " +
          std::to_string(64 * i) + "), b" + std::to_string(10 + i) + ");\n");
  c.add(library);
  for (size_t i = 0; i < kTableRun - 1; ++i)  // one launch short of a table
    c.add("  k3<<<40, 256, 0, stream>>>(b40, b" + std::to_string(50 + i) + ");\n");
  const std::map<int, size_t> stored = {{10, 0}, {11, 1}};  // the others are named
  const HostSteps out = tabled_steps(c.text, c.ends, stored, "");
  ASSERT_EQ(out.steps.size(), 2 + (kTableRun - 1));
  const std::string& table = out.steps[0];
  EXPECT_NE(table.find("20 steps of 2 case(s)"), std::string::npos) << table;
  // a row a launch: the case, grid, block, then (pointer's place, elements moved) an argument;
  // b1 is kf_ptr[2], b10 and b11 are kf_stored's, b12 to b29 the places after b1's
  std::vector<int64_t> rows;
  for (int64_t i = 0; i < 20; ++i)
    rows.insert(rows.end(), {i % 2, 40, 256, 2, 64 * i, i < 2 ? i : i + 1, 0});
  EXPECT_EQ(table_rows(table), rows) << table;
  // packed: the first two rows as they are, then nine repeats of two rows, each moved by 128
  // elements of b1 and two places
  EXPECT_NE(table.find("      9, 14,\n        0, 40, 256, 2, 128, 3, 0,\n"), std::string::npos)
      << table;
  EXPECT_NE(table.find("        0, 0, 0, 0, 128, 2, 0,\n"), std::string::npos) << table;
  EXPECT_NE(table.find("kf_ptr[2] = kf_pointer(b1);"), std::string::npos) << table;
  EXPECT_EQ(table.find("kf_pointer(b10)"), std::string::npos) << "b10 is kf_stored[0]: " << table;
  EXPECT_NE(table.find("kf_pointer(b12)"), std::string::npos) << table;
  EXPECT_EQ(occurrences(table, "<<<"), 2u) << "a launch statement a kernel: " << table;
  EXPECT_NE(table.find("k4<<<static_cast<unsigned>(kf_l[1]), static_cast<unsigned>(kf_l[2]), 0, "
                       "stream>>>(kf_arg{kf_p, kf_l + 3}, kf_arg{kf_p, kf_l + 5});\n          "
                       "kf_l += 7;"),
            std::string::npos)
      << table;
  EXPECT_EQ(table.find("kf_replay"), std::string::npos) << "no graph copies given: " << table;
  EXPECT_TRUE(out.graphed.empty());
  EXPECT_EQ(out.steps[1], library);
  EXPECT_EQ(out.steps[2], "  k3<<<40, 256, 0, stream>>>(b40, b50);\n");
  EXPECT_NE(out.pointers.find("std::vector<void*> kf_ptr(21);"), std::string::npos) << out.pointers;
  EXPECT_NE(out.pointers.find("kf_i < 2; ++kf_i) kf_ptr[kf_i] = kf_where[kf_i];"),
            std::string::npos)
      << out.pointers;
  EXPECT_TRUE(out.stored_tensors.empty()) << "no library call in a table reads b10 or b11";
}

// A run of launches whose kernels all have graph copies replays as one CUDA graph (kf_graph): the
// copies, launched while it is captured, take each argument's place in the device table and the
// elements it is moved by; the kernels as written stay for where CUDA refuses the graph. A run with
// a kernel that has no copy launches as written.
TEST(HostTable, ARunOfLaunchesWhoseKernelsHaveCopiesReplaysAsAGraph) {
  Calls c;
  for (size_t i = 0; i < kTableRun; ++i)
    c.add("  k" + std::to_string(3 + i % 2) + "<<<40, 256, 0, stream>>>((b1 + " +
          std::to_string(64 * i) + "), b" + std::to_string(10 + i) + ");\n");
  const HostSteps out = tabled_steps(c.text, c.ends, {}, "", {"k3", "k4"});
  ASSERT_EQ(out.steps.size(), 1u);
  const std::string& table = out.steps[0];
  EXPECT_NE(table.find("static kf_graph kf_replay;\n    kf_replay.run(kf_ptr, stream, "
                       "[&](cudaStream_t kf_stream, void* const* kf_tab) {\n    for ("),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("if (kf_tab)\n            k4_graph<<<static_cast<unsigned>(kf_l[1]), "
                       "static_cast<unsigned>(kf_l[2]), 0, kf_stream>>>(kf_tab, kf_at{kf_l[3], "
                       "kf_l[4]}, kf_at{kf_l[5], kf_l[6]});\n          else\n            "
                       "k4<<<static_cast<unsigned>(kf_l[1]), static_cast<unsigned>(kf_l[2]), 0, "
                       "kf_stream>>>(kf_arg{kf_p, kf_l + 3}, kf_arg{kf_p, kf_l + 5});\n"),
            std::string::npos)
      << table;
  EXPECT_EQ(out.graphed, (std::set<std::string>{"k3", "k4"}));
  const HostSteps without = tabled_steps(c.text, c.ends, {}, "", {"k3"});
  EXPECT_EQ(without.steps[0].find("kf_replay"), std::string::npos) << without.steps[0];
  EXPECT_TRUE(without.graphed.empty());
}

// A kernel's graph copy: the same body after each pointer parameter read from the device table;
// a cluster's kernel and one that takes more than pointers get none.
TEST(HostTable, AKernelOfPointersHasAGraphCopy) {
  const std::string functions =
      "__global__ void __launch_bounds__(256) k3(const float* __restrict__ b7, float* __restrict__ "
      "b9) {\n  const int e = threadIdx.x;\n  if (e < 40) b9[e] = b7[e];\n}\n\n"
      "__global__ void __launch_bounds__(256, 2) k5(const float* __restrict__ b1) {\n}\n\n"
      "__global__ void __launch_bounds__(128) k6(float* __restrict__ b2, int64_t kf_block0) {\n}\n";
  const auto copies = graph_copies(functions);
  ASSERT_EQ(copies.size(), 1u);
  EXPECT_EQ(copies.at("k3"),
            "__global__ void __launch_bounds__(256) k3_graph(void* const* __restrict__ kf_tab, "
            "kf_at kf_a0, kf_at kf_a1) {\n"
            "  const float* __restrict__ b7 = static_cast<const float*>(kf_tab[kf_a0.slot]) + "
            "kf_a0.by;\n"
            "  float* __restrict__ b9 = static_cast<float*>(kf_tab[kf_a1.slot]) + kf_a1.by;\n"
            "  const int e = threadIdx.x;\n  if (e < 40) b9[e] = b7[e];\n}\n");
}

TEST(HostTable, CpuCallsBecomeTablesToo) {
  Calls c;
  for (size_t i = 0; i < kTableRun; ++i)
    c.add("  k7((b0 + " + std::to_string(32 * i) + "), b9);\n");
  const HostSteps out = tabled_steps(c.text, c.ends, {}, "");
  ASSERT_EQ(out.steps.size(), 1u);
  std::vector<int64_t> rows;
  for (int64_t i = 0; i < static_cast<int64_t>(kTableRun); ++i)
    rows.insert(rows.end(), {0, 0, 32 * i, 1, 0});
  EXPECT_EQ(table_rows(out.steps[0]), rows) << out.steps[0];
  EXPECT_NE(out.steps[0].find("k7(kf_arg{kf_p, kf_l + 1}, kf_arg{kf_p, kf_l + 3});"),
            std::string::npos)
      << out.steps[0];
  EXPECT_EQ(out.pointers.find("kf_stored["), std::string::npos) << out.pointers;
  EXPECT_EQ(out.steps[0].find("kf_replay"), std::string::npos) << "no graphs on the CPU";
  EXPECT_TRUE(out.graphed.empty());
}

TEST(HostTable, LaunchesThatPassMoreThanPointersAreLeftAsWritten) {
  // a launch in slices (its block offset kf_b), a grid of dim3, a pointer moved backwards, a
  // cluster's launch: none is a row of a table, and each splits the run it falls in
  for (const std::string odd : {"  k5<<<40, 256, 0, stream>>>(b1, b2, kf_b);\n",
                                "  k5<<<dim3(4, 2), 256, 0, stream>>>(b1);\n",
                                "  k5<<<40, 256, 0, stream>>>((b1 - 64), b2);\n",
                                "  {\n    cudaLaunchConfig_t kf_config = {};\n  }\n"}) {
    Calls c;
    for (size_t i = 0; i < kTableRun; ++i) c.add("  k3<<<40, 256, 0, stream>>>(b1, b2);\n");
    c.add(odd);
    for (size_t i = 0; i < kTableRun - 1; ++i) c.add("  k3<<<40, 256, 0, stream>>>(b1, b2);\n");
    const HostSteps out = tabled_steps(c.text, c.ends, {}, "");
    ASSERT_EQ(out.steps.size(), 1 + 1 + (kTableRun - 1)) << odd;
    EXPECT_NE(out.steps[0].find("kf_rows"), std::string::npos);
    EXPECT_EQ(out.steps[1], odd);
  }
}

// An RNN's steps with library calls (cuBLAS between the launches): the calls are rows too, one
// statement for each expression; what they make is aligned in the table and copied out to its
// names where a statement after the table names it; the alignment copies of tensors made outside
// the table are made where the run begins.
TEST(HostTable, LibraryCallsAreRowsAndWhatTheyMakeReachesTheStatementsAfter) {
  Calls c;
  for (int i = 0; i < 10; ++i) {
    const std::string h = std::to_string(100 + 2 * i), g = std::to_string(101 + 2 * i);
    const std::string prev = i == 0 ? "9" : std::to_string(98 + 2 * i);
    c.add("  t" + g + " = at::addmm(t6, t" + prev + ", t4.t(), 1, 1).contiguous();\n  b" + g +
          " = t" + g + ".data_ptr<float>();\n");
    c.add(
        "  if (reinterpret_cast<uintptr_t>(b7) % 16 != 0) {\n    t7 = t7.clone();\n    b7 = "
        "t7.data_ptr<float>();\n  }\n  k2<<<3, 128, 0, stream>>>(b7, b" +
        g + ", b" + h + ");\n");
  }
  const std::map<int, size_t> stored = {{100, 0}, {102, 1}};
  const HostSteps out = tabled_steps(c.text, c.ends, stored, "  return t119;\n", {"k2"});
  ASSERT_EQ(out.steps.size(), 1u);
  const std::string& table = out.steps[0];
  // the first call makes t101 (place 5) from t6, t9 (made before: by name) and t4, then k2 reads
  // it and stores b100 (kf_stored[0])
  const auto rows = table_rows(table);
  EXPECT_TRUE(holds(rows, {0, 5, 2, 3, 4, 1, 3, 128, 6, 0, 5, 0, 0, 0})) << listed(rows) << table;
  EXPECT_EQ(rows.size(), 10u * (5 + 9)) << listed(rows);
  EXPECT_NE(table.find("kf_t[kf_l[1]] = at::addmm(kf_t[kf_l[2]], kf_t[kf_l[3]], "
                       "kf_t[kf_l[4]].t(), 1, 1).contiguous();"),
            std::string::npos)
      << table;
  EXPECT_EQ(occurrences(table, "at::addmm"), 1u) << table;
  EXPECT_NE(table.find("kf_t[2] = t6;"), std::string::npos) << table;
  EXPECT_NE(table.find("kf_t[3] = t9;"), std::string::npos) << table;
  EXPECT_NE(table.find("for (const size_t kf_s : {0, 1}) kf_t[kf_s] = kf_stored[kf_s];"),
            std::string::npos)
      << "the stored h that later calls read: " << table;
  EXPECT_EQ(out.stored_tensors, (std::set<int>{100, 102})) << "they must be tensors, not pointers";
  EXPECT_EQ(occurrences(table, "reinterpret_cast<uintptr_t>(b7)"), 1u) << table;
  EXPECT_LT(table.find("reinterpret_cast<uintptr_t>(b7)"), table.find("kf_pointer(b7)")) << table;
  EXPECT_NE(table.find("    t119 = kf_t[22];\n    b119 = static_cast<float*>(kf_ptr[22]);\n"),
            std::string::npos)
      << "the last call's result, returned: " << table;
  EXPECT_EQ(table.find("t117 = kf_t"), std::string::npos) << "read only in the table: " << table;
  EXPECT_NE(out.pointers.find("std::vector<torch::Tensor> kf_t("), std::string::npos)
      << out.pointers;
  // a library call's tensors are made as it runs: no graph holds them
  EXPECT_EQ(table.find("kf_replay"), std::string::npos) << table;
  EXPECT_TRUE(out.graphed.empty());
}

TEST(HostTable, NamedBuffersAreTheTensorsAndPointersATextNames) {
  EXPECT_EQ(named_buffers("  t40 = at::mm(t1, b2).contiguous();\n  kf_b3 = tb4 + b55x + b6;\n"),
            (std::set<int>{40, 1, 2, 6}));
}

}  // namespace
}  // namespace kforge::generator
