// Document loaders on real documents (the Python HTML docs, the libtasn1 PDF manual,
// both installed by scripts/setup.sh) and on edge-case files made in a temporary folder.

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ragmeter/dataset.h"
#include "ragmeter/documents.h"

namespace ragmeter {
namespace {

namespace fs = std::filesystem;

const fs::path kPythonDocs = "/usr/share/doc/python3-doc/html";
const fs::path kTasn1Pdf = "/usr/share/doc/libtasn1-doc/libtasn1.pdf";

class DocumentsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::path(::testing::TempDir()) /
           (std::string("ragmeter_docs_") + info->name() + "_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ignored);
    fs::remove_all(dir_, ignored);
  }

  fs::path write(const std::string& relative, const std::string& bytes) {
    const fs::path path = dir_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  fs::path dir_;
};

std::string all_text(const Document& doc) {
  std::string text;
  for (const DocumentBlock& block : doc.blocks) text += block.text + "\n";
  return text;
}

const DocumentBlock* find_block(const Document& doc, const std::string& needle) {
  for (const DocumentBlock& block : doc.blocks) {
    if (block.text.find(needle) != std::string::npos) return &block;
  }
  return nullptr;
}

// Text with whitespace and hyphens removed: what line layout cannot change.
std::string letters_only(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c != ' ' && c != '\n' && c != '\t' && c != '\r' && c != '\f' && c != '-') out.push_back(c);
  }
  return out;
}

std::string run_command(const std::string& command) {
  std::string output;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (pipe == nullptr) return output;
  char buffer[4096];
  std::size_t n;
  while ((n = fread(buffer, 1, sizeof buffer, pipe.get())) > 0) output.append(buffer, n);
  return output;
}

// A one-page PDF whose page content is `content` (no fonts: drawing only), with a
// correct cross-reference table.
std::string make_pdf(const std::string& content, const std::string& resources = "<< >>") {
  std::vector<std::string> objects = {
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources " + resources + " >>",
      "<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content + "\nendstream",
  };
  std::string pdf = "%PDF-1.4\n";
  std::vector<std::size_t> offsets;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    offsets.push_back(pdf.size());
    pdf += std::to_string(i + 1) + " 0 obj\n" + objects[i] + "\nendobj\n";
  }
  const std::size_t xref = pdf.size();
  pdf += "xref\n0 " + std::to_string(objects.size() + 1) + "\n0000000000 65535 f \n";
  for (std::size_t offset : offsets) {
    char line[32];
    std::snprintf(line, sizeof line, "%010zu 00000 n \n", offset);
    pdf += line;
  }
  pdf += "trailer\n<< /Size " + std::to_string(objects.size() + 1) + " /Root 1 0 R >>\nstartxref\n" +
         std::to_string(xref) + "\n%%EOF\n";
  return pdf;
}

TEST_F(DocumentsTest, PythonJsonPageKeepsContentAndDropsNavigation) {
  if (!fs::exists(kPythonDocs / "library/json.html")) GTEST_SKIP() << "python3-doc not installed";
  StatusOr<Document> doc = load_document(kPythonDocs / "library/json.html", kPythonDocs);
  ASSERT_TRUE(doc.ok()) << doc.status().to_string();
  EXPECT_EQ(doc->path, "library/json.html");
  EXPECT_EQ(doc->format, DocumentFormat::kHtml);
  EXPECT_EQ(doc->title, "json — JSON encoder and decoder — Python 3.11.2 documentation");
  const std::string text = all_text(*doc);
  EXPECT_NE(text.find("is a lightweight data interchange format inspired by JavaScript object literal syntax"),
            std::string::npos);
  for (const char* boilerplate : {"Previous topic", "Next topic", "Navigation", "This Page",
                                   "Report a Bug", "Quick search", "Table of Contents", "¶"}) {
    EXPECT_EQ(text.find(boilerplate), std::string::npos) << boilerplate;
  }
  ASSERT_FALSE(doc->blocks.empty());
  EXPECT_TRUE(doc->blocks[0].is_heading);
  EXPECT_EQ(doc->blocks[0].text, "json — JSON encoder and decoder");

  const DocumentBlock* dump = find_block(*doc, "as a JSON formatted stream to");
  ASSERT_NE(dump, nullptr);
  EXPECT_FALSE(dump->is_heading);
  EXPECT_EQ(dump->page, 0);
  EXPECT_EQ(dump->headings,
            (std::vector<std::string>{"json — JSON encoder and decoder", "Basic Usage"}));
  // Entities are decoded and code keeps its text: the signature line is one block.
  EXPECT_NE(find_block(*doc, "json.dump(obj, fp, *,"), nullptr);
}

