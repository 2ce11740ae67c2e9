// A kernel's reads of a buffer that all lie at a constant offset or beyond take the buffer through
// a pointer moved by that offset, their indices less it. The kernels of an RNN's steps each read
// their step's slice of the input (x[:, t] starts at t * input_size); moved, they print one
// function (generator/emit.hpp, add_kernel) where each printed its own: KernelBench's 36_LSTMHn
// (512 steps of 6 layers) wrote 1040 kernel functions, 10 MB that nvcc did not build in 7 minutes.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "generator/ir.hpp"

namespace kforge::generator {

/// Offsets are moved in multiples of this many elements (128 bytes of float: a line), so that a
/// moved index keeps its remainders by 4 (the 16-byte loads' alignment) and by a line.
inline constexpr int64_t kMovedOffsetUnit = 32;

class Rebaser {
 public:
  /// Copies the program once: each kernel's moved buffers are added to the copy.
  explicit Rebaser(const Program& program);

  struct Rebased {
    const Program* program = nullptr;  ///< the program to emit `kernel` from (the copy)
    Kernel kernel;                     ///< its loads of moved buffers read the moved ones
    /// Each moved buffer's argument in the kernel's launch, its base's pointer moved
    /// (`(b0 + 4096)` for b<new>: with_arguments); empty where nothing moved.
    std::map<int, std::string> arguments;
  };
  /// `k` with every buffer it only loads, at offsets from a multiple of kMovedOffsetUnit on, read
  /// through a pointer moved there. Not its stores, an accumulator it reads, a gather (an offset
  /// that data adds to) or a load whose index may be negative (a padded window's). The result's
  /// program is valid until the next call.
  Rebased rebase(const Kernel& k);
  /// `calls` with each moved buffer's name (b<new>) as its argument text.
  static std::string with_arguments(const std::string& calls,
                                    const std::map<int, std::string>& arguments);

 private:
  const Program& original_;
  Program program_;
  std::vector<int> wrapped_;  ///< the buffers whose computes the last call replaced
};

}  // namespace kforge::generator
