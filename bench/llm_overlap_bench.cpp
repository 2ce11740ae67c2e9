// How much overlapping LLM proposals buys when the model is slow. A fake provider on loopback
// (tests/llm/fake_provider) answers every proposal after a fixed delay with a correct CPU softmax
// kernel; the same experiment runs with search.proposals_in_flight = 1 and = N, side by side, and
// the table gives wall time and candidates per minute. It measures kforge's pipeline, not a model.
//
//   build/bench/kforge-llm-overlap-bench [--delay-ms 1500] [--candidates 12] [--in-flight 4]
#include <unistd.h>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>

#include "evaluation/process.hpp"
#include "tests/llm/fake_provider.hpp"

namespace fs = std::filesystem;
using kforge::test::FakeProvider;

int main(int argc, char** argv) {
  int delay_ms = 1500, candidates = 12, in_flight = 4;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--delay-ms")
      delay_ms = std::atoi(argv[i + 1]);
    else if (a == "--candidates")
      candidates = std::atoi(argv[i + 1]);
    else if (a == "--in-flight")
      in_flight = std::atoi(argv[i + 1]);
    else {
      std::cerr
          << "usage: kforge-llm-overlap-bench [--delay-ms MS] [--candidates N] [--in-flight K]\n";
      return 2;
    }
  }
  std::ifstream in(std::string(KFORGE_SOURCE_DIR) + "/tasks/softmax/kernels/forward_cpu.cpp");
  std::stringstream good;
  good << in.rdbuf();
  FakeProvider fake;
  fake.set_responder([&](const kforge::test::ProviderRequest&) {
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    return "Name: f32_cpu_rows\nRationale: bench\n```cpp\n" + good.str() + "```\n";
  });
  const fs::path dir =
      fs::temp_directory_path() / ("kforge_llm_bench_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::cout << "fake provider delay " << delay_ms << " ms, " << candidates
            << " candidates of softmax on the CPU backend (single config)\n\n"
            << "proposals_in_flight  wall s  candidates/min  provider requests\n";
  double first_rate = 0;
  for (int k : {1, in_flight}) {
    auto config = (dir / ("k" + std::to_string(k) + ".json")).string();
    std::ofstream(config) << R"({"name": "llm-overlap", "seed": 1, "tasks": [")"
                          << KFORGE_SOURCE_DIR
                          << R"(/tasks/softmax"], "backends": ["cpu"], "config_set": "single",
      "proposers": [{"kind": "llm", "provider": "openai", "base_url": ")"
                          << fake.base_url("openai")
                          << R"(", "model": "bench", "input_per_mtok": 0, "output_per_mtok": 0,
                     "max_concurrency": 16}],
      "budget": {"candidates_per_target": )"
                          << candidates << R"(},
      "evaluation": {"seeds": 1, "timing_seconds": 0.05},
      "search": {"pipeline_depth": 8, "proposals_in_flight": )"
                          << k << R"(, "fix_probability": 0}})";
    const size_t before = fake.request_count();
    kforge::evaluation::SpawnOptions o;
    o.argv = {KFORGE_CLI_PATH,
              "run",
              config,
              "--archive",
              (dir / ("k" + std::to_string(k) + ".db")).string(),
              "--quiet"};
    o.isolate_network = false;
    auto r = kforge::evaluation::run(o, std::chrono::minutes(30));
    if (!r.ok()) {
      std::cerr << "kforge run failed (" << r.describe() << "):\n" << r.output;
      return 1;
    }
    const double rate = 60.0 * candidates / r.seconds;
    if (k == 1) first_rate = rate;
    std::printf(
        "%-20d %7.1f %15.1f %18zu%s\n", k, r.seconds, rate, fake.request_count() - before,
        k == 1 ? "" : ("  (" + std::to_string(rate / first_rate).substr(0, 4) + "x)").c_str());
  }
  fs::remove_all(dir);
  return 0;
}
