// WordPiece tokenizer on a tiny hand-written tokenizer.json (hand-checked cases); the
// real model's file is compared with `tokenizers` by tests/oracle/test_wordpiece_tokenizer.py.
#include "embed/wordpiece_tokenizer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ragmeter {
namespace {

std::string tiny_tokenizer_json(const std::string& normalizer_type = "BertNormalizer") {
  return R"({"added_tokens": [{"id": 3, "content": "[MASK]", "special": true, "normalized": false}],
    "normalizer": {"type": ")" + normalizer_type + R"(", "clean_text": true,
      "handle_chinese_chars": true, "strip_accents": null, "lowercase": true},
    "pre_tokenizer": {"type": "BertPreTokenizer"},
    "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
      "max_input_chars_per_word": 9,
      "vocab": {"[UNK]": 0, "[CLS]": 1, "[SEP]": 2, "[MASK]": 3, "un": 4, "##aff": 5,
                "##able": 6, "cafe": 7, ",": 8, "東": 9, "a": 10, "##a": 11}}})";
}

WordPieceTokenizer tiny() {
  auto tokenizer = WordPieceTokenizer::parse(tiny_tokenizer_json(), "tiny.json");
  EXPECT_TRUE(tokenizer.ok()) << tokenizer.status().to_string();
  return std::move(tokenizer).value();
}

TEST(WordPieceTokenizerTest, GreedyLongestPiecesWithContinuationPrefix) {
  EXPECT_EQ(tiny().encode("unaffable"), (std::vector<std::int32_t>{1, 4, 5, 6, 2}));
}

TEST(WordPieceTokenizerTest, AccentsStrippedAndLowercasedPunctuationAlone) {
  // "CAFÉ," -> "cafe" ","; "Cafe\u0301" (decomposed) the same.
  EXPECT_EQ(tiny().encode("CAFÉ, Cafe\u0301"), (std::vector<std::int32_t>{1, 7, 8, 7, 2}));
}

TEST(WordPieceTokenizerTest, UnmatchedPartMakesTheWholeWordUnknown) {
  EXPECT_EQ(tiny().encode("unafx"), (std::vector<std::int32_t>{1, 0, 2}));
}

TEST(WordPieceTokenizerTest, WordLongerThanTheLimitIsUnknown) {
  // 9 characters (the limit): "a" then eight "##a"; 10 are unknown.
  EXPECT_EQ(tiny().encode("aaaaaaaaa"),
            (std::vector<std::int32_t>{1, 10, 11, 11, 11, 11, 11, 11, 11, 11, 2}));
  EXPECT_EQ(tiny().encode("aaaaaaaaaa"), (std::vector<std::int32_t>{1, 0, 2}));
}

TEST(WordPieceTokenizerTest, ChineseCharactersAreWordsAndSpecialTokensKeptWhole) {
  EXPECT_EQ(tiny().encode("a東a[MASK]a"), (std::vector<std::int32_t>{1, 10, 9, 10, 3, 10, 2}));
  EXPECT_EQ(tiny().pre_tokenize("a東a[MASK]a"),
            (std::vector<std::string>{"a", "東", "a", "[MASK]", "a"}));
}

TEST(WordPieceTokenizerTest, EmptyAndInvisibleTextGiveClsSep) {
  EXPECT_EQ(tiny().encode(""), (std::vector<std::int32_t>{1, 2}));
  EXPECT_EQ(tiny().encode(" \t\u200b\n"), (std::vector<std::int32_t>{1, 2}));
}

TEST(WordPieceTokenizerTest, TruncationKeepsTheFirstPiecesAndSep) {
  EXPECT_EQ(tiny().encode("a a a a a", 4), (std::vector<std::int32_t>{1, 10, 10, 2}));
  EXPECT_EQ(tiny().encode("a a", 4), (std::vector<std::int32_t>{1, 10, 10, 2}));
}

TEST(WordPieceTokenizerTest, OtherNormalizerIsRejectedNamingTheField) {
  auto tokenizer = WordPieceTokenizer::parse(tiny_tokenizer_json("NFC"), "tiny.json");
  ASSERT_FALSE(tokenizer.ok());
  EXPECT_EQ(tokenizer.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(tokenizer.status().message().find("tiny.json: field normalizer"), std::string::npos);
}

TEST(WordPieceTokenizerTest, MissingFileIsNotFound) {
  EXPECT_EQ(WordPieceTokenizer::load("/nonexistent/tokenizer.json").status().code(),
            StatusCode::kNotFound);
}

}  // namespace
}  // namespace ragmeter
