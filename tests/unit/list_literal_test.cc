#include "core/list_literal.h"

#include <cmath>
#include <string>

#include <gtest/gtest.h>

namespace ragmeter {
namespace {

// The parsed list as compact JSON, or "error: <message>".
std::string parsed(std::string_view text) {
  const auto list = parse_list_literal(text);
  if (!list.ok()) return "error: " + list.status().message();
  return list->dump();
}

bool fails_at(std::string_view text, std::size_t offset) {
  const auto list = parse_list_literal(text);
  if (list.ok()) return false;
  EXPECT_EQ(list.status().code(), StatusCode::kInvalidArgument);
  return list.status().message().ends_with("at byte offset " + std::to_string(offset));
}

TEST(ListLiteralTest, JsonArrayIsReturnedAsIs) {
  EXPECT_EQ(parsed(R"(["a", "b\u00e9", 1, 2.5, true, null])"), R"(["a","bé",1,2.5,true,null])");
  EXPECT_EQ(parsed(" [] "), "[]");
}

TEST(ListLiteralTest, JsonThatIsNotAnArrayIsAnError) {
  EXPECT_TRUE(parsed(R"({"a": 1})").starts_with("error: "));
  EXPECT_TRUE(parsed("\"a\"").starts_with("error: "));
  EXPECT_TRUE(parsed("").starts_with("error: "));
}

TEST(ListLiteralTest, PythonSingleAndDoubleQuotedStrings) {
  EXPECT_EQ(parsed("['a', \"b's\", 'it\\'s']"), R"(["a","b's","it's"])");
  EXPECT_EQ(parsed("['He said \"hi\"']"), R"(["He said \"hi\""])");
}

TEST(ListLiteralTest, PythonEscapes) {
  EXPECT_EQ(parsed(R"(['a\nb\tc\\d\'e\"f'])"), R"(["a\nb\tc\\d'e\"f"])");
  EXPECT_EQ(parsed(R"(['\x41\xe9', '\u00e9\u20ac', '\U0001F600'])"), R"(["Aé","é€","😀"])");
  EXPECT_EQ(parsed(R"(['\r\a\b\f\v'])"), R"(["\r\u0007\b\f\u000b"])");
  EXPECT_EQ(parsed(R"(['\101\0'])"), R"(["A\u0000"])");
  EXPECT_EQ(parsed("['a\\\nb']"), R"(["ab"])");  // backslash-newline joins lines
}

TEST(ListLiteralTest, UnknownEscapeKeepsTheBackslashAsPythonDoes) {
  EXPECT_EQ(parsed(R"(['\d+'])"), R"(["\\d+"])");
}

TEST(ListLiteralTest, SurrogatePairEscapesAreJoinedAndLoneSurrogatesRejected) {
  EXPECT_EQ(parsed(R"(['\ud83d\ude00'])"), R"(["😀"])");
  EXPECT_TRUE(fails_at(R"(['x\ud83d'])", 3));
  EXPECT_TRUE(fails_at(R"(['\udc00'])", 2));
  EXPECT_TRUE(fails_at(R"(['\U00110000'])", 2));
}

TEST(ListLiteralTest, NonAsciiTextPassesThrough) {
  EXPECT_EQ(parsed("['naïve café', '東京']"), R"(["naïve café","東京"])");
}

TEST(ListLiteralTest, NumbersBooleansAndNone) {
  EXPECT_EQ(parsed("[1, -2, +3, 1_000, 2.5, -0.5, 1e3, .5, 5., True, False, None]"),
            "[1,-2,3,1000,2.5,-0.5,1000.0,0.5,5.0,true,false,null]");
  EXPECT_EQ(parsed("[18446744073709551615]"), "[18446744073709551615]");
  EXPECT_EQ(parsed("[123456789012345678901234567890]"), "[1.2345678901234568e+29]");
}

TEST(ListLiteralTest, NanAndInfinityAreFloats) {
  const auto list = parse_list_literal("[nan, inf, -inf]");
  ASSERT_TRUE(list.ok());
  EXPECT_TRUE(std::isnan((*list)[0].get<double>()));
  EXPECT_EQ((*list)[1].get<double>(), HUGE_VAL);
  EXPECT_EQ((*list)[2].get<double>(), -HUGE_VAL);
}

TEST(ListLiteralTest, TrailingCommaAndWhitespaceAnywhereAreAllowed) {
  EXPECT_EQ(parsed(" \n[ 'a' ,\t'b' , ]\n "), R"(["a","b"])");
  EXPECT_EQ(parsed("[ ]"), "[]");
}

TEST(ListLiteralTest, MalformedInputIsInvalidArgumentWithByteOffset) {
  EXPECT_TRUE(fails_at("['a', ['b']]", 6));         // nested lists
  EXPECT_TRUE(fails_at("['a'", 4));                 // no closing bracket
  EXPECT_TRUE(fails_at("['a', 'b", 6));             // unterminated string
  EXPECT_TRUE(fails_at("['a' 'b']", 5));            // missing comma
  EXPECT_TRUE(fails_at("['a'] x", 6));              // text after the list
  EXPECT_TRUE(fails_at("[,]", 1));                  // empty element
  EXPECT_TRUE(fails_at("['a', true]", 6));          // JSON spelling inside a Python list
  EXPECT_TRUE(fails_at("['a', truthy]", 6));
  EXPECT_TRUE(fails_at("['\\x4']", 2));             // short hex escape
  EXPECT_TRUE(fails_at("a, b", 0));                 // not a list at all
  EXPECT_TRUE(fails_at("{'a': 1}", 0));
}

TEST(ListLiteralTest, InvalidUtf8IsRejectedWithItsOffset) {
  EXPECT_TRUE(fails_at("['caf\xE9']", 5));
}

TEST(ListLiteralTest, PandasReprOfStringsRoundTrips) {
  // str(['He said "it\'s fine"', "it's", 'a\nb']) in Python.
  EXPECT_EQ(parsed(R"(['He said "it\'s fine"', "it's", 'a\nb'])"),
            R"(["He said \"it's fine\"","it's","a\nb"])");
}

}  // namespace
}  // namespace ragmeter