TEST_F(DocumentsTest, PdfBlocksCarryPagesAndMatchPdftotext) {
  if (!fs::exists(kTasn1Pdf)) GTEST_SKIP() << "libtasn1-doc not installed";
  StatusOr<Document> doc = load_document(kTasn1Pdf, kTasn1Pdf.parent_path());
  ASSERT_TRUE(doc.ok()) << doc.status().to_string();
  EXPECT_EQ(doc->path, "libtasn1.pdf");
  EXPECT_EQ(doc->format, DocumentFormat::kPdf);
  EXPECT_EQ(doc->title, "libtasn1");  // the PDF has no metadata title: the file stem
  const DocumentBlock* parser = find_block(*doc, "The parser is case sensitive.");
  ASSERT_NE(parser, nullptr);
  EXPECT_EQ(parser->page, 5);
  // Lines of a paragraph are joined with spaces.
  EXPECT_NE(parser->text.find("another --, or at the end of the respective line, whichever comes first."),
            std::string::npos);
  const DocumentBlock* header = find_block(*doc, "The header file of this library is libtasn1.h.");
  ASSERT_NE(header, nullptr);
  EXPECT_EQ(header->page, 7);

  std::map<int, std::string> pages;
  for (const DocumentBlock& block : doc->blocks) {
    ASSERT_GE(block.page, 1);
    ASSERT_LE(block.page, 36);
    EXPECT_TRUE(is_valid_utf8(block.text));
    pages[block.page] += block.text + "\n";
  }
  if (run_command("command -v pdftotext").empty()) GTEST_SKIP() << "pdftotext not installed";
  for (int page = 1; page <= 36; ++page) {
    const std::string reference = run_command("pdftotext -q -enc UTF-8 -f " + std::to_string(page) +
                                              " -l " + std::to_string(page) + " '" + kTasn1Pdf.string() +
                                              "' -");
    // pdftotext follows columns (the two-column index) where poppler-cpp reads line by
    // line across them, so in general only the same characters are expected; on
    // single-column pages, the same text in the same order.
    std::string ours = letters_only(pages[page]);
    std::string theirs = letters_only(reference);
    if (page == 1 || page == 5 || page == 7) {
      EXPECT_EQ(ours, theirs) << "page " << page;
    }
    std::sort(ours.begin(), ours.end());
    std::sort(theirs.begin(), theirs.end());
    EXPECT_EQ(ours, theirs) << "page " << page;
  }
}

TEST_F(DocumentsTest, PdfWithoutTextLayerIsAProblem) {
  // A page that only paints a rectangle, like a scan without OCR.
  const fs::path scanned = write("scanned.pdf", make_pdf("0 0 1 rg 10 10 180 180 re f"));
  StatusOr<Document> doc = load_document(scanned, dir_);
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().message(), "no text layer (scanned PDF?)");

  const fs::path corrupt = write("corrupt.pdf", "%PDF-1.4\nthis is not really a PDF\n");
  EXPECT_FALSE(load_document(corrupt, dir_).ok());
}

TEST_F(DocumentsTest, PdfWithTextIsRead) {
  // The same hand-made PDF with one line of text in a standard font.
  const std::string pdf = make_pdf("BT /F1 12 Tf 20 100 Td (Hello from a tiny PDF.) Tj ET",
                                   "<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>");
  StatusOr<Document> doc = load_document(write("tiny.pdf", pdf), dir_);
  ASSERT_TRUE(doc.ok()) << doc.status().to_string();
  ASSERT_EQ(doc->blocks.size(), 1u);
  EXPECT_EQ(doc->blocks[0].text, "Hello from a tiny PDF.");
  EXPECT_EQ(doc->blocks[0].page, 1);
}

