#include "llm/price_table.hpp"

#include <algorithm>

#include "common/json.hpp"

namespace kforge::llm {

Price price_without_cache_discount(double input_per_mtok, double output_per_mtok) {
  return {input_per_mtok, output_per_mtok, input_per_mtok, input_per_mtok};
}

double cost_usd(const Price& price, const Usage& usage) {
  const int64_t fresh =
      std::max<int64_t>(0, usage.input_tokens - usage.cached_input_tokens - usage.cache_write_tokens);
  return (static_cast<double>(fresh) * price.input_per_mtok +
          static_cast<double>(usage.cached_input_tokens) * price.cached_input_per_mtok +
          static_cast<double>(usage.cache_write_tokens) * price.cache_write_per_mtok +
          static_cast<double>(usage.output_tokens) * price.output_per_mtok) /
         1e6;
}

Result<PriceTable> PriceTable::parse(std::string_view json_text) {
  auto doc = json::parse(json_text);
  if (!doc) return Result<PriceTable>::failure("prices: " + doc.error);
  PriceTable table;
  table.as_of_ = (*doc.value)["as_of"].as_string();
  const auto& rows = (*doc.value)["prices"];
  if (!rows.is_array())
    return Result<PriceTable>::failure(
        "prices: \"prices\" must be a list of {provider, model, input_per_mtok, output_per_mtok}");
  for (size_t i = 0; i < rows.as_array().size(); ++i) {
    const auto& row = rows[i];
    const double input = row["input_per_mtok"].as_number(-1);
    Entry e{row["provider"].as_string(), row["model"].as_string(),
            {input, row["output_per_mtok"].as_number(-1),
             row["cached_input_per_mtok"].as_number(input),
             row["cache_write_per_mtok"].as_number(input)}};
    if (e.provider.empty() || e.model.empty() || e.price.input_per_mtok < 0 ||
        e.price.output_per_mtok < 0 || e.price.cached_input_per_mtok < 0 ||
        e.price.cache_write_per_mtok < 0)
      return Result<PriceTable>::failure(
          "prices: entry " + std::to_string(i) +
          " needs provider, model and non-negative input_per_mtok and output_per_mtok (and "
          "cached_input_per_mtok, cache_write_per_mtok where given)");
    table.entries_.push_back(std::move(e));
  }
  return {std::move(table), {}};
}

std::optional<Price> PriceTable::find(std::string_view provider, std::string_view model) const {
  const Entry* best = nullptr;
  for (const auto& e : entries_) {
    if (e.provider != provider) continue;
    if (e.model == model) return e.price;
    if (e.model.back() == '*' && model.substr(0, e.model.size() - 1) ==
                                     std::string_view(e.model).substr(0, e.model.size() - 1)) {
      if (!best || e.model.size() > best->model.size()) best = &e;
    }
  }
  if (best) return best->price;
  return std::nullopt;
}

}  // namespace kforge::llm
