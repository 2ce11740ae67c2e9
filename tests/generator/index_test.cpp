// The generator's index arithmetic: reshapes and their inverses print the same text as the index
// they started from (what lets a fused stage read a reduction's accumulator), and nothing that
// can be negative is simplified as if it could not.
#include <gtest/gtest.h>

#include "generator/index.hpp"
#include "generator/ir.hpp"

namespace kforge::generator {
namespace {

TEST(GeneratorIndex, DelinearisingAndLinearisingAgainIsTheOffset) {
  auto r = ix::named("r", 192);
  auto digits = ix::delinear(r, {8, 24});
  EXPECT_EQ(digits[0]->text, "(r / 24)");
  EXPECT_EQ(digits[1]->text, "(r % 24)");
  EXPECT_EQ(ix::linear(digits, {8, 24})->text, "r");
  auto three = ix::delinear(ix::named("o", 2 * 3 * 5), {2, 3, 5});
  EXPECT_EQ(ix::linear(three, {2, 3, 5})->text, "o");
}

TEST(GeneratorIndex, TheLowerDigitsOfAnOffsetRebuiltAreOneRemainder) {
  // A batch norm's row over [N, H, W] read from [N, C, H, W]: h * W + w is r % (H * W), one
  // remainder where there were two divisions and two remainders.
  auto r = ix::named("r", 64 * 126 * 126);
  auto nhw = ix::delinear(r, {64, 126, 126});
  auto offset = ix::linear({nhw[0], ix::var(0, 128), nhw[1], nhw[2]}, {64, 128, 126, 126});
  EXPECT_EQ(offset->text, "(((r / 15876) * 2032128) + (r % 15876) + (v0 * 15876))");
  // Three digits of five: the middle and lowest join, the highest stays.
  auto o = ix::named("o", 2 * 3 * 5 * 7);
  auto d = ix::delinear(o, {2, 3, 5, 7});
  EXPECT_EQ(ix::add(ix::mul(d[2], 7), d[3])->text, "(o % 35)");
  EXPECT_EQ(ix::add(ix::add(ix::mul(d[1], 35), ix::mul(d[2], 7)), d[3])->text, "(o % 105)");
  // A group norm's group of 3 channels in [N, C, DHW]: the offset rebuilt from the group's row
  // is the row's offset, though the channel's digit was simplified on the way.
  auto g = ix::named("o", 128 * 8), k = ix::named("r", 3 * 19800);
  auto nch = ix::delinear(ix::add(ix::mul(g, 59400), k), {128, 24, 19800});
  EXPECT_EQ(ix::linear(nch, {128, 24, 19800})->text, "((o * 59400) + r)");
  // Digits of different offsets, or not adjacent, are left alone.
  EXPECT_EQ(ix::add(ix::mul(d[1], 35), d[3])->text, "((((o / 35) % 3) * 35) + (o % 7))");
}

TEST(GeneratorIndex, AReshapeOfDigitsSimplifiesToTheDigitsItKeeps) {
  // [N, C, HW] seen as [N, G, C/G * HW]: the group of channel c is c / (C/G), with no division of
  // the row's offset left over.
  auto n = ix::var(0, 4), g = ix::var(1, 2), k = ix::var(2, 48);
  auto flat = ix::linear({n, g, k}, {4, 2, 48});
  auto back = ix::delinear(flat, {4, 8, 12});  // [N, C, HW] with C = 8, HW = 12
  EXPECT_EQ(back[0]->text, "v0");
  EXPECT_EQ(ix::div(back[1], 4)->text, "v1");  // C/G = 4 channels a group
}

TEST(GeneratorIndex, BoundsDropWhatCannotContribute) {
  auto v = ix::var(0, 10);
  EXPECT_EQ(ix::div(v, 16)->text, "0");
  EXPECT_EQ(ix::mod(v, 16)->text, "v0");
  EXPECT_EQ(ix::mul(ix::var(1, 1), 7)->text, "0");  // a dimension of size 1
  EXPECT_EQ(ix::div(ix::add(ix::mul(v, 32), ix::var(1, 32)), 32)->text, "v0");
}

TEST(GeneratorIndex, AQuotientByAMultipleOfATermsFactorDropsWhatStaysBelowIt) {
  // A group norm's group of 8 channels of 4096 elements, from an output's channel row o and
  // element r: (o * 4096 + r) / 32768 = o / 8, since r stays below 4096.
  auto o = ix::var(0, 64), r = ix::var(1, 4096);
  EXPECT_EQ(ix::div(ix::add(ix::mul(o, 4096), r), 32768)->text, "(v0 / 8)");
  // a rest that can reach the factor (r < 4097) keeps the division
  auto wide = ix::var(1, 4097);
  EXPECT_EQ(ix::div(ix::add(ix::mul(o, 4096), wide), 32768)->text, "(((v0 * 4096) + v1) / 32768)");
  // several factors: 4096 * o + 64 * c + e, e < 64, c < 64, by 8192 is o / 2 (through 4096 at once,
  // or through 64 and then 4096)
  auto c = ix::var(2, 64), e = ix::var(3, 64);
  auto three = ix::add(ix::add(ix::mul(o, 4096), ix::mul(c, 64)), e);
  EXPECT_EQ(ix::div(three, 8192)->text, "(v0 / 2)");
}

TEST(GeneratorIndex, ARemainderByAMultipleOfATermsFactorKeepsWhatStaysBelowIt) {
  // A group norm's channel parameter at element r of a group of 32 of row o, 512 channels a row:
  // (o * 32 + r) % 512 = (o % 16) * 32 + r, since r stays below 32.
  auto o = ix::var(0, 1024), r = ix::var(1, 32);
  EXPECT_EQ(ix::mod(ix::add(ix::mul(o, 32), r), 512)->text, "(((v0 % 16) * 32) + v1)");
  // a rest that can reach the factor (r < 33) keeps the remainder
  auto wide = ix::var(1, 33);
  EXPECT_EQ(ix::mod(ix::add(ix::mul(o, 32), wide), 512)->text, "(((v0 * 32) + v1) % 512)");
  // a divisor that is not a power of two: (o * 48 + c) % 144 for c < 48 is (o % 3) * 48 + c,
  // whose bound stays the divisor's
  auto c = ix::var(2, 48);
  const auto by_rule = ix::mod(ix::add(ix::mul(o, 48), c), 144);
  EXPECT_EQ(by_rule->text, "(((v0 % 3) * 48) + v2)");
  EXPECT_LE(by_rule->bound, 144);
  // several factors: (4096 * o + 64 * c + e) % 8192, e < 64, c < 64: (o % 2) * 4096 + 64 * c + e
  auto e = ix::var(3, 64), c64 = ix::var(2, 64);
  auto three = ix::add(ix::add(ix::mul(o, 4096), ix::mul(c64, 64)), e);
  EXPECT_EQ(ix::mod(three, 8192)->text, "(((v0 % 2) * 4096) + (v2 * 64) + v3)");
}

TEST(GeneratorIndex, APaddedWindowIsNotSimplifiedAsIfItWereNonNegative) {
  // o * 2 - 1 + k: negative at the border; (x / 4) must stay a division there.
  auto p = ix::add(ix::add(ix::mul(ix::var(0, 8), 2), ix::var(1, 3)), ix::constant(-1));
  EXPECT_TRUE(p->may_be_negative);
  EXPECT_EQ(ix::div(p, 64)->text, "(" + p->text + " / 64)");
  EXPECT_EQ(ix::mod(p, 64)->text, "(" + p->text + " % 64)");
  EXPECT_FALSE(ix::add(ix::var(0, 8), ix::var(1, 3))->may_be_negative);
}

// A named variable as one term of an offset (a window's output, a gathered class): its stride and
// the other terms; none where it also sits inside a quotient or remainder.
TEST(GeneratorIndex, AlongSplitsOneTermOfANamedVariable) {
  auto j = ix::named("kf_j", 100), r = ix::named("r", 8);
  auto offset = ix::add(ix::add(ix::mul(j, 3), ix::mul(r, 5)), ix::constant(-4));
  EXPECT_TRUE(ix::reads(*offset, "kf_j"));
  EXPECT_FALSE(ix::reads(*offset, "o"));
  auto split = ix::along(*offset, "kf_j");
  ASSERT_TRUE(split);
  EXPECT_EQ(split->stride, 3);
  EXPECT_EQ(split->rest.size(), 2u);
  auto alone = ix::along(*j, "kf_j");
  ASSERT_TRUE(alone);
  EXPECT_EQ(alone->stride, 1);
  EXPECT_TRUE(alone->rest.empty());
  EXPECT_FALSE(ix::along(*ix::add(j, ix::div(j, 7)), "kf_j"));
  EXPECT_FALSE(ix::along(*r, "kf_j"));
}

// A comparison of int64 elements that constants and index bounds decide is a constant, and a
// selection by a constant is the side it selects (a stack read at a known position: the piece
// there); one they do not decide stays, and so does one that may be negative.
TEST(GeneratorIndex, ComparisonsTheBoundsDecideFold) {
  const auto i64 = [](double v) { return ex::constant(v, DType::i64); };
  const auto value = [](const ExprPtr& e) {
    return e->kind == Expr::Kind::constant ? e->value : -1.0;
  };
  auto v = ex::index(ix::var(0, 8));  // 0..7
  EXPECT_EQ(value(ex::call("lt", {v, i64(8)}, DType::b8)), 1);
  EXPECT_EQ(value(ex::call("ge", {v, i64(8)}, DType::b8)), 0);
  EXPECT_EQ(value(ex::call("eq", {v, i64(9)}, DType::b8)), 0);
  EXPECT_EQ(value(ex::call("ne", {v, i64(-1)}, DType::b8)), 1);
  EXPECT_EQ(value(ex::call("gt", {i64(0), v}, DType::b8)), 0);
  EXPECT_EQ(value(ex::call("le", {i64(0), v}, DType::b8)), 1);
  auto nine = ex::index(ix::constant(9));
  EXPECT_EQ(value(ex::call("eq", {nine, i64(9)}, DType::b8)), 1);
  EXPECT_EQ(value(ex::call("eq", {nine, i64(2)}, DType::b8)), 0);
  EXPECT_EQ(ex::call("lt", {v, i64(4)}, DType::b8)->kind, Expr::Kind::call);
  auto padded = ex::index(ix::add(ix::var(0, 8), ix::constant(-1)));  // -1..6
  EXPECT_EQ(ex::call("ge", {padded, i64(0)}, DType::b8)->kind, Expr::Kind::call);
  auto a = ex::load(0, ix::var(0, 8), DType::f32), b = ex::load(1, ix::var(0, 8), DType::f32);
  auto picked = ex::call("where", {ex::call("eq", {nine, i64(9)}, DType::b8), a, b});
  EXPECT_EQ(picked.get(), a.get());
  auto test = ex::call("lt", {v, i64(4)}, DType::b8);
  EXPECT_EQ(ex::call("and", {ex::constant(1, DType::b8), test}, DType::b8).get(), test.get());
  EXPECT_EQ(value(ex::call("or", {test, ex::constant(1, DType::b8)}, DType::b8)), 1);
  EXPECT_EQ(value(ex::call("and", {ex::constant(0, DType::b8), test}, DType::b8)), 0);
  // floats are not folded (NaN compares unequal to itself)
  EXPECT_EQ(ex::call("eq", {ex::constant(1), ex::constant(1)}, DType::b8)->kind, Expr::Kind::call);
}

}  // namespace
}  // namespace kforge::generator
