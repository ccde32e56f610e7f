#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/list_literal.h"
#include "ragmeter/dataset.h"
#include "tests/unit/test_paths.h"

namespace ragmeter {
namespace {

namespace fs = std::filesystem;

const fs::path kFixtures = fs::path(RAGMETER_SOURCE_DIR) / "tests" / "data" / "readers";

// Everything a reader produced, in order: 'R' for a row, 'E' for an error.
struct ReadResult {
  std::string sequence;
  std::vector<Row> rows;
  std::vector<RowError> errors;
};

ReadResult read_all(RowReader& reader) {
  ReadResult result;
  for (;;) {
    Row row;
    RowError error;
    const RowReader::Result status = reader.next(&row, &error);
    if (status == RowReader::Result::kEnd) break;
    if (status == RowReader::Result::kRow) {
      result.sequence += 'R';
      result.rows.push_back(std::move(row));
    } else {
      result.sequence += 'E';
      result.errors.push_back(std::move(error));
    }
  }
  return result;
}

ReadResult read_path(const fs::path& path, DatasetFormat format = DatasetFormat::kAuto) {
  auto reader = open_dataset(path.string(), format);
  EXPECT_TRUE(reader.ok()) << reader.status().to_string();
  if (!reader.ok()) return {};
  return read_all(**reader);
}

ReadResult read_fixture(const std::string& name) { return read_path(kFixtures / name); }

// "line:column" of an error.
std::string place(const RowError& error) {
  return std::to_string(error.line) + ":" + std::to_string(error.column);
}

// A file in a fresh temporary directory, removed with the object.
class TempFile {
 public:
  TempFile(const std::string& name, const std::string& content) {
    dir_ = fs::temp_directory_path() /
           ("ragmeter_reader_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    fs::create_directories(dir_);
    std::ofstream(path(name), std::ios::binary) << content;
    name_ = name;
  }
  ~TempFile() {
    std::error_code ignored;
    fs::remove_all(dir_, ignored);
  }
  fs::path path() const { return dir_ / name_; }
  fs::path path(const std::string& name) const { return dir_ / name; }
  fs::path dir() const { return dir_; }

 private:
  static inline int counter_ = 0;
  fs::path dir_;
  std::string name_;
};

ReadResult read_text(const std::string& name, const std::string& content) {
  TempFile file(name, content);
  return read_path(file.path());
}

// ---------------------------------------------------------------------------- JSONL

TEST(JsonlReaderTest, ReadsObjectsInOrderWithLinesAndIndexes) {
  const ReadResult result = read_text("a.jsonl", "{\"b\": 1, \"a\": [\"x\"]}\n{\"b\": 2}\n");
  ASSERT_EQ(result.sequence, "RR");
  EXPECT_EQ(result.rows[0].fields.dump(), R"({"b":1,"a":["x"]})");  // input order kept
  EXPECT_EQ(result.rows[0].line, 1);
  EXPECT_EQ(result.rows[0].index, 0);
  EXPECT_EQ(result.rows[1].line, 2);
  EXPECT_EQ(result.rows[1].index, 1);
}

TEST(JsonlReaderTest, MalformedLineIsReportedWithLineAndRunContinues) {
  const ReadResult result = read_fixture("bad_line.jsonl");
  ASSERT_EQ(result.sequence, "REER");
  EXPECT_EQ(result.rows[0].fields["response"], "a1");
  const RowError& bad = result.errors[0];
  EXPECT_EQ(bad.file, (kFixtures / "bad_line.jsonl").string());
  EXPECT_EQ(place(bad), "3:34");  // the 'o' of oops
  EXPECT_EQ(bad.index, 1);
  EXPECT_NE(bad.message.find("syntax error"), std::string::npos) << bad.message;
  EXPECT_EQ(bad.message.find("json.exception"), std::string::npos) << bad.message;
  EXPECT_EQ(result.rows[1].fields["response"], "a3");
  EXPECT_EQ(result.rows[1].line, 5);
  EXPECT_EQ(result.rows[1].index, 3);
}

TEST(JsonlReaderTest, LineThatIsNotAnObjectIsAnError) {
  const ReadResult result = read_fixture("bad_line.jsonl");
  ASSERT_EQ(result.errors.size(), 2u);
  EXPECT_EQ(place(result.errors[1]), "4:1");
  EXPECT_EQ(result.errors[1].message, "expected a JSON object, got a JSON array");
}

TEST(JsonlReaderTest, ByteOrderMarkCrlfAndBlankLinesAreAccepted) {
  const ReadResult result = read_fixture("crlf_bom.jsonl");
  ASSERT_EQ(result.sequence, "RR");
  EXPECT_EQ(result.rows[0].fields["a"], 1);
  EXPECT_EQ(result.rows[1].fields["a"], 2);
  EXPECT_EQ(result.rows[1].line, 3);
}

TEST(JsonlReaderTest, ColumnsCountTheByteOrderMark) {
  const ReadResult result = read_text("bom.jsonl", "\xEF\xBB\xBF{\"a\": x}\n");
  ASSERT_EQ(result.sequence, "E");
  EXPECT_EQ(result.errors[0].column, 4 + 6);  // 3 bytes of mark, then the x at 7
}

TEST(JsonlReaderTest, EmptyFileHasNoRows) {
  EXPECT_EQ(read_fixture("empty.jsonl").sequence, "");
}

TEST(JsonlReaderTest, LastLineWithoutNewlineIsRead) {
  EXPECT_EQ(read_text("a.jsonl", "{\"a\": 1}\n{\"a\": 2}").sequence, "RR");
}

TEST(JsonlReaderTest, InvalidUtf8NamesTheFieldAndByteColumn) {
  const ReadResult result = read_fixture("invalid_utf8.jsonl");
  ASSERT_EQ(result.sequence, "RER");
  const RowError& bad = result.errors[0];
  EXPECT_EQ(bad.field, "response");
  EXPECT_EQ(place(bad), "2:38");  // the 0xE9 after "caf"
  EXPECT_EQ(bad.message, "invalid UTF-8 (byte 0xE9)");
  EXPECT_EQ(bad.to_string(),
            (kFixtures / "invalid_utf8.jsonl").string() +
                ":2:38: field 'response': invalid UTF-8 (byte 0xE9)");
}

TEST(JsonlReaderTest, InvalidUtf8InsideNestedValueNamesTheTopLevelField) {
  const ReadResult result =
      read_text("a.jsonl", "{\"a\": \"ok\", \"ctx\": [\"x\", {\"k\": \"\xFF\"}]}\n");
  ASSERT_EQ(result.sequence, "E");
  EXPECT_EQ(result.errors[0].field, "ctx");
}

TEST(JsonlReaderTest, InvalidUtf8InAKeyIsReportedWithoutTheKey) {
  const ReadResult result = read_text("a.jsonl", "{\"a\": 1, \"b\xC3\": 2}\n");
  ASSERT_EQ(result.sequence, "E");
  EXPECT_EQ(result.errors[0].field, "");
  EXPECT_EQ(result.errors[0].message, "invalid UTF-8 in a field name (byte 0xC3)");
}

TEST(JsonlReaderTest, KeepsReturningEndAfterTheEnd) {
  TempFile file("a.jsonl", "{\"a\": 1}\n");
  auto reader = open_dataset(file.path().string());
  ASSERT_TRUE(reader.ok());
  Row row;
  RowError error;
  EXPECT_EQ((*reader)->next(&row, &error), RowReader::Result::kRow);
  EXPECT_EQ((*reader)->next(&row, &error), RowReader::Result::kEnd);
  EXPECT_EQ((*reader)->next(&row, &error), RowReader::Result::kEnd);
}

// True when `a` and `b` are the same value with the same types and key order. nlohmann's
// == does not tell these apart: it takes an unsigned 1 for a signed 1 and 0.0 for -0.0.
bool identical(const nlohmann::ordered_json& a, const nlohmann::ordered_json& b) {
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto x = a.begin(), y = b.begin(); x != a.end(); ++x, ++y) {
      if (x.key() != y.key() || !identical(*x, *y)) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!identical(a[i], b[i])) return false;
    }
    return true;
  }
  if (a.is_number_float()) {
    return a == b && std::signbit(a.get<double>()) == std::signbit(b.get<double>());
  }
  return a == b;
}

