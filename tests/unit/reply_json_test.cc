// Tolerant reply parsing and the schema subset: each tolerated slip, each rejected case.
#include "llm/reply_json.h"

#include <gtest/gtest.h>

#include <string>

namespace ragmeter::llm {
namespace {

using nlohmann::json;

struct TolerantCase {
  const char* name;
  std::string reply;
  json expected;
};

void PrintTo(const TolerantCase& c, std::ostream* out) { *out << c.name; }

class ReplyJsonTolerates : public testing::TestWithParam<TolerantCase> {};

TEST_P(ReplyJsonTolerates, ParsesToTheIntendedValue) {
  StatusOr<json> parsed = parse_reply_json(GetParam().reply);
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  EXPECT_EQ(*parsed, GetParam().expected) << parsed->dump();
}

const json kVerdict = {{"verdict", 1}, {"reason", "ok"}};

INSTANTIATE_TEST_SUITE_P(
    Slips, ReplyJsonTolerates,
    testing::Values(
        TolerantCase{"strict", R"({"verdict": 1, "reason": "ok"})", kVerdict},
        TolerantCase{"strict_scalar", "42", 42},
        TolerantCase{"code_fence", "```json\n{\"verdict\": 1, \"reason\": \"ok\"}\n```", kVerdict},
        TolerantCase{"bare_fence", "```\n{\"verdict\": 1, \"reason\": \"ok\"}\n```", kVerdict},
        TolerantCase{
            "prose_around",
            "Sure! Here is my verdict:\n{\"verdict\": 1, \"reason\": \"ok\"}\nHope it helps.",
            kVerdict},
        TolerantCase{"bracket_in_prose_before_fence",
                     "Verdicts [as requested]:\n```json\n{\"verdict\": 1, \"reason\": \"ok\"}\n```",
                     kVerdict},
        TolerantCase{"braces_in_strings", R"(Answer: {"a": "}{][", "b": [1]} done)",
                     json{{"a", "}{]["}, {"b", {1}}}},
        TolerantCase{"array", "The statements:\n[\"one\", \"two\"]", json{"one", "two"}},
        TolerantCase{"trailing_comma_object", R"({"verdict": 1, "reason": "ok",})", kVerdict},
        TolerantCase{"trailing_comma_array", "[1, 2, 3,]", json{1, 2, 3}},
        TolerantCase{"single_quotes", R"({'verdict': 1, 'reason': 'ok'})", kVerdict},
        TolerantCase{"single_quote_escape", R"({'reason': 'it\'s "fine"'})",
                     json{{"reason", "it's \"fine\""}}},
        TolerantCase{"escapes_in_lenient_strings", R"({'s': 'a\nb\tc\/d\u00e9\\'})",
                     json{{"s", "a\nb\tc/d\xC3\xA9\\"}}},
        TolerantCase{"python_literals", "{'a': True, 'b': False, 'c': None}",
                     json{{"a", true}, {"b", false}, {"c", nullptr}}},
        TolerantCase{"smart_quotes",
                     "{\xE2\x80\x9Cverdict\xE2\x80\x9D: 1, \xE2\x80\x9Creason\xE2\x80\x9D: "
                     "\xE2\x80\x9Cok\xE2\x80\x9D}",
                     kVerdict},
        TolerantCase{"smart_single_quotes",
                     "{\xE2\x80\x98verdict\xE2\x80\x99: 1, \"reason\": \"ok\"}", kVerdict},
        TolerantCase{"apostrophe_inside_string", R"({"reason": "don't"})",
                     json{{"reason", "don't"}}},
        TolerantCase{"raw_newline_in_string", "{\"reason\": \"line one\nline two\"}",
                     json{{"reason", "line one\nline two"}}},
        TolerantCase{"unicode_escapes", R"({"s": "\u00e9\ud83d\ude00\n"})",
                     json{{"s", "\xC3\xA9\xF0\x9F\x98\x80\n"}}},
        TolerantCase{"cut_after_value", R"({"verdicts": [{"verdict": 1}, {"verdict": 0})",
                     json::parse(R"({"verdicts": [{"verdict": 1}, {"verdict": 0}]})")},
        TolerantCase{"cut_inside_string", R"({"verdict": 1, "reason": "because the)",
                     json{{"verdict", 1}, {"reason", "because the"}}},
        TolerantCase{"cut_after_key", R"({"verdict": 1, "reason":)", json{{"verdict", 1}}},
        TolerantCase{"cut_after_comma", "[1, 2,", json{1, 2}},
        TolerantCase{"cut_inside_fence", "```json\n{\"verdict\": 1, \"reason\": \"ok\"\n```",
                     kVerdict},
        TolerantCase{"numbers", R"({"i": -3, "f": 0.25, "e": 1e3, "big": 12345678901234})",
                     json{{"i", -3}, {"f", 0.25}, {"e", 1000.0}, {"big", 12345678901234}}},
        TolerantCase{"nested_broken_then_good", "{\"a\": oops {\"inner\": 1}} then [2]", json{2}}),
    [](const testing::TestParamInfo<TolerantCase>& info) { return std::string(info.param.name); });

struct RejectedCase {
  const char* name;
  std::string reply;
  const char* message_part;
};

void PrintTo(const RejectedCase& c, std::ostream* out) { *out << c.name; }

class ReplyJsonRejects : public testing::TestWithParam<RejectedCase> {};

TEST_P(ReplyJsonRejects, WithAnInvalidArgumentSayingWhy) {
  StatusOr<json> parsed = parse_reply_json(GetParam().reply);
  ASSERT_FALSE(parsed.ok()) << parsed->dump();
  EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(parsed.status().message().find(GetParam().message_part), std::string::npos)
      << parsed.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ReplyJsonRejects,
    testing::Values(
        RejectedCase{"empty", "", "no '{' or '['"},
        RejectedCase{"prose_only", "The answer is yes.", "no '{' or '['"},
        RejectedCase{"nan", R"({"score": NaN})", "NaN is not a JSON number"},
        RejectedCase{"infinity", R"({"score": -Infinity})", "Infinity is not a JSON number"},
        RejectedCase{"bare_word", R"({"verdict": yes})", "unexpected word 'yes'"},
        RejectedCase{"missing_comma", R"({"a": 1 "b": 2})", "expected ',' or '}'"},
        RejectedCase{"unquoted_key", R"({verdict: 1})", "expected a quoted key"},
        RejectedCase{"malformed_number", R"([1.])", "malformed number"},
        RejectedCase{"bracket_prose_only", "See [the notes] for details.", "unexpected word"},
        RejectedCase{"too_deep", std::string(1000, '['), "nesting too deep"}),
    [](const testing::TestParamInfo<RejectedCase>& info) { return std::string(info.param.name); });

const json kVerdictsSchema = json::parse(R"({
  "type": "object",
  "properties": {
    "verdicts": {
      "type": "array", "minItems": 1, "maxItems": 3,
      "items": {
        "type": "object",
        "properties": {
          "statement": {"type": "string"},
          "verdict": {"type": "integer", "enum": [0, 1]},
          "score": {"type": "number", "minimum": 0, "maximum": 1}
        },
        "required": ["statement", "verdict"],
        "additionalProperties": false
      }
    },
    "note": {"type": ["string", "null"]}
  },
  "required": ["verdicts"]
})");

