// The chunker: size bound, overlap, section boundaries, stable ids, UTF-8 safety, on
// made-up documents and on a real page of the Python documentation.

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "ragmeter/chunker.h"
#include "ragmeter/claim_ledger.h"  // its ragmeter::Chunk must not collide with ours (ASan found the ODR clash)
#include "ragmeter/dataset.h"
#include "ragmeter/documents.h"

namespace ragmeter {
namespace {

namespace fs = std::filesystem;

const fs::path kPythonDocs = "/usr/share/doc/python3-doc/html";

DocumentBlock block(std::string text, std::vector<std::string> headings = {}, bool is_heading = false,
                    int page = 0) {
  DocumentBlock b;
  b.text = std::move(text);
  b.headings = std::move(headings);
  b.is_heading = is_heading;
  b.page = page;
  return b;
}

Document document(std::vector<DocumentBlock> blocks) {
  Document doc;
  doc.path = "dir/doc.md";
  doc.title = "Doc";
  doc.format = DocumentFormat::kMarkdown;
  doc.blocks = std::move(blocks);
  return doc;
}

// "Sentence number 1 is here. Sentence number 2 is here. ..."
std::string sentences(int count, const std::string& tag = "Sentence") {
  std::string text;
  for (int i = 1; i <= count; ++i) {
    if (!text.empty()) text += ' ';
    text += tag + " number " + std::to_string(i) + " is here.";
  }
  return text;
}

std::vector<DocumentChunk> chunk(const Document& doc, ChunkerOptions options) {
  StatusOr<std::vector<DocumentChunk>> chunks = chunk_document(doc, options);
  EXPECT_TRUE(chunks.ok()) << chunks.status().to_string();
  return chunks.ok() ? std::move(chunks).value() : std::vector<DocumentChunk>{};
}

std::string without_spaces(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c != ' ' && c != '\n') out.push_back(c);
  }
  return out;
}

// The longest prefix of `next` that `previous` ends with.
std::string shared_text(const std::string& previous, const std::string& next) {
  for (std::size_t n = std::min(previous.size(), next.size()); n > 0; --n) {
    if (previous.compare(previous.size() - n, n, next, 0, n) == 0) return next.substr(0, n);
  }
  return "";
}

void expect_well_formed(const std::vector<DocumentChunk>& chunks, const ChunkerOptions& options) {
  for (const DocumentChunk& c : chunks) {
    EXPECT_LE(count_units(c.text, options.unit), options.size) << c.text;
    EXPECT_GE(count_units(c.text, options.unit), options.min_size) << c.text;
    EXPECT_TRUE(is_valid_utf8(c.text));
    EXPECT_FALSE(c.text.empty());
    EXPECT_NE(c.text.front(), ' ');
    EXPECT_NE(c.text.back(), ' ');
  }
}

