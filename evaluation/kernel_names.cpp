#include "evaluation/kernel_names.hpp"

namespace kforge::evaluation {

std::string short_kernel_name(const std::string& full, size_t max_chars) {
  std::string name = full;
  const std::string anonymous = "(anonymous namespace)::";
  for (auto at = name.find(anonymous); at != std::string::npos; at = name.find(anonymous))
    name.erase(at, anonymous.size());
  if (name.rfind("void ", 0) == 0) name.erase(0, 5);
  int depth = 0;
  for (size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    if (name[i] == '>' && depth > 0) --depth;
    if (name[i] == '(' && depth == 0) {
      name.resize(i);
      break;
    }
  }
  if (name.empty()) name = full;
  return name.size() > max_chars && max_chars > 3 ? name.substr(0, max_chars - 3) + "..." : name;
}

}  // namespace kforge::evaluation
