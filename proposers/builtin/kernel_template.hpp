// A parameterised kernel template of the built-in proposer. A template is an ordinary candidate
// source (it compiles and passes with its defaults) whose header names it (by what it is: op,
// dtype, backend, algorithm), its op family and its backend, and whose tunable constants carry
// their allowed values:
//   // kforge:template softmax_f32_cuda_rows
//   constexpr int kBlockThreads = 512;  // kforge:param block_threads 128 256 512 1024
// Rules the combinations must keep stand beside the parameters (proposers/builtin/param_rule.hpp):
//   // kforge:require block_threads * block_elems <= 16384
// A template that was renamed lists its earlier names, so archived candidates still find it:
//   // kforge:formerly softmax_f32_sm90_rows
// Traits are macros the task fixes rather than the search (the function's signature, an
// epilogue); the family recogniser says their values:
//   #define KFORGE_RELU 1  // kforge:trait relu 0 1
// Rendering replaces those constants; `valid` says which combinations it can implement.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/json.hpp"
#include "common/result.hpp"

namespace kforge::builtin {

struct TemplateParam {
  std::string name;
  std::vector<int64_t> values;  ///< allowed values, in the order they are written
  size_t default_index = 0;     ///< the value the template's own source uses
};

using ParamValues = std::map<std::string, int64_t>;

class KernelTemplate {
 public:
  /// Reads a template's text, or says what is malformed (file and line).
  static Result<KernelTemplate> parse(const std::string& file_name, std::string text);

  const std::string& name() const { return name_; }
  const std::string& family() const { return family_; }
  const std::string& backend() const { return backend_; }
  const std::vector<TemplateParam>& params() const { return params_; }
  const std::vector<TemplateParam>& traits() const { return traits_; }
  /// Its kforge:require rules, in the order written.
  const std::vector<std::string>& rules() const { return rules_; }
  /// Its name now and every earlier one (the first is `name()`).
  const std::vector<std::string>& names() const { return names_; }
  /// Whether the template can take these trait values (each must be among its allowed ones).
  bool supports(const ParamValues& traits) const;
  ParamValues defaults() const;
  /// Whether the combination is one the template can implement: every value among the allowed
  /// ones, and every rule kept (thread counts, tile shapes, registers, shared memory).
  bool valid(const ParamValues& values) const;
  /// The candidate source for these values, with `traits` set (those not given keep their
  /// defaults).
  std::string render(const ParamValues& values, const ParamValues& traits = {}) const;
  /// "name{a=1,b=2}": what `tried` lists, so no combination is proposed twice.
  std::string key(const ParamValues& values) const;
  size_t space_size() const;

  static json::Value to_json(const ParamValues& values);
  static bool from_json(const json::Value& doc, ParamValues& values);

 private:
  std::string name_, family_, backend_, text_;
  std::vector<std::string> names_, rules_;
  std::vector<TemplateParam> params_, traits_;
  std::vector<size_t> param_lines_, trait_lines_;  // line index of each in text_
};

/// Every template built into this kforge (parsed from the embedded files).
const std::vector<KernelTemplate>& builtin_templates();

}  // namespace kforge::builtin
