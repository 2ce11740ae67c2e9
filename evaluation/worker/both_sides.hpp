// A recording of both sides of a config (the kernel's and eager's trace or hardware counters) into
// one document: each side in turn adds itself or says what failed. The rule for a failure lives
// here, apart from the device, so that it is tested on the CPU: one failure ends the record as
// that error alone, unless sides are recorded apart, where the first side that fails keeps its
// {"error"} and the other is still recorded; the record is one error only where both failed (both
// errors named, or the one error where they are the same).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "common/json.hpp"

namespace kforge::worker {

/// "the kernel's" for "candidate", "eager's" for "reference".
std::string side_label(const std::string& who);

/// Records the sides `order` names ("candidate", "reference") in that order into `doc`:
/// `record_one` adds its side to the document (under the side's name) and returns what failed,
/// empty when nothing did. Returns the document with the sides (a failed side's {"error"} beside
/// the other with `sides_apart`), or {"error"} alone.
json::Value record_sides(
    json::Value doc, const std::vector<std::string>& order, bool sides_apart,
    const std::function<std::string(const std::string& who, json::Value& doc)>& record_one);

}  // namespace kforge::worker