TEST(CheckSchemaTest, AConformingValuePasses) {
  json value = json::parse(R"({"verdicts": [{"statement": "s", "verdict": 1, "score": 0.5},
                                            {"statement": "t", "verdict": 0.0}], "note": null,
                               "other": "allowed at the top"})");
  Status status = check_schema(value, kVerdictsSchema);
  EXPECT_TRUE(status.ok()) << status.to_string();
}

struct SchemaCase {
  const char* name;
  const char* value;
  const char* error;
};

void PrintTo(const SchemaCase& c, std::ostream* out) { *out << c.name; }

class CheckSchemaRejects : public testing::TestWithParam<SchemaCase> {};

TEST_P(CheckSchemaRejects, NamingTheFirstOffendingPath) {
  Status status = check_schema(json::parse(GetParam().value), kVerdictsSchema);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), GetParam().error);
}

INSTANTIATE_TEST_SUITE_P(
    Errors, CheckSchemaRejects,
    testing::Values(
        SchemaCase{"not_object", "[]", "$: expected object"},
        SchemaCase{"required", "{}", "$.verdicts: required property missing"},
        SchemaCase{"integer", R"({"verdicts": [{"statement": "a", "verdict": 1},
                                              {"statement": "b", "verdict": 0},
                                              {"statement": "c", "verdict": "yes"}]})",
                   "$.verdicts[2].verdict: expected integer"},
        SchemaCase{"fractional_integer", R"({"verdicts": [{"statement": "a", "verdict": 0.5}]})",
                   "$.verdicts[0].verdict: expected integer"},
        SchemaCase{"enum", R"({"verdicts": [{"statement": "a", "verdict": 2}]})",
                   "$.verdicts[0].verdict: expected one of [0,1]"},
        SchemaCase{"minimum", R"({"verdicts": [{"statement": "a", "verdict": 1, "score": -0.1}]})",
                   "$.verdicts[0].score: below the minimum 0"},
        SchemaCase{"maximum", R"({"verdicts": [{"statement": "a", "verdict": 1, "score": 1.5}]})",
                   "$.verdicts[0].score: above the maximum 1"},
        SchemaCase{"number", R"({"verdicts": [{"statement": "a", "verdict": 1, "score": "high"}]})",
                   "$.verdicts[0].score: expected number"},
        SchemaCase{"nested_required", R"({"verdicts": [{"verdict": 1}]})",
                   "$.verdicts[0].statement: required property missing"},
        SchemaCase{"additional", R"({"verdicts": [{"statement": "a", "verdict": 1, "why": "x"}]})",
                   "$.verdicts[0].why: unexpected property"},
        SchemaCase{"odd_key_path", R"({"verdicts": [{"statement": "a", "verdict": 1, "a b": 1}]})",
                   "$.verdicts[0][\"a b\"]: unexpected property"},
        SchemaCase{"min_items", R"({"verdicts": []})",
                   "$.verdicts: expected at least 1 items, got 0"},
        SchemaCase{"max_items", R"({"verdicts": [{"statement": "a", "verdict": 1},
                                                {"statement": "a", "verdict": 1},
                                                {"statement": "a", "verdict": 1},
                                                {"statement": "a", "verdict": 1}]})",
                   "$.verdicts: expected at most 3 items, got 4"},
        SchemaCase{"type_list", R"({"verdicts": [{"statement": "a", "verdict": 1}], "note": 3})",
                   "$.note: expected string or null"}),
    [](const testing::TestParamInfo<SchemaCase>& info) { return std::string(info.param.name); });

TEST(CheckSchemaTest, AdditionalPropertiesSchemaChecksTheExtras) {
  json schema = {{"type", "object"}, {"additionalProperties", {{"type", "boolean"}}}};
  EXPECT_TRUE(check_schema(json{{"x", true}}, schema).ok());
  EXPECT_EQ(check_schema(json{{"x", 1}}, schema).message(), "$.x: expected boolean");
}

TEST(CheckSchemaTest, EmptyAndTrueSchemasAcceptAnything) {
  EXPECT_TRUE(check_schema(json{{"any", {1, 2}}}, json::object()).ok());
  EXPECT_TRUE(check_schema(json{{"any", {1, 2}}}, json(true)).ok());
  EXPECT_TRUE(check_schema(json{{"any", {1, 2}}}, json(nullptr)).ok());
}

TEST(CheckSchemaTest, ParsedRepliesAreCheckedEndToEnd) {
  StatusOr<json> parsed =
      parse_reply_json("```json\n{'verdicts': [{'statement': 'a', 'verdict': True}]}\n```");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(check_schema(*parsed, kVerdictsSchema).message(),
            "$.verdicts[0].verdict: expected integer");
}

}  // namespace
}  // namespace ragmeter::llm
