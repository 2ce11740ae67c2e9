#include "evaluation/hashing.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

namespace kforge::evaluation {

FileText read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {false, {}, "cannot open " + path + ": " + std::strerror(errno)};
  std::ostringstream ss;
  ss << in.rdbuf();
  return {true, ss.str(), {}};
}

std::string write_file_atomic(const std::string& path, std::string_view bytes) {
  std::error_code ec;
  auto parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  std::string tmp =
      path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(std::random_device{}());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return "cannot write " + tmp + ": " + std::strerror(errno);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) return "cannot write " + tmp + ": " + std::strerror(errno);
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) return "cannot rename " + tmp + " to " + path + ": " + ec.message();
  return {};
}

}  // namespace kforge::evaluation
