#include "evaluation/machine_load.hpp"

#include <sched.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

namespace kforge::evaluation {

std::optional<std::string> load_warning(const std::string& loadavg_text, unsigned cores) {
  std::istringstream in(loadavg_text);
  double load = 0;
  if (!(in >> load) || cores == 0 || load <= 0.75 * cores) return std::nullopt;
  char text[200];
  std::snprintf(text, sizeof text,
                "the machine is busy (load average %.1f on %u cores): times measured now are "
                "slower and noisier than on an idle machine",
                load, cores);
  return std::string(text);
}

std::optional<std::string> machine_load_warning() {
  std::ifstream in("/proc/loadavg");
  std::string text;
  if (!std::getline(in, text)) return std::nullopt;
  cpu_set_t set;
  unsigned cores = std::thread::hardware_concurrency();
  if (sched_getaffinity(0, sizeof set, &set) == 0) cores = static_cast<unsigned>(CPU_COUNT(&set));
  return load_warning(text, cores);
}

}  // namespace kforge::evaluation
