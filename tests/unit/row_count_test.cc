// count_dataset_rows (dataset.h): the progress display's total. Each case is counted by
// hand and checked against what the reader itself yields (rows and rejected rows) for the
// same bytes, so the total is the number of rows a run will see.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "ragmeter/dataset.h"

namespace ragmeter {
namespace {

namespace fs = std::filesystem;

// Writes `content` to a temporary file named `name`; removes it with the object.
class Written {
 public:
  Written(const std::string& name, const std::string& content)
      : path_(fs::temp_directory_path() /
              ("ragmeter_row_count_" + std::to_string(::getpid()) + "_" + name)) {
    std::ofstream(path_, std::ios::binary) << content;
  }
  ~Written() { fs::remove(path_); }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

// What the reader yields: rows and rejected rows, as a run counts them.
std::int64_t rows_read(const std::string& path) {
  auto reader = open_dataset(path);
  EXPECT_TRUE(reader.ok()) << reader.status().to_string();
  std::int64_t n = 0;
  Row row;
  RowError error;
  while ((*reader)->next(&row, &error) != RowReader::Result::kEnd) ++n;
  return n;
}

void expect_count(const std::string& name, const std::string& content, std::int64_t rows) {
  Written file(name, content);
  EXPECT_EQ(count_dataset_rows(file.path(), DatasetFormat::kAuto), rows) << name;
  EXPECT_EQ(rows_read(file.path()), rows) << name << ": the reader disagrees";
}

TEST(RowCountTest, JsonlCountsNonBlankLinesWithABadLineAmongThem) {
  expect_count("a.jsonl", "{\"a\": 1}\n\n{\"a\": 2}\r\n   \nnot json\n{\"a\": 3}", 4);
  expect_count("empty.jsonl", "", 0);
}

TEST(RowCountTest, CsvCountsRecordsAfterTheHeaderWithQuotedLineBreaksInside) {
  // Header, a cell spanning two lines, a "" escape, CRLF and a lone CR, a blank line.
  expect_count("a.csv",
               "q,r\r\n\"line one\nline two\",x\r\n\"say \"\"hi\"\"\",y\r\n"
               "\r\nlast,z\rmore,w\n",
               4);
  expect_count("header.csv", "q,r\n", 0);
}

TEST(RowCountTest, JsonCountsTopLevelElementsNotNestedOnesOrCommasInStrings) {
  expect_count("a.json",
               "\xEF\xBB\xBF[ {\"a\": [1, 2, {\"b\": \"x, ] y\"}]},\n"
               " {\"c\": \"\\\"]\"},\n 7 ]",
               3);
  expect_count("empty.json", "[ ]", 0);
}

TEST(RowCountTest, NoCountWhereNoneIsCheap) {
  Written object("o.json", "{\"data\": [{\"a\": 1}]}");
  EXPECT_EQ(count_dataset_rows(object.path(), DatasetFormat::kAuto), std::nullopt);
  EXPECT_EQ(count_dataset_rows(object.path(), DatasetFormat::kJson, "data"), std::nullopt);
  EXPECT_EQ(count_dataset_rows("-", DatasetFormat::kJsonl), std::nullopt);
  EXPECT_EQ(count_dataset_rows("/no/such/file.jsonl", DatasetFormat::kAuto), std::nullopt);
  Written rows("r.jsonl", "{}\n{}\n");
  const std::atomic<bool> stop{true};
  EXPECT_EQ(count_dataset_rows(rows.path(), DatasetFormat::kAuto, "", &stop), std::nullopt);
  EXPECT_EQ(count_dataset_rows(rows.path(), DatasetFormat::kCsv), 1);  // the format given wins
}

}  // namespace
}  // namespace ragmeter
