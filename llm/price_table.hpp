// What a model's tokens cost, from configs/prices.json: dollars per million input, cached input,
// cache-write and output tokens per (provider, model), a trailing `*` matching model names by
// prefix.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.hpp"
#include "llm/chat.hpp"

namespace kforge::llm {

struct Price {
  double input_per_mtok = 0;
  double output_per_mtok = 0;
  /// Input read from the provider's prompt cache (OpenAI and Gemini cache on their own; Anthropic
  /// when asked): from a tenth (gpt-5, Claude, Gemini 2.5) to half (gpt-4o) of the input price.
  double cached_input_per_mtok = 0;
  /// Input written to the cache: Anthropic bills it at 1.25 times the input price (5-minute
  /// entries); OpenAI and Gemini do not bill writes apart.
  double cache_write_per_mtok = 0;
};

/// A price with the cached-input and cache-write prices at the input price, where nothing else
/// is known: a cache hit is never counted cheaper than the provider documents.
Price price_without_cache_discount(double input_per_mtok, double output_per_mtok);

double cost_usd(const Price& price, const Usage& usage);

class PriceTable {
 public:
  /// Parses the table, or says what is wrong with it.
  static Result<PriceTable> parse(std::string_view json_text);
  /// The price of `model` at `provider` ("openai", "anthropic", "gemini"): an exact entry first,
  /// then the longest matching prefix pattern.
  std::optional<Price> find(std::string_view provider, std::string_view model) const;
  const std::string& as_of() const { return as_of_; }

 private:
  struct Entry {
    std::string provider;
    std::string model;  ///< ends in '*' for a prefix pattern
    Price price;
  };
  std::vector<Entry> entries_;
  std::string as_of_;
};

}  // namespace kforge::llm