TEST(ChunkerTest, BadOptionsAreErrors) {
  const Document doc = document({block("text")});
  EXPECT_EQ(chunk_document(doc, {.size = 0, .overlap = 0}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(chunk_document(doc, {.size = 100, .overlap = 100}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(chunk_document(doc, {.size = 100, .overlap = 200}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(chunk_document(doc, {.size = 100, .overlap = 99}).ok());
}

TEST(ChunkerTest, ShortDocumentIsOneChunkWithMetadata) {
  const Document doc = document({block("Title", {"Title"}, true), block(sentences(3), {"Title"})});
  const std::vector<DocumentChunk> chunks = chunk(doc, {.size = 1000, .overlap = 100, .min_size = 10});
  ASSERT_EQ(chunks.size(), 1u);
  EXPECT_EQ(chunks[0].text, "Title\n\n" + sentences(3));
  EXPECT_EQ(chunks[0].source_path, "dir/doc.md");
  EXPECT_EQ(chunks[0].title, "Doc");
  EXPECT_EQ(chunks[0].headings, (std::vector<std::string>{"Title"}));
  EXPECT_EQ(chunks[0].ordinal, 0u);
  EXPECT_EQ(chunks[0].page, 0);
}

TEST(ChunkerTest, CharacterSizeIsAnUpperBoundAndEndsAtSentences) {
  const Document doc = document({block(sentences(200))});
  const ChunkerOptions options{.size = 300, .overlap = 50, .min_size = 10};
  const std::vector<DocumentChunk> chunks = chunk(doc, options);
  ASSERT_GT(chunks.size(), 10u);
  expect_well_formed(chunks, options);
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    EXPECT_EQ(chunks[i].ordinal, i);
    EXPECT_EQ(chunks[i].text.back(), '.') << "chunk " << i << " does not end at a sentence end";
    EXPECT_EQ(chunks[i].text.rfind("Sentence", 0), 0u) << "chunk " << i << " does not start a sentence";
  }
  EXPECT_NE(chunks.back().text.find("Sentence number 200 is here."), std::string::npos);
}

TEST(ChunkerTest, ConsecutiveChunksOverlapAtASentence) {
  const Document doc = document({block(sentences(200))});
  const ChunkerOptions options{.size = 300, .overlap = 80, .min_size = 10};
  const std::vector<DocumentChunk> chunks = chunk(doc, options);
  ASSERT_GT(chunks.size(), 2u);
  for (std::size_t i = 1; i < chunks.size(); ++i) {
    const std::string shared = shared_text(chunks[i - 1].text, chunks[i].text);
    EXPECT_GE(shared.size(), 26u) << "chunk " << i;  // at least one whole sentence
    EXPECT_LE(count_units(shared, options.unit), options.overlap) << "chunk " << i;
    EXPECT_EQ(shared.rfind("Sentence", 0), 0u);
  }
  // No overlap: the chunks are the text, cut.
  const std::vector<DocumentChunk> plain = chunk(doc, {.size = 300, .overlap = 0, .min_size = 0});
  std::string joined;
  for (const DocumentChunk& c : plain) joined += c.text;
  EXPECT_EQ(without_spaces(joined), without_spaces(sentences(200)));
}

TEST(ChunkerTest, TokenSizeIsAnUpperBound) {
  const Document doc = document({block(sentences(300)), block("Second paragraph. " + sentences(40, "Other"))});
  const ChunkerOptions options{.size = 64, .overlap = 16, .unit = ChunkUnit::kTokens, .min_size = 5};
  const std::vector<DocumentChunk> chunks = chunk(doc, options);
  ASSERT_GT(chunks.size(), 20u);
  expect_well_formed(chunks, options);
  EXPECT_EQ(count_units("Hello, wide world! 42 times.", ChunkUnit::kTokens), 5u);
  // A paragraph end is preferred to a sentence end when it leaves a big enough chunk.
  bool ends_paragraph = false;
  for (const DocumentChunk& c : chunks) ends_paragraph |= c.text.ends_with("Sentence number 300 is here.");
  EXPECT_TRUE(ends_paragraph);
}

TEST(ChunkerTest, ChunksDoNotSpanSections) {
  const Document doc = document({
      block("Alpha", {"Alpha"}, true), block(sentences(30, "Alpha"), {"Alpha"}),
      block("Beta", {"Alpha", "Beta"}, true), block(sentences(30, "Beta"), {"Alpha", "Beta"}),
      block("Gamma", {"Gamma"}, true),  // a heading alone: joined to the next section
      block("Delta", {"Gamma", "Delta"}, true), block(sentences(30, "Delta"), {"Gamma", "Delta"}),
  });
  const ChunkerOptions options{.size = 400, .overlap = 60, .min_size = 20};
  const std::vector<DocumentChunk> chunks = chunk(doc, options);
  expect_well_formed(chunks, options);
  int sections_started = 0;
  for (const DocumentChunk& c : chunks) {
    const bool alpha = c.text.find("Alpha") != std::string::npos;
    const bool beta = c.text.find("Beta") != std::string::npos;
    const bool delta = c.text.find("Delta") != std::string::npos;
    EXPECT_EQ(alpha + beta + delta, 1) << c.text;
    if (alpha) {
      EXPECT_EQ(c.headings, (std::vector<std::string>{"Alpha"}));
    }
    if (beta) {
      EXPECT_EQ(c.headings, (std::vector<std::string>{"Alpha", "Beta"}));
    }
    if (c.text.starts_with("Alpha\n\n") || c.text.starts_with("Beta\n\n")) ++sections_started;
    if (c.text.starts_with("Gamma\n\nDelta\n\n")) {
      ++sections_started;
      EXPECT_EQ(c.headings, (std::vector<std::string>{"Gamma"}));  // its first block's path
    }
  }
  EXPECT_EQ(sections_started, 3);
}

TEST(ChunkerTest, ShortChunksAreDropped) {
  const Document doc = document({block("Tiny", {"Tiny"}, true)});
  EXPECT_TRUE(chunk(doc, {.size = 100, .overlap = 10, .min_size = 5}).empty());
  EXPECT_EQ(chunk(doc, {.size = 100, .overlap = 10, .min_size = 0}).size(), 1u);
}

TEST(ChunkerTest, IdsAreStableAndDistinct) {
  EXPECT_EQ(chunk_id("a.txt", 0, "hello"), "eb74c5f270f6cdb014821cdc03b10cf9212e1cdfef21bd9a450e5ba879c4862f");
  const Document doc = document({block(sentences(100))});
  const ChunkerOptions options{.size = 200, .overlap = 20, .min_size = 10};
  const std::vector<DocumentChunk> first = chunk(doc, options);
  const std::vector<DocumentChunk> second = chunk(doc, options);
  ASSERT_EQ(first.size(), second.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    EXPECT_EQ(first[i].id, second[i].id);
    EXPECT_EQ(first[i].id, chunk_id(first[i].source_path, i, first[i].text));
    EXPECT_EQ(first[i].id.size(), 64u);
    if (i > 0) {
      EXPECT_NE(first[i].id, first[i - 1].id);
    }
  }
}

TEST(ChunkerTest, MultibyteTextIsSplitBetweenCodePoints) {
  // CJK without spaces, emoji (4-byte sequences, one with a ZWJ) and accents.
  std::string text;
  for (int i = 0; i < 200; ++i) text += "東京は日本の首都です。😀👩‍💻 café ";
  const Document doc = document({block(text)});
  for (std::size_t size : {1, 2, 3, 7, 50, 333}) {
    const ChunkerOptions options{.size = size, .overlap = size / 3, .min_size = 0};
    const std::vector<DocumentChunk> chunks = chunk(doc, options);
    ASSERT_FALSE(chunks.empty());
    expect_well_formed(chunks, options);
  }
  const std::vector<DocumentChunk> cut = chunk(doc, {.size = 7, .overlap = 0, .min_size = 0});
  std::string joined;
  for (const DocumentChunk& c : cut) joined += c.text;
  EXPECT_EQ(without_spaces(joined), without_spaces(text));
  const ChunkerOptions tokens{.size = 5, .overlap = 2, .unit = ChunkUnit::kTokens, .min_size = 1};
  expect_well_formed(chunk(doc, tokens), tokens);
}

TEST(ChunkerTest, OneHugeWordIsCutByCharacters) {
  const Document doc = document({block(std::string(2'000'000, 'a'))});
  const ChunkerOptions options{.size = 1000, .overlap = 100, .min_size = 50};
  const std::vector<DocumentChunk> chunks = chunk(doc, options);
  expect_well_formed(chunks, options);
  EXPECT_EQ(chunks.size(), 2223u);  // 999 chunks of 1000 with 100 overlap per 900 new
  // In tokens, a word is one unit whatever its length.
  const std::vector<DocumentChunk> tokens = chunk(doc, {.size = 10, .overlap = 1, .unit = ChunkUnit::kTokens, .min_size = 1});
  ASSERT_EQ(tokens.size(), 1u);
}

TEST(ChunkerTest, PagesComeFromTheFirstBlock) {
  const Document doc = document({block(sentences(20), {}, false, 1), block(sentences(20, "Page2"), {}, false, 2),
                                 block(sentences(20, "Page3"), {}, false, 3)});
  const std::vector<DocumentChunk> chunks = chunk(doc, {.size = 400, .overlap = 40, .min_size = 10});
  ASSERT_GT(chunks.size(), 3u);
  for (const DocumentChunk& c : chunks) {
    if (c.text.starts_with("Page2")) {
      EXPECT_EQ(c.page, 2);
    }
    if (c.text.starts_with("Page3")) {
      EXPECT_EQ(c.page, 3);
    }
    if (c.text.starts_with("Sentence")) {
      EXPECT_EQ(c.page, 1);
    }
  }
}

TEST(ChunkerTest, RealHtmlPageChunksWithinBounds) {
  if (!fs::exists(kPythonDocs / "library/json.html")) GTEST_SKIP() << "python3-doc not installed";
  StatusOr<Document> doc = load_document(kPythonDocs / "library/json.html", kPythonDocs);
  ASSERT_TRUE(doc.ok());
  for (ChunkerOptions options : {ChunkerOptions{}, ChunkerOptions{.size = 256, .overlap = 32},
                                 ChunkerOptions{.size = 128, .overlap = 16, .unit = ChunkUnit::kTokens,
                                                .min_size = 8}}) {
    const std::vector<DocumentChunk> chunks = chunk(*doc, options);
    ASSERT_GT(chunks.size(), 10u);
    expect_well_formed(chunks, options);
    for (const DocumentChunk& c : chunks) {
      EXPECT_EQ(c.source_path, "library/json.html");
      ASSERT_FALSE(c.headings.empty());
      EXPECT_EQ(c.headings[0], "json — JSON encoder and decoder");
    }
  }
}

}  // namespace
}  // namespace ragmeter