// Rows that the simdjson path must build exactly as nlohmann's parse does, including
// the ones it hands back to nlohmann (-0, nesting deeper than simdjson's 1024 levels).
const std::string kIntegersRow =
    R"({"unsigned": 7, "zero": 0, "negative_zero": -0, "negative": -7})";
const std::string kLimitsRow =
    R"({"int64_max": 9223372036854775807, "above_int64": 9223372036854775808,)"
    R"( "uint64_max": 18446744073709551615, "int64_min": -9223372036854775808,)"
    R"( "below_int64": -9223372036854775809, "above_uint64": 18446744073709551616})";
const std::string kFloatsRow =
    R"({"float": 1.5, "exponent": 1e2, "negative_float_zero": -0.0, "exponent_zero": -0e1,)"
    R"( "tiny": 4.9e-324, "sum": 0.30000000000000004, "long": 1234567890123456789012e-10})";
const std::string kNestedRow =
    R"({"nested": {"b": [1, {"c": [true, false, null, []]}], "d": {}}, "e": [[[]]], "f": {}})";
const std::string kEscapesRow =
    R"({"escapes": "caf\u00e9 \ud83d\ude00 \u2013 \u0000 \n\t\"\\\/\b\f\r", "raw": "café 😀"})";
const std::string kKeyOrderRow = R"({"z": 1, "a": 2, "m": {"y": 1, "b": 2}, "\u00e9": 3, "": 4})";
const std::string kDuplicateKeysRow = R"({"dup": 1, "other": 2, "dup": {"x": 3, "x": 4}})";
const std::string kMinusZeroInTextRow = R"({"text": "-0 and 2020-01-02", "zero": 0, "l": [0, -1]})";
const std::string kDeepRow = R"({"deep": )" + std::string(1100, '[') + std::string(1100, ']') + "}";

