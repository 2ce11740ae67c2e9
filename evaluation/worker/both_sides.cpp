#include "evaluation/worker/both_sides.hpp"

namespace kforge::worker {

std::string side_label(const std::string& who) {
  return who == "candidate" ? "the kernel's" : "eager's";
}

json::Value record_sides(
    json::Value doc, const std::vector<std::string>& order, bool sides_apart,
    const std::function<std::string(const std::string& who, json::Value& doc)>& record_one) {
  std::string failed_side, failed_error;  // the side recorded apart with its error
  for (const auto& who : order) {
    std::string error = record_one(who, doc);
    if (error.empty()) continue;
    if (sides_apart && failed_side.empty()) {
      json::Value failed;
      doc.set(who, failed.set("error", error));
      failed_side = who;
      failed_error = error;
      continue;
    }
    if (!failed_side.empty() && failed_error != error)
      error = side_label(failed_side) + ": " + failed_error + "; " + side_label(who) + ": " + error;
    json::Value only;
    return only.set("error", error);
  }
  return doc;
}

}  // namespace kforge::worker