TEST_F(DocumentsTest, PlainTextParagraphsAndStemTitle) {
  const fs::path file = write("notes/a.txt", "\xEF\xBB\xBF" "First line\r\nsame paragraph\r\n\r\n \t\n\nSecond.\n");
  StatusOr<Document> doc = load_document(file, dir_);
  ASSERT_TRUE(doc.ok()) << doc.status().to_string();
  EXPECT_EQ(doc->path, "notes/a.txt");
  EXPECT_EQ(doc->title, "a");
  ASSERT_EQ(doc->blocks.size(), 2u);
  EXPECT_EQ(doc->blocks[0].text, "First line\nsame paragraph");
  EXPECT_EQ(doc->blocks[1].text, "Second.");
  EXPECT_TRUE(doc->blocks[0].headings.empty());
}

TEST_F(DocumentsTest, MarkdownHeadingsCodeAndInlineMarkup) {
  const std::string markdown =
      "Guide Title\n===========\n\n"
      "Intro with a [link](http://example.com) and *emphasis* and `code`.\n\n"
      "## Install\n\n"
      "Run **this**:\n\n"
      "```sh\nmake\n  make install\n```\n\n"
      "### Details\n\n- item one\n- item two\n\n"
      "Setext two\n----------\n\nLast words <b>bold</b>.\n";
  StatusOr<Document> doc = load_document(write("guide.md", markdown), dir_);
  ASSERT_TRUE(doc.ok()) << doc.status().to_string();
  EXPECT_EQ(doc->title, "Guide Title");
  std::vector<std::string> texts;
  for (const DocumentBlock& block : doc->blocks) texts.push_back(block.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"Guide Title", "Intro with a link and emphasis and code.",
                                             "Install", "Run this:", "make\n  make install", "Details",
                                             "item one", "item two", "Setext two", "Last words bold."}));
  EXPECT_TRUE(doc->blocks[0].is_heading);
  EXPECT_EQ(doc->blocks[4].headings, (std::vector<std::string>{"Guide Title", "Install"}));
  EXPECT_EQ(doc->blocks[6].headings, (std::vector<std::string>{"Guide Title", "Install", "Details"}));
  EXPECT_EQ(doc->blocks[9].headings, (std::vector<std::string>{"Guide Title", "Setext two"}));
}

TEST_F(DocumentsTest, HtmlBoilerplateRulesAndMainElement) {
  const std::string html =
      "<html><head><title> My &amp; Page </title><style>p{}</style></head><body>"
      "<nav>Site menu</nav><div class='sidebar'>Side</div>"
      "<main><h1>Top</h1><p>First &lt;para&gt; with <b>bold</b>\n  text.</p>"
      "<div role='navigation'>Skip me</div><script>var x;</script>"
      "<h2>Sub</h2><ul><li>one</li><li>two</li></ul><pre>a\n  b</pre>"
      "<div id='breadcrumbs'>Home &gt; Top</div></main>"
      "<footer>Copyright</footer></body></html>";
  StatusOr<Document> doc = load_document(write("page.htm", html), dir_);
  ASSERT_TRUE(doc.ok()) << doc.status().to_string();
  EXPECT_EQ(doc->title, "My & Page");
  std::vector<std::string> texts;
  for (const DocumentBlock& block : doc->blocks) texts.push_back(block.text);
  EXPECT_EQ(texts, (std::vector<std::string>{"Top", "First <para> with bold text.", "Sub", "one", "two",
                                             "a\n  b"}));
  EXPECT_EQ(doc->blocks[4].headings, (std::vector<std::string>{"Top", "Sub"}));
  // Without a <title>, the first h1 is the title.
  StatusOr<Document> untitled = load_document(write("untitled.html", "<h1>Heading One</h1><p>x</p>"), dir_);
  ASSERT_TRUE(untitled.ok());
  EXPECT_EQ(untitled->title, "Heading One");
}

TEST_F(DocumentsTest, EmptyAndWhitespaceOnlyFilesAreProblems) {
  for (const auto& [name, bytes] : std::vector<std::pair<std::string, std::string>>{
           {"empty.txt", ""}, {"blank.txt", " \n\t\r\n  "}, {"bom.md", "\xEF\xBB\xBF\n\n"},
           {"tags.html", "<html><body><script>x()</script></body></html>"}}) {
    StatusOr<Document> doc = load_document(write(name, bytes), dir_);
    ASSERT_FALSE(doc.ok()) << name;
    EXPECT_EQ(doc.status().message(), "empty") << name;
  }
}

