// The host function's launches from tables. An RNN's steps are thousands of launches of a few
// kernels, each on other buffers (KernelBench's 36_LSTMHn at full size: 9212 launches of 8
// kernels); one statement each, the host function took g++ 181 s (38_LSTMBidirectional's 762 s,
// past the evaluator's 300 s). A run of launches that pass only buffer pointers, each maybe moved
// by a constant number of elements, becomes one loop over a table: a row a launch (the kernel,
// its grid and block, each argument's pointer and how far it is moved), and one call statement
// for each kernel the run launches. The launches are the same, in the same order on the stream.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace kforge::generator {

/// A run of fewer launches than this is left as it is.
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
};

/// `calls` cut at `ends` (EmittedKernels::step_ends) into steps, each run of at least kTableRun
/// launches a table. `stored` gives the buffers allocated in kf_stored their place in it (their
/// pointers are read from it once); the other buffers a table uses (inputs, library calls'
/// results) are read by name, where each run begins.
HostSteps tabled_steps(const std::string& calls, const std::vector<size_t>& ends,
                       const std::map<int, size_t>& stored);

/// The buffers whose tensor or pointer (t<id>, b<id>) `text` names: those the host function must
/// declare by name.
std::set<int> named_buffers(const std::string& text);

}  // namespace kforge::generator
