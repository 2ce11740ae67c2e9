// The kernel generator's op table test (ggml's test-backend-ops is the model): each case is a
// forward function over a few operators, with several sets of input shapes (odd sizes,
// broadcasting, views that make inputs non-contiguous inside the function); it becomes a task
// folder whose configs are the shape sets, the generator writes its kernel and the evaluator
// checks it against PyTorch on every config. The CPU suite runs in CI, the CUDA one under `gpu`.
#pragma once

#include <filesystem>
#include <initializer_list>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "evaluation/compiler.hpp"
#include "generator/lowering.hpp"
#include "tests/test_support.hpp"

namespace kforge::test {

struct OpCase {
  std::string name;                 ///< names the test
  std::string args;                 ///< the function's parameters: "x, y"
  std::string body;                 ///< what it returns, over them
  std::vector<std::string> inputs;  ///< one Python list of tensors per shape set
  double tolerance = 0;             ///< the task's atol = rtol; 0: the default
};

const std::vector<OpCase>& op_cases();

/// The cases of these names, in this order; throws std::invalid_argument naming one no case has,
/// so that a renamed case fails the tests that pick it rather than leaving them nothing to check.
std::vector<OpCase> op_cases_named(std::initializer_list<std::string_view> names);

/// Writes the case as a task folder under `root` and returns its path.
std::string write_op_task(const OpCase& c, const std::filesystem::path& root);

/// The cases with matrix products or convolutions: what the generator's library mode changes.
std::vector<OpCase> library_cases();

/// Exports the task, generates its kernel of `direction` for `backend` and evaluates it on every
/// config (2 seeds each, untimed), built with kforge's light headers. An empty string when the
/// verdict is correct; else what went wrong.
/// `library`: with library calls for the matrix products and convolutions, which the source must
/// then have.
std::string check_generated(const std::string& task_dir, evaluation::Backend backend,
                            bool library = false, const std::string& direction = "forward");

/// As check_generated, forward, with a transposed convolution of stride above 1 summed `sum`'s
/// way rather than the backend's default.
std::string check_generated_transposed(const std::string& task_dir, evaluation::Backend backend,
                                       generator::TransposedSum sum);

/// The cases with transposed convolutions of stride above 1 (small ones; large enough to tile).
std::vector<OpCase> transposed_cases();
/// A case summed one way, as a test's name reads it ("conv_transposed_strides_phase_batches").
std::string transposed_case_name(const std::tuple<OpCase, generator::TransposedSum>& param);

/// Cases whose products are large enough for the tiled contraction kernel (M and N of 16 or
/// more), partial tiles included, with KernelBench's tolerance (1e-2): what the TF32 choice runs.
std::vector<OpCase> tensor_core_cases();

/// Cases of exp and log (activations, softmax and cross entropy, a KL divergence's sum) with a
/// tolerance of 1e-3, the least at which the built-in proposer offers fast_math.
std::vector<OpCase> fast_math_cases();

/// Rows of 300001 (three: a softmax, a log-softmax and a layer norm of each), longer than a
/// cluster's registers hold at the default 256 threads a block: unsplit (partials 1; so few rows
/// are otherwise split into chunks), the generator takes blocks of 512 for them, whose cluster
/// caches the row in shared memory.
OpCase wide_shared_cache_case();

/// As check_generated, on the CUDA backend with exp and log on the GPU's approximations
/// (CudaChoices::fast_math), which the source must then define.
std::string check_generated_fast_math(const std::string& task_dir);

/// check_generated on the CUDA backend, timed too (the timing's own checks: a timed call's output,
/// the answer to inputs refilled in place), then its kernel trace recorded; the source must contain
/// `must_contain`, and a kernel the trace names must contain `must_launch` (where not empty), and
/// nothing the kernel printed `must_not_print`.
std::string check_generated_timed(const std::string& task_dir, const std::string& must_contain,
                                  const std::string& must_launch = "",
                                  const std::string& must_not_print = "");

/// As check_generated, on the CUDA backend with the contractions tiled (tiles of 32, 2 x 2 outputs
/// a thread), which the source must then have: by size, products this small are not tiled.
std::string check_generated_tiled(const std::string& task_dir,
                                  const std::string& direction = "forward");

/// As check_generated, on the CUDA backend with the contractions on the tensor cores (TF32),
/// which the source must then have.
std::string check_generated_tf32(const std::string& task_dir);

/// Windows that overlap (pooling at stride 1 with padding and dilation, a depthwise convolution),
/// odd widths: what the choice `window` (neighbouring outputs a thread) changes.
std::vector<OpCase> window_cases();
/// Unpadded windows at stride 1 (depthwise convolutions, pools) of rows a multiple of 4 elements
/// and not: what the choice `window_ring` (input rows through rings in shared memory) changes.
std::vector<OpCase> ring_cases();
/// Pooling windows of 33 to 1023 elements (a thread an output, two loops: no window outputs, no
/// interior walk).
std::vector<OpCase> long_window_cases();

/// As check_generated, on the CUDA backend with `window` outputs a thread, which the source must
/// then have (and the choices `interior` and `window_stores` where asked; with `rows` over 1,
/// rows of them a thread, which the source must have instead; `fills` the choice
/// `window_fills`).
std::string check_generated_windows(const std::string& task_dir, int window, bool interior = false,
                                    bool stores = false, int rows = 1, int fills = -1);

/// As check_generated, on the CUDA backend with `rows` output rows a block walks with its windows'
/// input rows through rings (the choice window_ring), `step` of them a step of the band (the
/// choice window_rows), which the source must then have.
std::string check_generated_ring(const std::string& task_dir, int rows, int step = 1);

/// As check_generated, on the CUDA backend with `spread` outputs a thread a block's width apart,
/// which the source must then have.
std::string check_generated_spread(const std::string& task_dir, int spread);
/// As check_generated on the CUDA backend with the next scan step's values loaded before this
/// step's are scanned (the choice scan_prefetch), which the source must then have.
std::string check_generated_scan_prefetch(const std::string& task_dir);
/// Generates with the choice scan_warps at `warps` (1: a warp a row) and checks the kernel, whose
/// source must have a scan of `sharing` warps a row (the choice halved where the rows are short).
std::string check_generated_scan_warps(const std::string& task_dir, int warps, int sharing);
/// As check_generated on the CUDA backend with column walks launched in slices of `blocks`
/// blocks an SM (the choice column_launch), which the source must then have.
std::string check_generated_column_launch(const std::string& task_dir, int blocks);
/// As check_generated on the CUDA backend with column walks' columns split across `lanes` lanes a
/// block apart (the choice column_split), which the source must then have.
std::string check_generated_column_split(const std::string& task_dir, int lanes);
/// As check_generated on the CUDA backend with the choice column_vectors `on` or off and
/// column_split `lanes` (0 by rule): on, a column walk's row cache loaded four outputs' elements a
/// load, which the source must then have.
std::string check_generated_column_vectors(const std::string& task_dir, bool on, int lanes);
/// As check_generated on the CUDA backend with the choice interior (an output's window inside its
/// input walked unchecked), which the source must then have.
std::string check_generated_interior(const std::string& task_dir);
/// As check_generated on the CUDA backend with blocks of `threads` threads and the choice online
/// `online`, where a cluster's row cache is then in shared memory, which the source must then have.
std::string check_generated_shared_cache(const std::string& task_dir, int threads, int online);
/// As check_generated on the CUDA backend with the default choices and the reductions unsplit
/// (partials 1, as KernelBench's hundreds of rows are), where the rows of wide_shared_cache_case
/// take wider blocks whose cluster caches them in shared memory, which the source must then have.
std::string check_generated_wide_shared_cache(const std::string& task_dir);

/// Backward test tasks in robust-kbench's shape (tests/tasks) the generator writes kernels for.
std::vector<std::string> backward_cases();
/// A copy of test task `name`'s backward files in a folder of its own per `backend` (the generated
/// kernel is written beside the task, and the CPU and GPU suites may run at once).
std::string backward_task_copy(const std::string& name, evaluation::Backend backend);

void PrintTo(const OpCase& c, std::ostream* os);

}  // namespace kforge::test
