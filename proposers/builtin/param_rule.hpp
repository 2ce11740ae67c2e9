// A kernel template's rule over its parameters, written in the template beside them:
//   // kforge:require bm % tm == 0 && (bm / tm) * (bn / tn) <= 1024
// An integer expression over the parameters' names and literals: + - * / % (a division by zero
// makes the rule false), comparisons (< <= > >= == !=), && and ||, and parentheses, with C's
// precedence. A combination is valid when every rule of the template holds.
#pragma once

#include <map>
#include <string>

#include "common/result.hpp"

namespace kforge::builtin {

/// Whether `rule` holds for `values`; an error names what does not parse (or a name that is
/// not among `values`).
Result<bool> rule_holds(const std::string& rule, const std::map<std::string, int64_t>& values);

}  // namespace kforge::builtin