std::vector<std::string> rows_nlohmann_would_parse() {
  return {kIntegersRow, kLimitsRow,        kFloatsRow,          kNestedRow, kEscapesRow,
          kKeyOrderRow, kDuplicateKeysRow, kMinusZeroInTextRow, kDeepRow};
}

TEST(JsonlReaderTest, RowsAreTheValuesNlohmannWouldParseTypesIncluded) {
  const std::vector<std::string> lines = rows_nlohmann_would_parse();
  std::string text;
  for (const std::string& line : lines) text += line + "\n";
  const ReadResult result = read_text("a.jsonl", text);
  ASSERT_EQ(result.sequence, std::string(lines.size(), 'R'));
  for (std::size_t i = 0; i < lines.size(); ++i) {
    EXPECT_TRUE(identical(result.rows[i].fields, nlohmann::ordered_json::parse(lines[i])))
        << lines[i] << "\nread as " << result.rows[i].fields.dump();
  }
}

TEST(JsonlReaderTest, NumbersKeepNlohmannsIntegerAndFloatingPointTypes) {
  const ReadResult result =
      read_text("a.jsonl", kIntegersRow + "\n" + kLimitsRow + "\n" + kFloatsRow + "\n");
  ASSERT_EQ(result.sequence, "RRR");
  const auto& small = result.rows[0].fields;
  EXPECT_TRUE(small["unsigned"].is_number_unsigned());  // nlohmann: no minus sign, unsigned
  EXPECT_TRUE(small["zero"].is_number_unsigned());
  EXPECT_TRUE(small["negative_zero"].is_number_integer());
  EXPECT_FALSE(small["negative_zero"].is_number_unsigned());
  EXPECT_EQ(small["negative"].get<std::int64_t>(), -7);
  const auto& limits = result.rows[1].fields;
  EXPECT_EQ(limits["int64_min"].get<std::int64_t>(), INT64_MIN);
  EXPECT_TRUE(limits["int64_max"].is_number_unsigned());
  EXPECT_EQ(limits["uint64_max"].get<std::uint64_t>(), UINT64_MAX);
  EXPECT_TRUE(limits["below_int64"].is_number_float());
  EXPECT_TRUE(limits["above_uint64"].is_number_float());
  const auto& floats = result.rows[2].fields;
  EXPECT_TRUE(floats["exponent"].is_number_float());
  EXPECT_EQ(floats["exponent"].get<double>(), 100.0);
  EXPECT_TRUE(std::signbit(floats["negative_float_zero"].get<double>()));
  EXPECT_EQ(floats["sum"].get<double>(), 0.1 + 0.2);
}

TEST(JsonlReaderTest, UnicodeEscapesAreDecodedToUtf8) {
  const ReadResult result = read_text("a.jsonl", kEscapesRow + "\n");
  ASSERT_EQ(result.sequence, "R");
  using namespace std::string_literals;  // for the NUL inside the expected string
  EXPECT_EQ(result.rows[0].fields["escapes"].get<std::string>(),
            "caf\xC3\xA9 \xF0\x9F\x98\x80 \xE2\x80\x93 \0 \n\t\"\\/\b\f\r"s);
}

TEST(JsonlReaderTest, KeysKeepTheirOrderAndADuplicateKeyKeepsItsFirstPlaceAndLastValue) {
  const ReadResult result = read_text("a.jsonl", kKeyOrderRow + "\n" + kDuplicateKeysRow + "\n");
  ASSERT_EQ(result.sequence, "RR");
  EXPECT_EQ(result.rows[0].fields.dump(), R"({"z":1,"a":2,"m":{"y":1,"b":2},"é":3,"":4})");
  EXPECT_EQ(result.rows[1].fields.dump(), R"({"dup":{"x":4},"other":2})");
}

