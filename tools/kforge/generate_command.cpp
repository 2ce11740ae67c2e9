#include "tools/kforge/generate_command.hpp"

#include <fstream>
#include <iostream>
#include <map>

#include "evaluation/task_export.hpp"
#include "generator/generate.hpp"
#include "tools/kforge/command_line.hpp"

namespace kforge::cli {

int run_generate(const std::vector<std::string>& args) {
  std::string task, backend = "cuda", direction = "forward", out, cache;
  generator::CudaChoices cuda;
  bool library = false;
  CommandLine line("generate",
                   "Writes a kernel for a task direction from the ATen graph its export records "
                   "for each config (the kernel generator: pointwise chains fused, reductions with "
                   "what reads them, one kernel set per config). Check it with `kforge eval`.",
                   "exit status: 0 written, 1 the generator cannot write this task (it says which "
                   "op stops it), 2 the task cannot be exported");
  auto& app = line.app();
  app.add_option("--task", task, "the task folder")->required()->type_name("DIR");
  add_choice(app, "--backend", backend, {"cpu", "cuda"}, "the kernel's backend (default cuda)");
  add_choice(app, "--direction", direction, {"forward", "backward"}, "default forward");
  app.add_option("--out", out, "write the source here instead of printing it")->type_name("FILE");
  app.add_option("--block-threads", cuda.block_threads, "CUDA: threads per block (default 256)")
      ->check(CLI::IsMember({32, 64, 128, 256, 512, 1024}));
  app.add_option("--group", cuda.group,
                 "CUDA: threads per outer index of a reduction: 1, 2, 4, 8, 16, 32, 0 (the block) "
                 "or -1 (by the reduced size; default)")
      ->check(CLI::IsMember({-1, 0, 1, 2, 4, 8, 16, 32}));
  app.add_option("--tile", cuda.tile,
                 "CUDA: a contraction's (matrix product's, convolution's) output tile, 0 for none, "
                 "-1 by its size (default)")
      ->check(CLI::IsMember({-1, 0, 32, 64, 128}));
  app.add_option("--micro", cuda.micro,
                 "CUDA: outputs per thread along each side of a tile (default 4)")
      ->check(CLI::IsMember({2, 4, 8}));
  app.add_option("--elements", cuda.elements,
                 "CUDA: elements per thread of a pointwise kernel: 1, 2, 4, 8, or 0 by rule (8 "
                 "where an element evaluates two special functions or more, such as a softplus's "
                 "exp and log1p, and holds at most four loaded values, else 4; halved while the "
                 "grid would have fewer than 264 blocks; default)")
      ->check(CLI::IsMember({0, 1, 2, 4, 8}));
  app.add_flag("--tf32", cuda.tf32,
               "CUDA: the tiled contractions' products on the tensor cores in TF32 (10 mantissa "
               "bits; sm_80 and newer): for tasks whose tolerance admits it, the verdict decides");
  app.add_flag("--index32", cuda.index32,
               "CUDA: reduction and scan kernels index in 32 bits where every offset fits "
               "(pointwise kernels always do)");
  app.add_option("--unroll", cuda.unroll,
                 "CUDA: elements of a row a reduction's thread loads before it combines them, 0 "
                 "by rule (8 where a warp or more shares the row, else 4; default)")
      ->check(CLI::IsMember({0, 2, 4, 8, 16}));
  app.add_option("--window", cuda.window,
                 "CUDA: neighbouring outputs one thread of a short-window reduction (pooling, a "
                 "depthwise convolution) computes, its windows' loads merged and issued at once; 1 "
                 "a thread an output; 0 by rule (4 where every load along the row is a 16-byte "
                 "load of four elements, else 1; default)")
      ->check(CLI::IsMember({0, 1, 2, 4, 8}));
  app.add_option("--spread", cuda.spread,
                 "CUDA: outputs one thread of a short-window reduction (pooling, a depthwise "
                 "convolution) computes a block's width apart, their windows' loads issued at "
                 "once; 0 by rule (4 where 1024 blocks remain, else 2 or 1; default)")
      ->check(CLI::IsMember({0, 1, 2, 4, 8}));
  app.add_option("--online", cuda.online,
                 "CUDA: a row's maximum and its sum of exponentials (softmax, cross entropy): 1 in "
                 "one online pass, 2 in two passes over registers where the row cache holds the "
                 "row in a block; 0 by rule (2; default)")
      ->check(CLI::IsMember({0, 1, 2}));
  bool no_row_cache = false;
  app.add_flag("--no-row-cache", no_row_cache,
               "CUDA: reduction kernels read a row from memory in each pass over it, rather than "
               "once into registers where a thread's share is short");
  app.add_flag("--interior", cuda.interior,
               "CUDA: a short window (pooling, a depthwise convolution) whose window lies inside "
               "the input is walked without its border checks, the border's outputs with them "
               "(default: a check an element)");
  bool no_window_vectors = false;
  app.add_flag("--no-window-vectors", no_window_vectors,
               "CUDA: window outputs (--window 2, 4, 8) load each element of their windows on its "
               "own, rather than the aligned groups of four that hold them, 16 bytes a load");
  bool no_row_vectors = false;
  app.add_flag("--no-row-vectors", no_row_vectors,
               "CUDA: a reduction's threads read a contiguous float row one element a load, a "
               "group's width apart, rather than four consecutive elements a load (16 bytes)");
  bool no_pointwise_vectors = false;
  app.add_flag("--no-pointwise-vectors", no_pointwise_vectors,
               "CUDA: a pointwise kernel's threads take their elements a block's width apart, a "
               "load each, rather than four consecutive ones, 16 bytes a load");
  app.add_flag("--scan-prefetch", cuda.scan_prefetch,
               "CUDA: a scan's steps of 512 elements (row vectors) load the next step's values "
               "before they scan this one's, rather than loading their values, then scanning them");
  app.add_option("--scan-warps", cuda.scan_warps,
                 "CUDA: warps of a block that share a scan's row, each step 512 elements a warp, "
                 "their totals added through shared memory; 1: a warp a row; 0 by rule (16, "
                 "halved while the step is longer than the row; default)")
      ->check(CLI::IsMember({0, 1, 2, 4, 8, 16, 32}));
  app.add_flag("--window-stores", cuda.window_stores,
               "CUDA: window outputs (--window 2, 4, 8) are stored by their warp together, 32 "
               "consecutive a store, through shared memory");
  app.add_option("--window-rows", cuda.window_rows,
                 "CUDA: rows of window outputs (--window 2, 4, 8) a thread computes, the output "
                 "rows before the last dimension's in one plane (a 2-D pool's), so that the input "
                 "rows their windows share are loaded once; not with --window-stores or "
                 "--interior; 0 by rule (2 at 4 outputs a row where the windows are padded along "
                 "the rows and every load is a 16-byte load, else 1; default); with "
                 "--window-ring, the output rows a thread computes at each step of its band (0 by "
                 "rule: 2 where the rings hold a padded window's padding, else 1)")
      ->check(CLI::IsMember({0, 1, 2, 4}));
  app.add_option("--window-ring", cuda.window_ring,
                 "CUDA: output rows a block of a short-window reduction walks with its windows' "
                 "input rows streamed by cp.async through rings in shared memory (windows at "
                 "stride 1, padded or not, of float rows a multiple of 4 elements; ignored "
                 "elsewhere); 0: none; -1 by rule (8 where the windows are unpadded and span 2 "
                 "or 3 columns and 2 rows or more, or padded, spanning 3 or 4 columns and 2 rows "
                 "or more, with the ring holding their padding; default)")
      ->check(CLI::Range(-1, 1024));
  app.add_option("--window-fills", cuda.window_fills,
                 "CUDA: window outputs' vector loads hold their windows' padding (a 1-D pool's), "
                 "put in place of the groups of four outside the row once, so that the windows "
                 "read them without a check a tap: 1 where it applies, 0 never, -1 by rule "
                 "(where a window's taps are dilated; default)")
      ->check(CLI::Range(-1, 1));
  app.add_option("--column-launch", cuda.column_launch,
                 "CUDA: a reduction whose thread walks a column (across rows) launched in slices "
                 "of this many blocks an SM, one after another, so that fewer columns are walked "
                 "at once, each column's loads 8 at a time unless --unroll says; 0: its whole "
                 "grid in one launch; -1 by rule (4 where the walk is one pass of a sum, mean, "
                 "maximum or minimum over 1024 elements or more, else 0; default)")
      ->check(CLI::IsMember({-1, 0, 1, 2, 4, 8}));
  app.add_option("--column-split", cuda.column_split,
                 "CUDA: a reduction whose thread walks a column (across rows) splits each column "
                 "across this many lanes a block's threads / N apart, their results combined in "
                 "shared memory; 1: a thread a column; 0 by rule (4 where the column has 32 "
                 "elements or more, else 1; default)")
      ->check(CLI::IsMember({0, 1, 2, 4, 8}));
  bool no_column_vectors = false;
  app.add_flag("--no-column-vectors", no_column_vectors,
               "CUDA: a column walk whose row cache holds its column takes one output a thread, "
               "rather than four neighbouring ones whose elements it loads and stores 16 bytes "
               "at a time");
  app.add_flag("--fast-math", cuda.fast_math,
               "CUDA: exp and log (and sigmoid, SiLU, softplus, softmax's exponentials) on the "
               "GPU's approximations (__expf, __logf, __log2f, __log10f): for tasks whose "
               "tolerance admits them, the verdict decides");
  bool no_cluster = false;
  app.add_flag("--no-cluster", no_cluster,
               "CUDA: a row too long for one block's row cache is read once a pass by one block, "
               "rather than once by a cluster of blocks that each hold a slice (sm_90)");
  app.add_flag("--library", library,
               "matrix products and convolutions as library calls (cuBLAS, cuDNN through ATen) "
               "with the rest fused around them; the experiment's library policy flags or forbids "
               "such a kernel");
  std::string transposed_sum;
  const std::map<std::string, generator::TransposedSum> transposed_sums{
      {"every-offset", generator::TransposedSum::every_offset},
      {"output-phases", generator::TransposedSum::output_phases},
      {"phase-batches", generator::TransposedSum::phase_batches}};
  app.add_option(
         "--transposed-sum", transposed_sum,
         "how a transposed convolution of stride above 1 sums: every-offset (those an "
         "output does not take guarded off), output-phases (the offsets found from each "
         "output), phase-batches (outputs grouped by phase, one implicit GEMM over them); default "
         "output-phases on the CPU, phase-batches on CUDA")
      ->check(CLI::IsMember(transposed_sums));
  int64_t partials = 0;
  app.add_option("--partials", partials,
                 "about how many partial results (outputs x chunks) a reduction of few outputs "
                 "over many elements (a loss's sum, a norm's statistics over few rows) is split "
                 "into before they are combined; 0 by rule (16384 where rows are reduced, 65536 "
                 "where columns are; default)")
      ->check(CLI::IsMember({0, 1024, 4096, 16384, 65536}));
  bool unbatched_steps = false;
  app.add_flag("--unbatched-steps", unbatched_steps,
               "an RNN layer's input products (x_t @ W_ih^T + b_ih) computed at each step, as the "
               "graph has them, rather than as one matrix product over the whole sequence before "
               "the layer's steps");
  bool whole_gates = false;
  app.add_flag("--whole-gate-products", whole_gates,
               "a recurrent cell's gates computed as one product of all their columns, then "
               "split, as the graph has them, rather than one product a gate with the cell as "
               "their epilogue (products of fewer than 16 rows)");
  app.add_option("--cache", cache, "export cache (default ~/.cache/kforge or $KFORGE_CACHE)")
      ->type_name("DIR");
  if (auto code = line.parse(args)) return *code;
  cuda.row_cache = !no_row_cache;
  cuda.cluster = !no_cluster;
  cuda.window_vectors = !no_window_vectors;
  cuda.row_vectors = !no_row_vectors;
  cuda.pointwise_vectors = !no_pointwise_vectors;
  cuda.column_vectors = !no_column_vectors;
  if (cuda.tile > 0 && !generator::valid_tiling(cuda.tile, cuda.micro)) {
    std::cerr << "kforge generate: a tile of " << cuda.tile << " with " << cuda.micro
              << " per thread needs (tile / micro)^2 threads, 64 to 1024\n";
    return 2;
  }
  evaluation::ExportOptions o;
  o.cache_dir = cache.empty() ? evaluation::default_cache_dir() : cache;
  auto exported = evaluation::export_task(task, o);
  if (!exported.ok) {
    std::cerr << "kforge generate: " << exported.error << "\n";
    return 2;
  }
  const auto& doc = exported.doc["directions"][direction];
  if (doc.is_null() || doc.contains("error")) {
    std::cerr << "kforge generate: the task has no " << direction << " direction"
              << (doc.contains("error") ? ": " + doc["error"].as_string() : std::string()) << "\n";
    return 2;
  }
  generator::GenerateRequest r{exported.dir, doc, direction, backend, cuda, library};
  if (!transposed_sum.empty()) r.transposed_sum = transposed_sums.at(transposed_sum);
  r.partials = partials;
  r.batch_steps = !unbatched_steps;
  r.split_gates = !whole_gates;
  auto generated = generator::generate_kernel(r);
  if (!generated) {
    std::cerr << "kforge generate: " << task << " " << direction << ": " << generated.error << "\n";
    return 1;
  }
  std::cerr << "kforge generate: " << generated->summary << "\n";
  if (out.empty()) {
    std::cout << generated->source;
    return 0;
  }
  std::ofstream file(out);
  file << generated->source;
  if (!file) {
    std::cerr << "kforge generate: cannot write " << out << "\n";
    return 2;
  }
  return 0;
}

}  // namespace kforge::cli
