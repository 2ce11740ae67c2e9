// Repeated index arithmetic of a long line named once (generator/named_values.hpp): what is named,
// where the names are declared, and what is never named (loads, calls, casts, divisions by a
// name) or never touched (short lines, lines that are not one statement). The values stay the
// generated kernels' own: the op table's `shifted_windows` case runs such kernels against PyTorch.
#include <gtest/gtest.h>

#include <string>

#include "generator/named_values.hpp"

namespace kforge::generator {
namespace {

size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

/// `term` n times, joined by " + ".
std::string joined(const std::string& term, size_t n) {
  std::string out = term;
  for (size_t i = 1; i < n; ++i) out += " + " + term;
  return out;
}

/// How many times `term` makes a line long enough to be named.
size_t long_enough(const std::string& term) {
  return kNamedValuesLine / term.size() + 1;
}

/// `term` joined by " + " until the text is at least kNamedValuesLine characters.
std::string repeated(const std::string& term) {
  return joined(term, long_enough(term));
}

/// The values `text` declares (`const auto kf_ix<N> = <value>;`), a line each.
std::string declared(const std::string& text) {
  std::string out;
  for (size_t at = text.find("const auto kf_ix"); at != std::string::npos;
       at = text.find("const auto kf_ix", at + 1)) {
    const size_t from = text.find(" = ", at) + 3;
    out += text.substr(from, text.find(';', from) - from) + "\n";
  }
  return out;
}

const std::string kOffset = "(((o % 14) * 384) + ((o / 14) * 10752) + r)";

TEST(NamedValues, ALongStatementsRepeatedArithmeticIsDeclaredOnceBeforeIt) {
  const std::string term = "b1[" + kOffset + "] * b2[" + kOffset + "]";
  const size_t n = long_enough(term);
  const std::string text = "  {\n    s3 = " + joined(term, n) + ";\n  }\n";
  const std::string named = name_repeated_values(text);
  EXPECT_EQ(named, "  {\n    const auto kf_ix0 = " + kOffset +
                       ";\n    s3 = " + joined("b1[kf_ix0] * b2[kf_ix0]", n) + ";\n  }\n")
      << named;
  EXPECT_LT(named.size(), text.size() / 2);
}

TEST(NamedValues, EachValueIsDeclaredAfterTheValuesItReads) {
  // the offset, then the product inside it (which the line reads elsewhere too), then the
  // remainder of the offset: declared product, offset, remainder
  const std::string term =
      "b1[" + kOffset + "] * b2[((o % 14) * 384)] * b3[(" + kOffset + " % 1505280)]";
  const std::string named = name_repeated_values("  x = 0.0f;\n  s3 = " + repeated(term) + ";\n");
  const size_t product = named.find("= ((o % 14) * 384);");
  const size_t offset = named.find(" + ((o / 14) * 10752) + r);");
  const size_t remainder = named.find(" % 1505280);");
  ASSERT_NE(product, std::string::npos) << named;
  ASSERT_NE(offset, std::string::npos) << named;
  ASSERT_NE(remainder, std::string::npos) << named;
  EXPECT_LT(product, offset) << named;
  EXPECT_LT(offset, remainder) << named;
  EXPECT_EQ(occurrences(named, "(o % 14) * 384"), 1u) << named;
}

TEST(NamedValues, LoadsCallsCastsAndDivisionsByANameAreNeverNamed) {
  for (const char* term :
       {"b1[((o % 14) * 384 + r)] * b1[((o % 14) * 384 + r)]",  // a load: (..)'s value read
        "kf_relu((o % 14) * 384 + r) * kf_relu((o % 14) * 384 + r)",
        // a call inside a parenthesised sum: the sum is not named either
        "(kf_relu((o % 14) * 384 + r) * 2) * (kf_relu((o % 14) * 384 + r) * 2)",
        "static_cast<float>((o % 14) * 384 + r) * static_cast<float>((o % 14) * 384 + r)",
        "((o % 14) * 384 + r / n) * ((o % 14) * 384 + r / n)",
        "((o % 14) * 384 + r / 0) * ((o % 14) * 384 + r / 0)",
        "((o % 14) * 384 + (r < 9)) * ((o % 14) * 384 + (r < 9))",
        "(b1[o] + b2[o] + b3[o] + b4[o]) * (b1[o] + b2[o] + b3[o] + b4[o])",
        "((o % 14) * 384 + r++) * ((o % 14) * 384 + r++)"}) {
    const std::string text = "  s3 = 0.0f;\n  s3 = " + repeated(term) + ";\n";
    const std::string named = name_repeated_values(text);
    // the offset inside a load, call or cast may be named; never the load, call or cast
    const std::string values = declared(named);
    for (const char* never : {"b1[", "kf_relu", "static_cast", "r / n", "r / 0", "r < 9", "r++"})
      EXPECT_EQ(values.find(never), std::string::npos) << never << " in\n" << named;
  }
  // the offset alone, repeated: named
  EXPECT_EQ(declared(name_repeated_values(
                "  s3 = 0.0f;\n  s3 = " + repeated("((o % 14) * 384 + r) * b1[o]") + ";\n")),
            "((o % 14) * 384 + r)\n");
}

TEST(NamedValues, AOneReturnLambdaDeclaresItsValuesInItsBody) {
  const std::string gm = "((((gm / 288) % 9) * 7) + (-4) + (gk / 7))";
  const std::string line =
      "    [&](int64_t gm, int64_t gk) { return " + repeated("b1[" + gm + "]") + "; },";
  const std::string named = name_repeated_values("  kf_contraction(\n" + line + "\n  );\n");
  EXPECT_NE(named.find("[&](int64_t gm, int64_t gk) { const auto kf_ix0 = " + gm +
                       "; return b1[kf_ix0] + b1[kf_ix0]"),
            std::string::npos)
      << named;
  EXPECT_NE(named.find("; },\n  );\n"), std::string::npos) << named;
}

TEST(NamedValues, ShortLinesAndLinesThatAreNotOneStatementStayAsTheyAre) {
  const std::string term = "b1[" + kOffset + "]";
  const std::string long_sum = repeated(term);
  for (const std::string& text :
       {"  s3 = " + term + " + " + term + ";\n",                            // short
        "  for (int64_t r = 0; r < " + long_sum + "; ++r) {\n  }\n",        // a loop's head
        "  if (o < 9)\n    s3 = " + long_sum + ";\n",                       // an if's body
        "  { s3 = " + long_sum + "; }\n",                                   // braces
        "  s3 = " + long_sum + "; s4 = 0;\n",                               // two statements
        "s3 = " + long_sum + ";\n",                                         // not in a function
        "  s3 = 0;  // " + long_sum + ";\n",                                // a comment
        "  [&](int64_t gm) { int x = 0; return " + long_sum + "; },\n"}) {  // not one return
    EXPECT_EQ(name_repeated_values(text), text);
  }
}

TEST(NamedValues, NamesAreNumberedAcrossTheText) {
  const std::string statement = "  s3 = " + repeated("b1[" + kOffset + "]") + ";\n";
  const std::string named = name_repeated_values("  s3 = 0;\n" + statement + statement);
  EXPECT_EQ(occurrences(named, "const auto kf_ix0 = "), 1u) << named;
  EXPECT_EQ(occurrences(named, "const auto kf_ix1 = "), 1u) << named;
}

}  // namespace
}  // namespace kforge::generator
