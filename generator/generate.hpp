// The kernel generator's entry: a candidate source for a task direction, written from the ATen
// graph the export recorded for each of its configs (lowered, scheduled and emitted by the rest of
// generator/). The source holds one specialised set of kernels per config and dispatches on the
// arguments' shapes and values; arguments of no config are refused with a sentence, never
// computed wrongly. Every generated kernel goes through the evaluator's verdict like any other.
#pragma once

#include <optional>
#include <string>

#include "common/json.hpp"
#include "common/result.hpp"
#include "generator/emit.hpp"
#include "generator/lowering.hpp"

namespace kforge::generator {

struct GenerateRequest {
  std::string export_dir;
  json::Value direction_doc;  ///< task.json's directions[direction]
  std::string direction;      ///< "forward" or "backward"
  std::string backend;        ///< "cpu" or "cuda"
  CudaChoices cuda;
  /// Matrix products and convolutions as library calls (at::mm, at::convolution: cuBLAS and
  /// cuDNN on the GPU) with the rest fused around them; the experiment's library policy decides
  /// whether such a kernel may run, and flags it.
  bool library_calls = false;
  /// How a transposed convolution of stride above 1 sums; unset: by backend, output_phases on the
  /// CPU, phase_batches on CUDA (each the faster there where measured).
  std::optional<TransposedSum> transposed_sum = std::nullopt;
  /// About how many partial results (outputs x chunks) a reduction of few outputs over many
  /// elements is split into (a loss's sum, a norm's statistics over few rows); 0 by rule
  /// (Lowerer::kRowPartials, kColumnPartials).
  int64_t partials = 0;
  /// An RNN layer's input products, x_t @ W_ih^T + b_ih at each of its steps, computed as one
  /// matrix product over the sequence before its steps (generator/step_products.hpp); false: step
  /// by step, as the graph has them.
  bool batch_steps = true;
  /// A product of fewer than 16 rows split along its columns into a recurrent cell's gates,
  /// computed as one product a gate so that the cell is their epilogue
  /// (generator/gate_products.hpp); not with library_calls (a call a gate); false: whole.
  bool split_gates = true;
};

struct Generated {
  std::string source;
  std::string summary;       ///< "2 configs, 3 kernels (1 reducing)"
  size_t library_steps = 0;  ///< library calls in the source (0 without library_calls)
  size_t contractions = 0;   ///< tiled contraction kernels (CUDA), on the tensor cores or not
  /// Whether the kernels call exp or log, themselves or through the prelude's functions built on
  /// them: what CudaChoices::fast_math changes.
  bool exp_or_log = false;
  /// The families of step products batched over their sequence, over all configs (0 without
  /// batch_steps): what GenerateRequest::batch_steps changes.
  size_t step_families = 0;
  /// The products cut into their gates, over all configs: what GenerateRequest::split_gates
  /// changes.
  size_t gate_splits = 0;
};

/// The source, or a sentence naming the op (and the config) the generator cannot lower yet.
Result<Generated> generate_kernel(const GenerateRequest& request);

}  // namespace kforge::generator