TEST(JsonlReaderTest, BigRowsAreReadAndRowsAfterThemStillReportExactColumns) {
  const std::string long_text(3 << 20, 'w');  // more than the parser keeps buffers for
  std::string many_keys = "{";
  for (int i = 0; i < 2000; ++i) {
    many_keys += (i ? ", \"k" : "\"k") + std::to_string(i) + "\": " + std::to_string(i);
  }
  many_keys += "}";
  std::string long_list = "{\"ids\": [";
  for (int i = 0; i < 100000; ++i) long_list += (i ? ", " : "") + std::to_string(i);
  long_list += "]}";
  const ReadResult result =
      read_text("a.jsonl", "{\"response\": \"" + long_text + "\"}\n{\"a\": 1}\n" + many_keys +
                               "\n" + long_list + "\n{\"a\": x}\n{\"response\": \"" + long_text +
                               "\", \"b\": tru}\n{\"a\": 1e400}\n{\"a\": 2}\n");
  ASSERT_EQ(result.sequence, "RRRREEER");
  EXPECT_EQ(result.rows[0].fields["response"].get<std::string>().size(), long_text.size());
  EXPECT_EQ(result.rows[1].fields.dump(), R"({"a":1})");
  ASSERT_EQ(result.rows[2].fields.size(), 2000u);
  EXPECT_EQ(result.rows[2].fields.begin().key(), "k0");
  EXPECT_EQ(result.rows[2].fields["k1999"], 1999);
  ASSERT_EQ(result.rows[3].fields["ids"].size(), 100000u);
  EXPECT_EQ(result.rows[3].fields["ids"][99999], 99999);
  EXPECT_EQ(place(result.errors[0]), "5:7");  // the x
  EXPECT_EQ(result.errors[1].line, 6);
  EXPECT_NE(result.errors[1].message.find("syntax error"), std::string::npos);
  EXPECT_EQ(result.errors[2].line, 7);  // simdjson and nlohmann both reject 1e400
  EXPECT_NE(result.errors[2].message.find("number overflow parsing '1e400'"), std::string::npos);
  EXPECT_EQ(result.rows[4].fields["a"], 2);
}

// ----------------------------------------------------------------------- JSON array

TEST(JsonArrayReaderTest, BadElementIsReportedAndTheNextElementIsRead) {
  const ReadResult result = read_fixture("bad_element.json");
  ASSERT_EQ(result.sequence, "RERER");
  EXPECT_EQ(result.rows[0].fields["user_input"], "q1");
  EXPECT_EQ(result.rows[0].line, 2);
  EXPECT_EQ(place(result.errors[0]), "3:3");
  EXPECT_EQ(result.errors[0].message, "expected a JSON object, got a JSON number");
  EXPECT_EQ(result.errors[0].index, 1);
  EXPECT_EQ(result.rows[1].fields["response"], "a2");
  EXPECT_EQ(result.rows[1].line, 4);  // where the element starts
  EXPECT_EQ(place(result.errors[1]), "6:32");  // nlohmann stops after "response"
  EXPECT_NE(result.errors[1].message.find("syntax error"), std::string::npos);
}

TEST(JsonArrayReaderTest, BracketsBracesCommasAndEscapedQuotesInStringsDoNotSplitElements) {
  const ReadResult result = read_fixture("bad_element.json");
  ASSERT_EQ(result.rows.size(), 3u);
  EXPECT_EQ(result.rows[2].fields["user_input"],
            "q4, with [brackets] and {braces} and \"quotes\"");
  EXPECT_EQ(result.rows[2].line, 7);
  EXPECT_EQ(result.rows[2].index, 4);
}