TEST_F(DocumentsTest, Latin1FileNamesTheFirstBadByte) {
  StatusOr<Document> doc = load_document(write("latin1.txt", "Caf\xE9 au lait"), dir_);
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(doc.status().message(), "not valid UTF-8 (first bad byte at offset 3)");
  // The offset counts from the start of the file, BOM included.
  doc = load_document(write("bom_latin1.md", "\xEF\xBB\xBF" "ab\xFF"), dir_);
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().message(), "not valid UTF-8 (first bad byte at offset 5)");
}

TEST_F(DocumentsTest, FiveMegabyteSingleLineLoads) {
  std::string line;
  line.reserve(5u << 20);
  while (line.size() < (5u << 20)) line += "word\xC3\xA9 ";
  StatusOr<Document> doc = load_document(write("long.txt", line), dir_);
  ASSERT_TRUE(doc.ok()) << doc.status().to_string();
  ASSERT_EQ(doc->blocks.size(), 1u);
  EXPECT_EQ(doc->blocks[0].text.size(), line.size() - 1);  // the trailing space trimmed
}

TEST_F(DocumentsTest, LargerThanMaxFileBytesIsAProblem) {
  LoadOptions options;
  options.max_file_bytes = 10;
  StatusOr<Document> doc = load_document(write("big.txt", "eleven bytes"), dir_, options);
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().code(), StatusCode::kResourceExhausted);
}

TEST_F(DocumentsTest, FolderWalkIsSortedAndAppliesGlobs) {
  write("b.md", "# B\n\nbody b\n");
  write("a.txt", "body a\n");
  write("sub/c.html", "<p>body c</p>");
  write("sub/deeper/d.txt", "body d\n");
  write("sub/skip.txt", "skipped by exclude\n");
  write("drafts/e.txt", "excluded folder\n");
  write("image.png", "not a document");
  write(".hidden/f.txt", "hidden\n");
  write("bad.txt", "\xFF");
  LoadOptions options;
  options.exclude = {"drafts", "skip.*"};
  LoadResult result = load_documents(dir_, options);
  std::vector<std::string> paths;
  for (const Document& doc : result.documents) paths.push_back(doc.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"a.txt", "b.md", "sub/c.html", "sub/deeper/d.txt"}));
  ASSERT_EQ(result.problems.size(), 1u);
  EXPECT_EQ(result.problems[0].path, "bad.txt");
  EXPECT_EQ(result.problems[0].reason, "not valid UTF-8 (first bad byte at offset 0)");
  EXPECT_EQ(result.files_seen, 6u);  // a, b, c, d, png, bad (excluded and hidden not seen)

  options.include = {"sub/*.txt"};  // '*' crosses '/'
  options.exclude = {};
  paths.clear();
  for (const Document& doc : load_documents(dir_, options).documents) paths.push_back(doc.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"sub/deeper/d.txt", "sub/skip.txt"}));

  // A single file as the root is loaded whatever the globs.
  LoadResult single = load_documents(dir_ / "image.png", options);
  ASSERT_EQ(single.documents.size(), 1u);
  EXPECT_EQ(single.documents[0].path, "image.png");

  LoadResult missing = load_documents(dir_ / "nope", {});
  EXPECT_TRUE(missing.documents.empty());
  ASSERT_EQ(missing.problems.size(), 1u);
}

TEST_F(DocumentsTest, UnreadableFileIsAProblem) {
  if (geteuid() == 0) GTEST_SKIP() << "root reads files whatever their mode";
  const fs::path file = write("secret.txt", "text\n");
  fs::permissions(file, fs::perms::none);
  LoadResult result = load_documents(dir_, {});
  ASSERT_EQ(result.problems.size(), 1u);
  EXPECT_EQ(result.problems[0].path, "secret.txt");
  EXPECT_NE(result.problems[0].reason.find("cannot open"), std::string::npos);
}

TEST_F(DocumentsTest, WholePythonDocsFolderLoads) {
  if (!fs::exists(kPythonDocs / "library")) GTEST_SKIP() << "python3-doc not installed";
  LoadOptions options;
  options.include = {"library/*.html"};
  LoadResult result = load_documents(kPythonDocs, options);
  EXPECT_GT(result.documents.size(), 250u);
  for (const Document& doc : result.documents) {
    for (const DocumentBlock& block : doc.blocks) ASSERT_TRUE(is_valid_utf8(block.text)) << doc.path;
  }
  for (std::size_t i = 1; i < result.documents.size(); ++i) {
    EXPECT_LT(result.documents[i - 1].path, result.documents[i].path);
  }
}

}  // namespace
}  // namespace ragmeter
