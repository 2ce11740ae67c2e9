#include "common/task_document.hpp"

#include <filesystem>
#include <map>
#include <mutex>
#include <system_error>

namespace kforge::tasks {
namespace {

struct CachedDocument {
  std::filesystem::file_time_type modified;
  std::uintmax_t size = 0;
  TaskDocument doc;
};

}  // namespace

Result<TaskDocument> read_task_document(const std::string& export_dir) {
  static std::mutex mutex;
  static std::map<std::string, CachedDocument> cache;
  const std::string path = export_dir + "/task.json";
  std::error_code ec;
  const auto modified = std::filesystem::last_write_time(path, ec);
  const auto size = ec ? 0 : std::filesystem::file_size(path, ec);
  if (ec)
    return Result<TaskDocument>::failure("cannot read the task export " + export_dir + ": " +
                                         ec.message() + "; export the task again");
  {
    std::lock_guard lock(mutex);
    if (auto it = cache.find(path);
        it != cache.end() && it->second.modified == modified && it->second.size == size)
      return {it->second.doc, {}};
  }
  auto parsed = json::parse_file(path);
  if (!parsed)
    return Result<TaskDocument>::failure("cannot read the task export " + export_dir + ": " +
                                         parsed.error);
  auto doc = std::make_shared<const json::Value>(std::move(*parsed));
  std::lock_guard lock(mutex);
  cache[path] = {modified, size, doc};
  return {doc, {}};
}

Result<json::Array> direction_configs(const json::Value& doc, const std::string& direction) {
  const auto& configs = doc["directions"][direction]["configs"].as_array();
  if (configs.empty())
    return Result<json::Array>::failure("the task export has no " + direction + " configs");
  return {configs, {}};
}

}  // namespace kforge::tasks