// Not one bad row but unusable input: open_dataset says so, with the place.
TEST(JsonArrayReaderTest, FileThatIsNotAnArrayIsAnErrorAtOpen) {
  const fs::path path = kFixtures / "not_array.json";
  auto reader = open_dataset(path.string());
  ASSERT_FALSE(reader.ok());
  EXPECT_EQ(reader.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(reader.status().message().find(path.string() + ":1:1: expected a JSON array"),
            std::string::npos)
      << reader.status().message();
}

TEST(JsonArrayReaderTest, ByteOrderMarkAndCrlfAreAccepted) {
  const ReadResult result = read_fixture("crlf_bom.json");
  ASSERT_EQ(result.sequence, "RR");
  EXPECT_EQ(result.rows[1].fields["a"], 2);
  EXPECT_EQ(result.rows[1].line, 3);
}

TEST(JsonArrayReaderTest, EmptyFileAndEmptyArrayHaveNoRows) {
  EXPECT_EQ(read_fixture("empty.json").sequence, "");
  EXPECT_EQ(read_text("a.json", " [ ] \n").sequence, "");
}

TEST(JsonArrayReaderTest, UnclosedArrayIsAnErrorAfterTheRowsBeforeIt) {
  EXPECT_EQ(read_text("a.json", "[{\"a\": 1},\n").sequence, "RE");
  const ReadResult cut = read_text("a.json", "[{\"a\": 1}, {\"a\": ");
  ASSERT_EQ(cut.sequence, "RE");
  EXPECT_NE(cut.errors[0].message.find("end of input"), std::string::npos);
}

TEST(JsonArrayReaderTest, MissingElementsAndTrailingCommaAreErrors) {
  const ReadResult result = read_text("a.json", "[{\"a\": 1},,{\"a\": 2},]");
  ASSERT_EQ(result.sequence, "RERE");
  EXPECT_EQ(result.errors[0].message, "missing element before ','");
  EXPECT_EQ(result.errors[1].message, "trailing comma before ']'");
}

TEST(JsonArrayReaderTest, ContentAfterTheArrayIsAnError) {
  const ReadResult result = read_text("a.json", "[{\"a\": 1}]\n[{\"a\": 2}]\n");
  ASSERT_EQ(result.sequence, "RE");
  EXPECT_EQ(result.errors[0].line, 2);
  EXPECT_EQ(result.errors[0].message, "unexpected content after the array");
}

TEST(JsonArrayReaderTest, InvalidUtf8NamesTheFieldAndTheLineOfTheByte) {
  const ReadResult result = read_fixture("invalid_utf8.json");
  ASSERT_EQ(result.sequence, "RER");
  const RowError& bad = result.errors[0];
  EXPECT_EQ(bad.field, "response");
  // The element starts on line 3; the byte is on line 4 after `   "response": "bad `.
  EXPECT_EQ(place(bad), "4:21");
  EXPECT_EQ(bad.message, "invalid UTF-8 (byte 0xED)");
}

TEST(JsonArrayReaderTest, ElementsLargerThanTheReadBufferAreRead) {
  const std::string big(200000, 'x');
  const ReadResult result =
      read_text("a.json", "[{\"a\": \"" + big + "\"}, {\"b\": \"" + big + "\"}]");
  ASSERT_EQ(result.sequence, "RR");
  EXPECT_EQ(result.rows[1].fields["b"].get<std::string>().size(), big.size());
}

TEST(JsonArrayReaderTest, ElementsAreTheValuesNlohmannWouldParseTypesIncluded) {
  const std::vector<std::string> elements = rows_nlohmann_would_parse();
  std::string text = "[";
  for (const std::string& element : elements) text += (text.size() > 1 ? ",\n" : "") + element;
  const ReadResult result = read_text("a.json", text + "]");
  ASSERT_EQ(result.sequence, std::string(elements.size(), 'R'));
  for (std::size_t i = 0; i < elements.size(); ++i) {
    EXPECT_TRUE(identical(result.rows[i].fields, nlohmann::ordered_json::parse(elements[i])))
        << elements[i] << "\nread as " << result.rows[i].fields.dump();
  }
}

// ------------------------------------------------------------------------------ CSV

TEST(CsvReaderTest, PandasExportIsReadWithQuotedCellsAndListColumnsIntact) {
  const ReadResult result = read_fixture("pandas_export.csv");
  ASSERT_EQ(result.sequence, "RRRR");
  const Row& first = result.rows[0];
  EXPECT_EQ(first.line, 2);
  EXPECT_EQ(first.fields.begin().key(), "Unnamed: 0");  // pandas' name for the index
  EXPECT_EQ(first.fields["Unnamed: 0"], "0");           // cells stay strings
  EXPECT_EQ(first.fields["score"], "0.9");
  EXPECT_EQ(first.fields["retrieved_contexts"],
            "['Paris is the capital and largest city of France.', \"France's capital is Paris.\"]");
  const Row& second = result.rows[1];
  EXPECT_EQ(second.fields["user_input"], "Who wrote \"Hamlet\", and when?");
  EXPECT_EQ(second.fields["response"], "Shakespeare wrote it.\nAround 1600.");
  EXPECT_EQ(result.rows[2].line, 5);  // the embedded newline made row 1 two lines long
  EXPECT_EQ(result.rows[2].fields["reference"], "");
  EXPECT_EQ(result.rows[2].fields["score"], "");
  EXPECT_EQ(result.rows[3].fields["retrieved_contexts"], "[]");
}

TEST(CsvReaderTest, PandasListCellsParseAsListLiterals) {
  const ReadResult result = read_fixture("pandas_export.csv");
  ASSERT_EQ(result.rows.size(), 4u);
  const auto list = [&](std::size_t row, const char* field) {
    auto parsed = parse_list_literal(result.rows[row].fields[field].get<std::string>());
    EXPECT_TRUE(parsed.ok()) << parsed.status().to_string();
    return parsed.ok() ? parsed->dump() : std::string();
  };
  EXPECT_EQ(list(0, "retrieved_contexts"),
            R"(["Paris is the capital and largest city of France.","France's capital is Paris."])");
  EXPECT_EQ(list(0, "reference_contexts"), R"(["Paris is in France."])");
  EXPECT_EQ(list(1, "retrieved_contexts"),
            R"(["Hamlet is a tragedy by William Shakespeare.","It was written around 1600.\nFirst performed 1602."])");
  EXPECT_EQ(list(2, "retrieved_contexts"), "[\"He said \\\"it's fine\\\"\",\"naïve café\"]");
  EXPECT_EQ(list(2, "reference_contexts"), "[\"café\"]");
  EXPECT_EQ(list(3, "retrieved_contexts"), "[]");
}

TEST(CsvReaderTest, ByteOrderMarkCrlfAndBlankLinesAreAccepted) {
  const ReadResult result = read_fixture("crlf_bom.csv");
  ASSERT_EQ(result.sequence, "RR");
  EXPECT_EQ(result.rows[0].fields.begin().key(), "question");  // no mark in the name
  EXPECT_EQ(result.rows[0].fields["answer"], "Line one\r\nline two");  // quoted: kept
  EXPECT_EQ(result.rows[1].fields["question"], "Why?");
  EXPECT_EQ(result.rows[1].fields["answer"], "Because");
  EXPECT_EQ(result.rows[1].line, 5);
}

TEST(CsvReaderTest, RowWithWrongCellCountIsReportedWithLineAndCount) {
  const ReadResult result = read_fixture("ragged.csv");
  ASSERT_EQ(result.sequence, "REER");
  EXPECT_EQ(place(result.errors[0]), "3:0");
  EXPECT_EQ(result.errors[0].message, "row has 2 cells but the header has 3");
  EXPECT_EQ(result.errors[1].line, 4);
  EXPECT_EQ(result.errors[1].message, "row has 4 cells but the header has 3");
  EXPECT_EQ(result.rows[1].fields["c"], "12");
  EXPECT_EQ(result.rows[1].index, 3);
}

TEST(CsvReaderTest, HeaderOnlyAndEmptyFilesHaveNoRows) {
  EXPECT_EQ(read_fixture("header_only.csv").sequence, "");
  EXPECT_EQ(read_fixture("empty.csv").sequence, "");
}

TEST(CsvReaderTest, InvalidUtf8NamesTheColumnAndByteColumn) {
  const ReadResult result = read_fixture("invalid_utf8.csv");
  ASSERT_EQ(result.sequence, "REER");
  EXPECT_EQ(result.errors[0].field, "question");
  EXPECT_EQ(place(result.errors[0]), "3:4");
  // In a quoted cell spanning lines, the position is that of the byte itself.
  EXPECT_EQ(result.errors[1].field, "answer");
  EXPECT_EQ(place(result.errors[1]), "5:7");
  EXPECT_EQ(result.errors[1].message, "invalid UTF-8 (byte 0xC0)");
  EXPECT_EQ(result.rows[1].fields["question"], "last");
}

TEST(CsvReaderTest, ByteColumnCountsDoubledQuotes) {
  const ReadResult result = read_text("a.csv", "a,b\nx,\"say \"\"hi\"\" \xFF\"\n");
  ASSERT_EQ(result.sequence, "E");
  EXPECT_EQ(result.errors[0].column, 15);
}

TEST(CsvReaderTest, UnterminatedQuoteIsReportedOnceThenEnd) {
  const ReadResult result = read_fixture("unterminated.csv");
  ASSERT_EQ(result.sequence, "RE");
  EXPECT_EQ(place(result.errors[0]), "3:3");
  EXPECT_EQ(result.errors[0].message, "quoted cell is never closed");
}

TEST(CsvReaderTest, EmptyAndDuplicateColumnNamesAreNamedAsPandasNamesThem) {
  const ReadResult result = read_text("a.csv", ",a,a,\n1,2,3,4\n");
  ASSERT_EQ(result.sequence, "R");
  EXPECT_EQ(result.rows[0].fields.dump(),
            R"({"Unnamed: 0":"1","a":"2","a.1":"3","Unnamed: 3":"4"})");
}

TEST(CsvReaderTest, EmptyCellsAndQuotedEmptyCellsAreEmptyStrings) {
  const ReadResult result = read_text("a.csv", "a,b,c\n,\"\",\n");
  ASSERT_EQ(result.sequence, "R");
  EXPECT_EQ(result.rows[0].fields.dump(), R"({"a":"","b":"","c":""})");
}

TEST(CsvReaderTest, LoneCarriageReturnEndsARecord) {
  const ReadResult result = read_text("a.csv", "a,b\r1,2\r3,4");
  ASSERT_EQ(result.sequence, "RR");
  EXPECT_EQ(result.rows[1].fields["a"], "3");
  EXPECT_EQ(result.rows[1].line, 3);
}

TEST(CsvReaderTest, QuotesInsideUnquotedCellsAndAfterClosingQuoteAreKept) {
  const ReadResult result = read_text("a.csv", "a,b\nsay \"hi\",\"ab\"cd\n");
  ASSERT_EQ(result.sequence, "R");
  EXPECT_EQ(result.rows[0].fields["a"], "say \"hi\"");
  EXPECT_EQ(result.rows[0].fields["b"], "abcd");
}

TEST(CsvReaderTest, InvalidUtf8InHeaderEndsTheRead) {
  const ReadResult result = read_text("a.csv", "a,\xFF\n1,2\n");
  ASSERT_EQ(result.sequence, "E");
  EXPECT_EQ(result.errors[0].message, "invalid UTF-8 (byte 0xFF) in the header");
}

// ------------------------------------------------------------------- open_dataset

TEST(DatasetReaderTest, FormatComesFromTheExtension) {
  const TempFile file("rows.CSV", "a\n1\n");
  const ReadResult result = read_path(file.path());
  ASSERT_EQ(result.sequence, "R");
  EXPECT_EQ(result.rows[0].fields["a"], "1");
  EXPECT_EQ(read_text("rows.ndjson", "{\"a\": 1}\n").sequence, "R");
}

TEST(DatasetReaderTest, ExplicitFormatOverridesTheExtension) {
  const TempFile file("rows.txt", "[{\"a\": 1}]");
  EXPECT_EQ(read_path(file.path(), DatasetFormat::kJson).sequence, "R");
}

// The code open_dataset fails with, or kOk.
StatusCode open_error(const std::string& path, DatasetFormat format = DatasetFormat::kAuto) {
  const auto reader = open_dataset(path, format);
  return reader.ok() ? StatusCode::kOk : reader.status().code();
}

TEST(DatasetReaderTest, UnknownExtensionIsInvalidArgument) {
  const TempFile file("rows.txt", "{}\n");
  EXPECT_EQ(open_error(file.path().string()), StatusCode::kInvalidArgument);
}

TEST(DatasetReaderTest, MissingFileIsNotFound) {
  EXPECT_EQ(open_error("/nonexistent/ragmeter/rows.jsonl"), StatusCode::kNotFound);
}

TEST(DatasetReaderTest, DirectoryIsInvalidArgument) {
  const TempFile file("x.jsonl", "");
  EXPECT_EQ(open_error(file.dir().string(), DatasetFormat::kJsonl),
            StatusCode::kInvalidArgument);
}

TEST(DatasetReaderTest, StandardInputNeedsAnExplicitFormat) {
  EXPECT_EQ(open_error("-"), StatusCode::kInvalidArgument);
}

TEST(DatasetReaderTest, DashReadsStandardInput) {
  const TempFile file("in.jsonl", "{\"a\": 1}\nnope\n");
  const int saved = ::dup(STDIN_FILENO);
  const int input = ::open(file.path().c_str(), O_RDONLY);
  ASSERT_GE(input, 0);
  ASSERT_EQ(::dup2(input, STDIN_FILENO), STDIN_FILENO);
  ::close(input);
  auto reader = open_dataset("-", DatasetFormat::kJsonl);
  ReadResult result;
  if (reader.ok()) result = read_all(**reader);
  reader = Status(StatusCode::kInternal, "closed");  // close before restoring stdin
  ::dup2(saved, STDIN_FILENO);
  ::close(saved);
  ASSERT_EQ(result.sequence, "RE");
  EXPECT_EQ(result.errors[0].file, "<stdin>");
  EXPECT_EQ(result.errors[0].line, 2);
}

TEST(DatasetReaderTest, FormatNamesParse) {
  EXPECT_EQ(*parse_dataset_format("jsonl"), DatasetFormat::kJsonl);
  EXPECT_EQ(*parse_dataset_format("JSON"), DatasetFormat::kJson);
  EXPECT_EQ(*parse_dataset_format("csv"), DatasetFormat::kCsv);
  EXPECT_EQ(*parse_dataset_format("auto"), DatasetFormat::kAuto);
  const auto bad = parse_dataset_format("xlsx");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

TEST(DatasetReaderTest, RowErrorToStringLeavesOutUnknownParts) {
  RowError error;
  error.message = "bad";
  EXPECT_EQ(error.to_string(), "bad");
  error.file = "d.csv";
  EXPECT_EQ(error.to_string(), "d.csv: bad");
  error.line = 7;
  EXPECT_EQ(error.to_string(), "d.csv:7: bad");
  error.column = 3;
  error.field = "response";
  EXPECT_EQ(error.to_string(), "d.csv:7:3: field 'response': bad");
}

// ------------------------------------------------------------------ bounded memory

// Peak resident memory (VmHWM) in KiB, or -1 when /proc is not there.
long peak_rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// Lowers VmHWM to the current RSS (Linux >= 4.0), so that the peak measured is this
// test's and not an earlier test's. Harmless when it fails: growth is then measured
// from a higher peak, which only makes the check weaker.
void reset_peak_rss() { std::ofstream("/proc/self/clear_refs") << "5"; }

// Writes rows of about 1 KiB until the file is about `bytes` long.
void write_large_file(const fs::path& path, DatasetFormat format, std::size_t bytes) {
  std::ofstream out(path, std::ios::binary);
  const std::string text(900, 'w');
  if (format == DatasetFormat::kJson) out << "[\n";
  if (format == DatasetFormat::kCsv) out << "user_input,response,retrieved_contexts\n";
  for (std::size_t i = 0; static_cast<std::size_t>(out.tellp()) < bytes; ++i) {
    const std::string id = std::to_string(i);
    if (format == DatasetFormat::kCsv) {
      out << "question " << id << ",\"" << text << ", \"\"quoted\"\"\nline\",\"['a', 'b']\"\n";
    } else {
      if (format == DatasetFormat::kJson && i > 0) out << ",\n";
      out << R"({"user_input": "question )" << id << R"(", "response": ")" << text
          << R"(", "retrieved_contexts": ["a", "b"]})";
      if (format == DatasetFormat::kJsonl) out << '\n';
    }
  }
  if (format == DatasetFormat::kJson) out << "\n]\n";
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

TEST(DatasetReaderMemoryTest, FiftyMegabyteFilesAreReadInBoundedMemory) {
  if (kAddressSanitizer) GTEST_SKIP() << "AddressSanitizer's quarantine keeps freed memory";
  if (peak_rss_kib() < 0) GTEST_SKIP() << "no /proc/self/status";
  constexpr std::size_t kFileBytes = 50u << 20;
  constexpr long kAllowedGrowthKib = 30 * 1024;
  const TempFile dir("unused", "");
  const struct {
    const char* name;
    DatasetFormat format;
  } cases[] = {{"big.jsonl", DatasetFormat::kJsonl},
               {"big.json", DatasetFormat::kJson},
               {"big.csv", DatasetFormat::kCsv}};
  for (const auto& c : cases) {
    const fs::path path = dir.path(c.name);
    write_large_file(path, c.format, kFileBytes);
    reset_peak_rss();
    const long before = peak_rss_kib();
    const auto start = std::chrono::steady_clock::now();
    auto reader = open_dataset(path.string());
    ASSERT_TRUE(reader.ok()) << reader.status().to_string();
    std::int64_t rows = 0;
    Row row;
    RowError error;
    for (RowReader::Result r; (r = (*reader)->next(&row, &error)) != RowReader::Result::kEnd;) {
      ASSERT_EQ(r, RowReader::Result::kRow) << error.to_string();
      ++rows;
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const long growth = peak_rss_kib() - before;
    std::printf("[ memory   ] %-9s %8.1f MB %7lld rows %6.2f s  peak RSS %ld KiB -> growth %ld KiB\n",
                c.name, static_cast<double>(fs::file_size(path)) / 1e6,
                static_cast<long long>(rows), seconds, before, growth);
    EXPECT_GT(rows, 40000);
    EXPECT_EQ(row.fields["user_input"], "question " + std::to_string(rows - 1));
    EXPECT_LT(growth, kAllowedGrowthKib) << c.name;
    fs::remove(path);
  }
}

}  // namespace
}  // namespace ragmeter
