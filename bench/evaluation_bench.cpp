// Cost of one evaluation and repeatability of its timing.
//
//   build/bench/kforge-evaluation-bench --task tasks/softmax
//       --kernel tasks/softmax/kernels/forward_cuda.cu --backend cuda --config 3 --runs 5
//
// Compiles the kernel once into an empty cache (cold compile) and once more (cache hit), then
// evaluates it `runs` times, each in a new worker process, and prints per run: worker start,
// correctness checks, timing, the whole evaluation (the checker's confirmation and its start
// included), the same evaluation again on the same worker and checker, kernel and eager medians;
// then the spread of the kernel's medians across runs ((max - min) / median of medians).
// --no-checker leaves the checker out, to measure what it costs.
//
// --trace measures what the kernel trace (CUPTI on CUDA, evaluation/worker/launch_trace.hpp) does
// to the timing: per run, on one worker after a warm-up evaluation, an evaluation without the trace
// (A), one with it (B: its trace follows its timing) and one more without (C, in a process whose
// CUPTI has traced); it prints the kernel's and eager's medians of A and C side by side and what B
// took more than A. --counters does the same with B as the evaluator asks for a correct
// candidate's profile: the trace, then the hardware counters of the same launches (CUPTI's range
// profiler, evaluation/worker/kernel_counters.hpp: each kernel replayed once per counter pass).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "evaluation/compiler.hpp"
#include "evaluation/hashing.hpp"
#include "evaluation/task_export.hpp"
#include "evaluation/worker_client.hpp"
#include "evaluation/worker_report.hpp"
#include "evaluation/worker_request.hpp"

using namespace kforge;

namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

