// Hardware counters through CUPTI's range profiler: one range per kernel (auto range), as many
// passes as the metrics need, evaluated to metric values by CUPTI's host API. The passes are
// whole calls run again by kforge (user replay): the call reads inputs it does not change and
// writes fresh outputs, so running it again is the replay, at the cost of one call a pass. Kernel
// replay, where CUPTI saves and restores the memory of the context around every kernel and pass,
// cost 1.4 s a pass on robust-kbench's resnet_block; it is the fallback when user replay fails.
#include <cuda.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>

#include "evaluation/worker/counter_budget.hpp"
#include "evaluation/worker/kernel_counters.hpp"

namespace kforge::worker {
namespace {

// The CUPTI result of the measurement's last failure (CUPTI_SUCCESS when none): whether another
// profiler held the GPU's counters (waiting_for_counters).
CUptiResult last_failure = CUPTI_SUCCESS;
// Whether the measurement's last failure was user replay stopped over its budget.
bool last_over_budget = false;

std::string cupti_failed(const char* what, CUptiResult r) {
  last_failure = r;
  const char* text = nullptr;
  cuptiGetResultString(r, &text);
  return std::string(what) + ": " + (text ? text : "CUPTI error " + std::to_string(r));
}

// The range profiler bound to the current context, disabled when the measurement ends, however
// it ends.
struct Session {
  CUpti_RangeProfiler_Object* profiler = nullptr;
  ~Session() {
    if (!profiler) return;
    CUpti_RangeProfiler_Disable_Params p{CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = profiler;
    cuptiRangeProfilerDisable(&p);
  }
};

// What the metrics need on this chip, worked out once per process (CUPTI's metric evaluator is
// slow to set up): the host object that evaluates them, the metrics it knows, the config image
// that schedules them into passes.
struct Schedule {
  CUpti_Profiler_Host_Object* host = nullptr;
  std::string chip;
  std::vector<const CounterMetric*> used;
  std::vector<const char*> names;
  json::Value unsupported;
  std::vector<uint8_t> config;
  size_t passes = 0;
};

Result<Schedule*> schedule_for(CUcontext context, int device_index) {
  static std::unique_ptr<Schedule> made;
  if (made) return {made.get(), {}};
  using Made = Result<Schedule*>;
  auto s = std::make_unique<Schedule>();
  CUpti_Device_GetChipName_Params chip{CUpti_Device_GetChipName_Params_STRUCT_SIZE};
  chip.deviceIndex = static_cast<size_t>(device_index);
  if (auto r = cuptiDeviceGetChipName(&chip); r != CUPTI_SUCCESS)
    return Made::failure(cupti_failed("reading the GPU's chip name", r));
  s->chip = chip.pChipName ? chip.pChipName : "";

  CUpti_Profiler_GetCounterAvailability_Params avail{
      CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
  avail.ctx = context;
  if (auto r = cuptiProfilerGetCounterAvailability(&avail); r != CUPTI_SUCCESS)
    return Made::failure(cupti_failed("reading which counters are available", r));
  std::vector<uint8_t> availability(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = availability.data();
  if (auto r = cuptiProfilerGetCounterAvailability(&avail); r != CUPTI_SUCCESS)
    return Made::failure(cupti_failed("reading which counters are available", r));

  CUpti_Profiler_Host_Initialize_Params host{CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
  host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
  host.pChipName = s->chip.c_str();
  host.pCounterAvailabilityImage = availability.data();
  if (auto r = cuptiProfilerHostInitialize(&host); r != CUPTI_SUCCESS)
    return Made::failure(cupti_failed("initialising CUPTI's metric evaluation", r));
  s->host = host.pHostObject;

  // The metrics this chip knows; the others are reported, not collected.
  s->unsupported.array();
  for (const auto& m : counter_metrics()) {
    CUpti_Profiler_Host_GetMetricProperties_Params p{
        CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
    p.pHostObject = s->host;
    p.pMetricName = m.metric.c_str();
    if (cuptiProfilerHostGetMetricProperties(&p) == CUPTI_SUCCESS) {
      s->used.push_back(&m);
      s->names.push_back(m.metric.c_str());
    } else {
      s->unsupported.push(m.metric);
    }
  }
  if (s->names.empty()) return Made::failure("this GPU (" + s->chip + ") has none of the metrics");

  CUpti_Profiler_Host_ConfigAddMetrics_Params add{
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
  add.pHostObject = s->host;
  add.ppMetricNames = s->names.data();
  add.numMetrics = s->names.size();
  if (auto r = cuptiProfilerHostConfigAddMetrics(&add); r != CUPTI_SUCCESS)
    return Made::failure(cupti_failed("scheduling the metrics", r));
  CUpti_Profiler_Host_GetConfigImageSize_Params config_size{
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
  config_size.pHostObject = s->host;
  if (auto r = cuptiProfilerHostGetConfigImageSize(&config_size); r != CUPTI_SUCCESS)
    return Made::failure(cupti_failed("scheduling the metrics", r));
  s->config.resize(config_size.configImageSize);
  CUpti_Profiler_Host_GetConfigImage_Params config_image{
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
  config_image.pHostObject = s->host;
  config_image.configImageSize = s->config.size();
  config_image.pConfigImage = s->config.data();
  if (auto r = cuptiProfilerHostGetConfigImage(&config_image); r != CUPTI_SUCCESS)
    return Made::failure(cupti_failed("scheduling the metrics", r));
  CUpti_Profiler_Host_GetNumOfPasses_Params passes{
      CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
  passes.configImageSize = s->config.size();
  passes.pConfigImage = s->config.data();
  if (auto r = cuptiProfilerHostGetNumOfPasses(&passes); r != CUPTI_SUCCESS)
    return Made::failure(cupti_failed("counting the passes", r));
  s->passes = passes.numOfPasses;
  made = std::move(s);
  return {made.get(), {}};
}

}  // namespace

const std::vector<CounterMetric>& counter_metrics() {
  static const std::vector<CounterMetric> metrics = [] {
    std::vector<CounterMetric> m = {
        {"duration_ns", "gpu__time_duration.sum"},
        {"sm_throughput_pct", "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
        {"memory_throughput_pct",
         "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"},
        {"dram_throughput_pct", "dram__throughput.avg.pct_of_peak_sustained_elapsed"},
        {"l2_throughput_pct", "lts__throughput.avg.pct_of_peak_sustained_elapsed"},
        {"l1_throughput_pct", "l1tex__throughput.avg.pct_of_peak_sustained_active"},
        {"achieved_occupancy_pct", "sm__warps_active.avg.pct_of_peak_sustained_active"},
        {"dram_bytes", "dram__bytes.sum"},
        {"dram_peak_bytes_per_cycle", "dram__bytes.sum.peak_sustained"},
        {"dram_cycles_per_second", "dram__cycles_elapsed.avg.per_second"},
        {"sm_cycles_per_second", "sm__cycles_elapsed.avg.per_second"},
        {"ffma", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"},
        {"fadd", "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"},
        {"fmul", "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum"},
        {"ffma_peak_per_cycle", "sm__sass_thread_inst_executed_op_ffma_pred_on.sum.peak_sustained"},
        {"tensor_pipe_pct", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"},
        {"inst_issued", "smsp__inst_issued.sum"},
    };
    for (const char* reason : {"barrier", "branch_resolving", "dispatch_stall", "drain", "imc_miss",
                               "lg_throttle", "long_scoreboard", "math_pipe_throttle", "membar",
                               "mio_throttle", "misc", "no_instruction", "not_selected", "selected",
                               "short_scoreboard", "sleeping", "tex_throttle", "wait"})
      m.push_back({std::string("stall_") + reason,
                   std::string("smsp__warps_issue_stalled_") + reason + ".sum"});
    return m;
  }();
  return metrics;
}

namespace {

Result<json::Value> measure_with(CUpti_ProfilerReplayMode replay, const std::function<void()>& body,
                                 int device_index, int max_kernels, double budget_s) {
  using Measured = Result<json::Value>;
  static const CUptiResult initialised = [] {
    CUpti_Profiler_Initialize_Params p{CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    return cuptiProfilerInitialize(&p);
  }();
  if (initialised != CUPTI_SUCCESS)
    return Measured::failure(cupti_failed("initialising CUPTI's profiler", initialised));
  CUcontext context = nullptr;
  if (cuCtxGetCurrent(&context) != CUDA_SUCCESS || !context)
    return Measured::failure("no current CUDA context to profile");

  const auto began = std::chrono::steady_clock::now();
  Session s;
  CUpti_RangeProfiler_Enable_Params enable{CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
  enable.ctx = context;
  if (auto r = cuptiRangeProfilerEnable(&enable); r != CUPTI_SUCCESS)
    return Measured::failure(cupti_failed("enabling the range profiler", r));
  s.profiler = enable.pRangeProfilerObject;
  auto scheduled = schedule_for(context, device_index);
  if (!scheduled) return Measured::failure(scheduled.error);
  const Schedule& plan = **scheduled;
  std::vector<const char*> names = plan.names;
  std::vector<uint8_t> config = plan.config;

  const auto ranges = static_cast<size_t>(max_kernels > 0 ? max_kernels : 1);
  CUpti_RangeProfiler_GetCounterDataSize_Params data_size{
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
  data_size.pRangeProfilerObject = s.profiler;
  data_size.pMetricNames = names.data();
  data_size.numMetrics = names.size();
  data_size.maxNumOfRanges = ranges;
  data_size.maxNumRangeTreeNodes = static_cast<uint32_t>(ranges);
  if (auto r = cuptiRangeProfilerGetCounterDataSize(&data_size); r != CUPTI_SUCCESS)
    return Measured::failure(cupti_failed("sizing the counter data", r));
  std::vector<uint8_t> data(data_size.counterDataSize);
  CUpti_RangeProfiler_CounterDataImage_Initialize_Params data_init{
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
  data_init.pRangeProfilerObject = s.profiler;
  data_init.counterDataSize = data.size();
  data_init.pCounterData = data.data();
  if (auto r = cuptiRangeProfilerCounterDataImageInitialize(&data_init); r != CUPTI_SUCCESS)
    return Measured::failure(cupti_failed("preparing the counter data", r));

  CUpti_RangeProfiler_SetConfig_Params set{CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
  set.pRangeProfilerObject = s.profiler;
  set.configSize = config.size();
  set.pConfig = config.data();
  set.counterDataImageSize = data.size();
  set.pCounterDataImage = data.data();
  set.range = CUPTI_AutoRange;
  set.replayMode = replay;
  set.maxRangesPerPass = ranges;
  set.numNestingLevels = 1;
  set.minNestingLevel = 1;
  set.passIndex = 0;
  set.targetNestingLevel = 1;
  if (auto r = cuptiRangeProfilerSetConfig(&set); r != CUPTI_SUCCESS)
    return Measured::failure(cupti_failed("configuring the range profiler", r));

  // Kernel replay: one call, CUPTI replays each kernel. User replay: one call per pass.
  const size_t calls = replay == CUPTI_UserReplay ? plan.passes + 1 : 1;
  CUpti_RangeProfiler_Stop_Params stop{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
  for (size_t call = 0; call < calls && !stop.isAllPassSubmitted; ++call) {
    CUpti_RangeProfiler_Start_Params start{CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
    start.pRangeProfilerObject = s.profiler;
    if (auto r = cuptiRangeProfilerStart(&start); r != CUPTI_SUCCESS)
      return Measured::failure(cupti_failed("starting the range profiler", r));
    std::string body_error;
    const auto call_began = std::chrono::steady_clock::now();
    try {
      body();
    } catch (const std::exception& e) {
      body_error = std::string("the profiled call failed: ") + e.what();
    }
    stop = CUpti_RangeProfiler_Stop_Params{CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
    stop.pRangeProfilerObject = s.profiler;
    const auto stopped = cuptiRangeProfilerStop(&stop);
    if (!body_error.empty()) return Measured::failure(body_error);
    if (stopped != CUPTI_SUCCESS)
      return Measured::failure(cupti_failed("stopping the range profiler", stopped));
    if (call == 0 && replay == CUPTI_UserReplay && !stop.isAllPassSubmitted) {
      const double first_s =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - call_began).count();
      if (auto why = user_replay_over_budget(first_s, calls, budget_s); !why.empty()) {
        last_over_budget = true;
        return Measured::failure(why);
      }
    }
  }
  if (!stop.isAllPassSubmitted)
    return Measured::failure("the range profiler replayed the kernels for only " +
                             std::to_string(stop.passIndex) + " of " + std::to_string(plan.passes) +
                             " counter passes");
  CUpti_RangeProfiler_DecodeData_Params decode{CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
  decode.pRangeProfilerObject = s.profiler;
  if (auto r = cuptiRangeProfilerDecodeData(&decode); r != CUPTI_SUCCESS)
    return Measured::failure(cupti_failed("decoding the counters", r));

  CUpti_RangeProfiler_GetCounterDataInfo_Params info{
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
  info.pCounterDataImage = data.data();
  info.counterDataImageSize = data.size();
  if (auto r = cuptiRangeProfilerGetCounterDataInfo(&info); r != CUPTI_SUCCESS)
    return Measured::failure(cupti_failed("reading the counter data", r));

  json::Value kernels;
  kernels.array();
  std::vector<double> values(names.size());
  for (size_t range = 0; range < info.numTotalRanges; ++range) {
    CUpti_Profiler_Host_EvaluateToGpuValues_Params eval{
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    eval.pHostObject = plan.host;
    eval.pCounterDataImage = data.data();
    eval.counterDataImageSize = data.size();
    eval.rangeIndex = range;
    eval.ppMetricNames = names.data();
    eval.numMetrics = names.size();
    eval.pMetricValues = values.data();
    if (auto r = cuptiProfilerHostEvaluateToGpuValues(&eval); r != CUPTI_SUCCESS)
      return Measured::failure(cupti_failed("evaluating the metrics", r));
    json::Value metrics;
    for (size_t i = 0; i < plan.used.size(); ++i) metrics.set(plan.used[i]->key, values[i]);
    json::Value kernel;
    kernel.set("metrics", metrics);
    kernels.push(kernel);
  }
  json::Value out;
  out.set("chip", plan.chip).set("passes", static_cast<int64_t>(plan.passes));
  out.set("replay", replay == CUPTI_UserReplay ? "user" : "kernel");
  out.set("dropped", static_cast<int64_t>(decode.numOfRangeDropped));
  out.set("unsupported", plan.unsupported).set("kernels", kernels);
  out.set("seconds",
          std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
  return {std::move(out), {}};
}

}  // namespace

Result<json::Value> measure_kernel_counters(const std::function<void()>& body, int device_index,
                                            int max_kernels, double budget_s) {
  auto with = [&](CUpti_ProfilerReplayMode replay, int kernels) {
    return waiting_while_busy(
        [&] {
          last_failure = CUPTI_SUCCESS;
          last_over_budget = false;
          return measure_with(replay, body, device_index, kernels, budget_s);
        },
        [] { return last_failure == CUPTI_ERROR_HARDWARE_BUSY; });
  };
  // Once user replay has failed in this worker, kernel replay is used from then on; counters that
  // another profiler held are not user replay's failure, nor is a call too slow profiled for the
  // budget (kernel replay would cost more still).
  static bool user_replay_works = true;
  if (!user_replay_works) return with(CUPTI_KernelReplay, max_kernels);
  auto measured = with(CUPTI_UserReplay, max_kernels);
  if (measured || last_failure == CUPTI_ERROR_HARDWARE_BUSY || last_over_budget) return measured;
  user_replay_works = false;
  // Kernel replay's cost grows with every kernel counted: one, whose cost plans what follows.
  auto replayed = with(CUPTI_KernelReplay, 1);
  if (replayed) (*replayed).set("user_replay_error", measured.error);
  return replayed;
}

}  // namespace kforge::worker
