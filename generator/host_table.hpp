// The host function's launches from tables. An RNN's steps are thousands of launches of a few
// kernels, each on other buffers (KernelBench's 36_LSTMHn at full size: 9212 launches of 8
// kernels), and with library calls as many cuBLAS calls between them; one statement each, the
// host function took g++ 181 s (38_LSTMBidirectional's 762 s, past the evaluator's 300 s). A run
// of launches that pass only buffer pointers, each maybe moved by a constant number of elements,
// and of library calls that differ only in the tensors they read becomes one loop over a table: a
// row a step (its case; a launch's grid, block, and each argument's pointer and how far it is
// moved; a library call's result and the tensors it reads), and one statement for each kernel
// and each call expression the run holds. The steps are the same, in the same order.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace kforge::generator {

/// A run of fewer steps than this is left as it is.
inline constexpr size_t kTableRun = 16;

/// The host's helpers the tables need (a pointer argument read from a row; a buffer's pointer as
/// void*), for the source's prelude.
const char* host_table_prelude();

struct HostSteps {
  /// Each statement: a step's own text, or a run's table and loop.
  std::vector<std::string> steps;
  /// Declares and fills kf_ptr, the pointers the rows name, before the steps; empty where no
  /// run was made a table.
  std::string pointers;
  /// The kernels of the runs that replay as CUDA graphs (generator/table_graph.hpp): their graph
  /// copies and host_graph_prelude go into the source.
  std::set<std::string> graphed;
  /// The stored buffers (`stored`) a table's library call reads as tensors (from kf_stored): they
  /// must be tensors, where the others may be pointers alone (kf_where).
  std::set<int> stored_tensors;
};

/// `calls` cut at `ends` (EmittedKernels::step_ends) into steps, each run of at least kTableRun
/// steps a table can hold a table. `stored` gives the buffers allocated from a table their place
/// in kf_stored and kf_where (their pointers are read from kf_where once); the other buffers a
/// table uses (inputs, library calls' results made outside tables) are read by name where each run
/// begins, and a library call's result made in a table is copied to its names where a statement
/// that stays, or `after` (the return statement), names it. A CUDA run of launches alone whose
/// kernels are all in `graph_kernels` (those with a graph copy) replays as one CUDA graph.
HostSteps tabled_steps(const std::string& calls, const std::vector<size_t>& ends,
                       const std::map<int, size_t>& stored, const std::string& after,
                       const std::set<std::string>& graph_kernels = {});

/// The buffers whose tensor or pointer (t<id>, b<id>) `text` names: those the host function must
/// declare by name.
std::set<int> named_buffers(const std::string& text);

}  // namespace kforge::generator