/// --trace: A (no trace), B (trace; with `counters`, the counters too), C (neither) on one worker
/// per run.
int trace_runs(const evaluation::WorkerOptions& wo, const std::string& export_dir,
               const std::string& library, int config, int seeds, double max_seconds, int runs,
               const std::string& cache, bool counters) {
  std::printf(
      "| run | A kernel ms | C kernel ms | C / A | A eager ms | C eager ms | C / A | A s | B s "
      "(%s) | launches traced | kernels counted |\n|---|---|---|---|---|---|---|---|---|---|---|\n",
      counters ? "traced and counted" : "traced");
  std::vector<double> kernel_ratio, eager_ratio, extra_s;
  for (int r = 0; r < runs; ++r) {
    evaluation::WorkerClient worker(wo);
    if (auto e = worker.ensure_started(); !e.empty()) {
      std::cerr << e << "\n";
      return 2;
    }
    struct Run {
      evaluation::ConfigReport c;
      double seconds = 0;
      int64_t launches = 0, counted = 0;
    };
    auto evaluate = [&](bool with_trace) -> std::optional<Run> {
      evaluation::WorkerRequest w;
      w.export_dir = export_dir;
      w.library = library;
      w.configs = {config};
      w.seeds = seeds;
      w.seed = static_cast<uint64_t>(r);
      w.timing.max_seconds = max_seconds;
      w.trace = with_trace;
      w.counters = with_trace && counters;
      auto t0 = std::chrono::steady_clock::now();
      auto outcome = worker.evaluate(w.to_json());
      Run out;
      out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const auto report = evaluation::read_worker_report(outcome.result);
      if (report.verdict != EvalVerdict::correct || report.configs.empty()) {
        std::cerr << outcome.result.dump() << "\n";
        return std::nullopt;
      }
      out.c = report.configs.front();
      auto record = json::parse(out.c.record_json);
      const auto& traced = (*record.value)["trace"];
      if (with_trace && !traced.contains("candidate")) {
        std::cerr << "no trace: " << traced.dump() << "\n";
        return std::nullopt;
      }
      out.launches = static_cast<int64_t>(traced["candidate"].as_array().size() +
                                          traced["reference"].as_array().size());
      const auto& counted = (*record.value)["counters"];
      if (w.counters && !counted.contains("candidate")) {
        std::cerr << "no counters: " << counted.dump() << "\n";
        return std::nullopt;
      }
      out.counted = static_cast<int64_t>(counted["candidate"]["kernels"].as_array().size() +
                                         counted["reference"]["kernels"].as_array().size());
      return out;
    };
    // A first evaluation warms the worker and the checker up; it is not compared.
    auto warm = evaluate(false);
    auto a = evaluate(false), b = evaluate(true), c = evaluate(false);
    if (!warm || !a || !b || !c) return 1;
    kernel_ratio.push_back(c->c.kernel.median_ms / a->c.kernel.median_ms);
    eager_ratio.push_back(c->c.eager.median_ms / a->c.eager.median_ms);
    extra_s.push_back(b->seconds - a->seconds);
    std::printf("| %d | %.4f | %.4f | %.3f | %.4f | %.4f | %.3f | %.2f | %.2f | %lld | %lld |\n",
                r + 1, a->c.kernel.median_ms, c->c.kernel.median_ms, kernel_ratio.back(),
                a->c.eager.median_ms, c->c.eager.median_ms, eager_ratio.back(), a->seconds,
                b->seconds, static_cast<long long>(b->launches),
                static_cast<long long>(b->counted));
  }
  std::printf(
      "median C / A: kernel %.3f, eager %.3f; median extra seconds of a %s evaluation %.2f\n",
      median_of(kernel_ratio), median_of(eager_ratio), counters ? "traced and counted" : "traced",
      median_of(extra_s));
  std::filesystem::remove_all(cache);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string task, kernel, backend_name = "cpu";
  int config = 0, runs = 5, seeds = 5;
  double max_seconds = 4;
  bool checker = true, trace = false, counters = false;
  for (int i = 1; i < argc; ++i) {
    std::string k = argv[i];
    if (k == "--no-checker" || k == "--trace" || k == "--counters") {
      if (k == "--no-checker") checker = false;
      trace |= k != "--no-checker";
      counters |= k == "--counters";
      continue;
    }
    if (i + 1 >= argc) break;
    std::string v = argv[++i];
    if (k == "--task")
      task = v;
    else if (k == "--kernel")
      kernel = v;
    else if (k == "--backend")
      backend_name = v;
    else if (k == "--config")
      config = std::stoi(v);
    else if (k == "--runs")
      runs = std::stoi(v);
    else if (k == "--seeds")
      seeds = std::stoi(v);
    else if (k == "--max-seconds")
      max_seconds = std::stod(v);
  }
  if (task.empty() || kernel.empty()) {
    std::cerr << "usage: kforge-evaluation-bench --task DIR --kernel FILE [--backend cpu|cuda] "
                 "[--config N] [--runs N] [--seeds N] [--max-seconds S] [--no-checker] [--trace] "
                 "[--counters]\n";
    return 2;
  }
  const auto parsed_backend = evaluation::parse_backend(backend_name);
  if (!parsed_backend) {
    std::cerr << "kforge-evaluation-bench: --backend must be cpu or cuda, not '" << backend_name
              << "'\n";
    return 2;
  }
  const auto backend = *parsed_backend;
  auto seconds = [](auto start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::string cache =
      (std::filesystem::temp_directory_path() / ("kforge-bench-" + std::to_string(::getpid())))
          .string();
  evaluation::ExportOptions eo;
  eo.cache_dir = cache;
  auto t0 = std::chrono::steady_clock::now();
  auto exported = evaluation::export_task(task, eo);
  double export_s = seconds(t0);
  if (!exported.ok) {
    std::cerr << exported.error << "\n";
    return 2;
  }
  evaluation::WorkerOptions wo;
  wo.backend = backend;
  wo.verify = checker;
  std::string arch = "sm_90";
  {
    evaluation::WorkerClient probe(wo);
    if (auto e = probe.ensure_started(); !e.empty()) {
      std::cerr << e << "\n";
      return 2;
    }
    if (backend == evaluation::Backend::cuda) {
      auto device_arch = evaluation::cuda_arch_of(probe.ready()["device"]);
      if (!device_arch) {
        std::cerr << device_arch.error << "\n";
        return 2;
      }
      arch = *device_arch;
    }
    std::cout << "device: " << probe.ready()["device"].dump() << "\n";
  }
  evaluation::CompileOptions co;
  co.backend = backend;
  co.cache_dir = cache;
  co.cuda_arch = arch;
  auto source = evaluation::read_file(kernel);
  auto cold = evaluation::compile_candidate(source.text, co);
  t0 = std::chrono::steady_clock::now();
  auto warm = evaluation::compile_candidate(source.text, co);
  double hit_s = seconds(t0);
  if (!cold.ok) {
    std::cerr << cold.error << "\n" << cold.log;
    return 1;
  }
  std::printf("export %.2f s, compile cold %.2f s, compile cache hit %.4f s\n", export_s,
              cold.seconds, hit_s);
  if (trace)
    return trace_runs(wo, exported.dir, warm.library_path, config, seeds, max_seconds, runs, cache,
                      counters);
  std::printf(
      "| run | worker start s | checks s (%d seeds) | timing s | evaluation s (%s) | again, same "
      "workers s | kernel median ms | eager median ms | kernel spread | eager spread |\n",
      seeds, checker ? "with the checker" : "no checker");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");
  std::vector<double> medians, eager;
  for (int r = 0; r < runs; ++r) {
    evaluation::WorkerClient worker(wo);
    t0 = std::chrono::steady_clock::now();
    if (auto e = worker.ensure_started(); !e.empty()) {
      std::cerr << e << "\n";
      return 2;
    }
    double start_s = seconds(t0);
    evaluation::WorkerRequest w;
    w.export_dir = exported.dir;
    w.library = warm.library_path;
    w.configs = {config};
    w.seeds = seeds;
    w.seed = static_cast<uint64_t>(r);
    w.timing.max_seconds = max_seconds;
    const auto request = w.to_json();
    t0 = std::chrono::steady_clock::now();
    auto outcome = worker.evaluate(request);
    double evaluate_s = seconds(t0);
    // The same candidate once more on the same worker (and checker): a daemon's steady state.
    t0 = std::chrono::steady_clock::now();
    auto again = worker.evaluate(request);
    double again_s = seconds(t0);
    if (again.result["verdict"].as_string() != "correct") {
      std::cerr << again.result.dump() << "\n";
      return 1;
    }
    const auto report = evaluation::read_worker_report(outcome.result);
    if (report.verdict != EvalVerdict::correct || report.configs.empty()) {
      std::cerr << outcome.result.dump() << "\n";
      return 1;
    }
    const auto& c = report.configs.front();
    medians.push_back(c.kernel.median_ms);
    eager.push_back(c.eager.median_ms);
    std::printf("| %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.4f | %.4f | %.3f | %.3f |\n", r + 1,
                start_s, c.check_seconds, c.timing_seconds, evaluate_s, again_s, medians.back(),
                eager.back(), c.kernel.spread(), c.eager.spread());
  }
  auto spread = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return std::make_pair((v.back() - v.front()) / v[v.size() / 2], v[v.size() / 2]);
  };
  auto [ks, km] = spread(medians);
  auto [es, em] = spread(eager);
  std::printf("kernel: median of medians %.4f ms, (max-min)/median %.2f%%\n", km, 100 * ks);
  std::printf("eager:  median of medians %.4f ms, (max-min)/median %.2f%%\n", em, 100 * es);
  std::filesystem::remove_all(cache);
  return 0;
}
