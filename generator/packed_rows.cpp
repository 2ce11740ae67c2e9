#include "generator/packed_rows.hpp"

#include <cctype>

namespace kforge::generator {
namespace {

/// The rows' integers one after another, and where each row begins (one more: the end).
struct Flat {
  std::vector<int64_t> values;
  std::vector<size_t> begin;
  size_t width(size_t first, size_t rows) const { return begin[first + rows] - begin[first]; }
};

/// The longest repeat of the block of `period` rows at `first`: how many times it repeats (the
/// block itself counted), each repeat the block plus the step times its place; 0 where the next
/// block is not as wide.
size_t repeats(const Flat& f, size_t first, size_t period, size_t rows,
               std::vector<int64_t>& step) {
  if (first + 2 * period > rows) return 0;
  const size_t w = f.width(first, period);
  if (f.width(first + period, period) != w) return 0;
  const int64_t* base = f.values.data() + f.begin[first];
  step.resize(w);
  for (size_t k = 0; k < w; ++k) step[k] = base[w + k] - base[k];
  size_t n = 2;
  for (; first + (n + 1) * period <= rows && f.width(first + n * period, period) == w; ++n) {
    const int64_t* block = base + n * w;
    const auto times = static_cast<int64_t>(n);
    bool same = true;
    for (size_t k = 0; k < w && same; ++k) same = block[k] == base[k] + times * step[k];
    if (!same) break;
  }
  return n;
}

void append_row(std::string& out, const std::string& indent, const int64_t* row, size_t n) {
  out += indent;
  for (size_t k = 0; k < n; ++k) out += (k ? ", " : "") + std::to_string(row[k]);
  out += ",\n";
}

}  // namespace

std::string packed_rows(const std::vector<std::vector<int64_t>>& rows, const std::string& indent) {
  Flat f;
  for (const auto& row : rows) {
    f.begin.push_back(f.values.size());
    f.values.insert(f.values.end(), row.begin(), row.end());
  }
  f.begin.push_back(f.values.size());
  std::string out;
  size_t literal = 0;  // rows from here on not in a repeat yet
  auto flush = [&](size_t end) {
    if (literal == end) return;
    out += indent + "1, " + std::to_string(f.width(literal, end - literal)) + ",\n";
    for (size_t r = literal; r < end; ++r)
      append_row(out, indent + "  ", f.values.data() + f.begin[r], f.width(r, 1));
  };
  std::vector<int64_t> step, best_step;
  for (size_t i = 0; i < rows.size();) {
    size_t best_n = 0, best_period = 0, best_cover = 0;
    for (size_t period = 1; period <= kPackedPeriod && i + 2 * period <= rows.size(); ++period) {
      const size_t n = repeats(f, i, period, rows.size(), step);
      const size_t cover = n * f.width(i, period);
      if (n >= kPackedRepeats && cover > best_cover) {
        best_n = n, best_period = period, best_cover = cover;
        best_step = step;
      }
    }
    if (best_n == 0) {
      ++i;
      continue;
    }
    flush(i);
    out += indent + std::to_string(best_n) + ", " + std::to_string(f.width(i, best_period)) + ",\n";
    for (size_t r = i; r < i + best_period; ++r)
      append_row(out, indent + "  ", f.values.data() + f.begin[r], f.width(r, 1));
    for (size_t r = i, at = 0; r < i + best_period; at += f.width(r, 1), ++r)
      append_row(out, indent + "  ", best_step.data() + at, f.width(r, 1));
    i += best_n * best_period;
    literal = i;
  }
  flush(rows.size());
  return out;
}

std::vector<int64_t> unpacked_rows(const std::string& text) {
  std::vector<int64_t> packed;
  for (size_t at = 0; at < text.size();) {
    size_t used = 1;
    if (std::isdigit(static_cast<unsigned char>(text[at])) || text[at] == '-')
      packed.push_back(std::stoll(text.substr(at, 24), &used));
    at += used;
  }
  std::vector<int64_t> out;
  for (size_t p = 0; p + 2 <= packed.size();) {
    const int64_t n = packed[p];
    const auto w = static_cast<size_t>(packed[p + 1]);
    const int64_t* block = packed.data() + p + 2;
    for (int64_t j = 0; j < n; ++j)
      for (size_t k = 0; k < w; ++k) out.push_back(block[k] + (n > 1 ? j * block[w + k] : 0));
    p += 2 + (n > 1 ? 2 * w : w);
  }
  return out;
}

const char* packed_rows_prelude() {
  return R"(// A packed table's rows (generator/packed_rows.hpp): segments of n, w and w integers, the rows
// themselves where n is 1, else a block of rows and its step, repeated n times, each time moved by
// the step once more.
template <size_t N>
std::vector<int64_t> kf_unpack(const int64_t (&packed)[N]) {
  std::vector<int64_t> out;
  for (size_t p = 0; p + 2 <= N;) {
    const int64_t n = packed[p];
    const size_t w = static_cast<size_t>(packed[p + 1]);
    const int64_t* block = packed + p + 2;
    for (int64_t j = 0; j < n; ++j)
      for (size_t k = 0; k < w; ++k) out.push_back(block[k] + (n > 1 ? j * block[w + k] : 0));
    p += 2 + (n > 1 ? 2 * w : w);
  }
  return out;
}

)";
}

}  // namespace kforge::generator
