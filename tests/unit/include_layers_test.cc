// The library's layers (docs/design.md, "Layers"): a file may include headers of its own
// layer or lower ones, never higher. The test reads every #include "..." of src/ and
// include/ragmeter/ and places each file and each included header in a layer by the
// tables below; a public header missing from the table fails too, so a new one is placed
// when it is added.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "tests/unit/test_paths.h"

namespace {

namespace fs = std::filesystem;

// Lowest first. llm, embed, docs and media (images, OCR) need only core, io and each other; metrics and judge are one layer
// because the judged metrics ask the judge and the LLM judge reads the metric table (until
// judge tasks are table rows, issue 35); eval runs metrics with a judge; gen, run and report
// are built on eval's results and the judges.
const std::map<std::string, int>& directory_layers() {
  static const std::map<std::string, int> layers = {
      {"core", 0},  {"io", 1},    {"llm", 2}, {"embed", 2}, {"docs", 2},   {"media", 2},
      {"metrics", 3}, {"judge", 3}, {"eval", 4}, {"gen", 5},   {"run", 6},    {"report", 6},
  };
  return layers;
}

// Each public header's component (a directory of src/).
const std::map<std::string, std::string>& public_header_components() {
  static const std::map<std::string, std::string> components = {
      {"status.h", "core"},
      {"build_info.h", "core"},
      {"sample.h", "core"},
      {"language.h", "core"},
      {"words.h", "core"},
      {"utf8.h", "core"},
      {"conversation.h", "core"},
      {"dataset.h", "io"},
      {"labels.h", "io"},
      {"llm.h", "llm"},
      {"llm_config.h", "llm"},
      {"judge_hooks.h", "llm"},
      {"sentence_embedder.h", "embed"},
      {"documents.h", "docs"},
      {"image_ref.h", "core"},
      {"image.h", "media"},
      {"ocr.h", "media"},
      {"chunker.h", "docs"},
      {"bleu.h", "metrics"},
      {"chrf.h", "metrics"},
      {"cmrc.h", "metrics"},
      {"rouge.h", "metrics"},
      {"retrieval.h", "metrics"},
      {"string_similarity.h", "metrics"},
      {"text_overlap.h", "metrics"},
      {"metric.h", "metrics"},
      {"ledger_metrics.h", "metrics"},
      {"tool_metrics.h", "metrics"},
      {"judge.h", "judge"},
      {"judge_tasks.h", "judge"},
      {"judge_factory.h", "judge"},
      {"offline_judge.h", "judge"},
      {"llm_judge.h", "judge"},
      {"claim_ledger.h", "judge"},
      {"conversation_task.h", "judge"},
      {"user_simulator.h", "judge"},
      {"agree.h", "eval"},
      {"agreement.h", "eval"},
      {"bootstrap.h", "eval"},
      {"compare.h", "eval"},
      {"evaluate.h", "eval"},
      {"evaluate_rows.h", "eval"},
      {"gates.h", "eval"},
      {"eval_spec.h", "eval"},
      {"repeats.h", "eval"},
      {"result_table.h", "eval"},
      {"results.h", "eval"},
      {"stats.h", "eval"},
      {"summary_builder.h", "eval"},
      {"trec.h", "eval"},
      {"trec_eval.h", "eval"},
      {"hashed_embedding.h", "gen"},
      {"testset.h", "gen"},
      {"scenarios.h", "gen"},
      {"vector_index.h", "gen"},
      {"run.h", "run"},
      {"report.h", "report"},
  };
  return components;
}

struct Placed {
  std::string component;
  int layer = 0;
};

std::optional<Placed> place_component(const std::string& component) {
  auto it = directory_layers().find(component);
  if (it == directory_layers().end()) return std::nullopt;
  return Placed{component, it->second};
}

// A header named as the source writes it: "ragmeter/x.h" by the table, "dir/x.h" by its
// directory, a bare "x.h" in the including file's own component.
std::optional<Placed> place_include(const std::string& name, const Placed& includer) {
  if (name.rfind("ragmeter/", 0) == 0) {
    auto it = public_header_components().find(name.substr(9));
    if (it == public_header_components().end()) return std::nullopt;
    return place_component(it->second);
  }
  const auto slash = name.find('/');
  if (slash == std::string::npos) return includer;
  return place_component(name.substr(0, slash));
}

std::vector<std::string> quoted_includes(const fs::path& file) {
  static const std::regex include(R"(^\s*#\s*include\s+"([^"]+)\")");
  std::ifstream in(file);
  std::vector<std::string> out;
  std::smatch match;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_search(line, match, include)) out.push_back(match[1]);
  }
  return out;
}

// The files of the library with their places, and a problem for any file out of place.
std::vector<std::pair<fs::path, Placed>> library_files(std::vector<std::string>* problems) {
  const fs::path root(RAGMETER_SOURCE_DIR);
  std::vector<std::pair<fs::path, Placed>> files;
  for (const auto& entry : fs::recursive_directory_iterator(root / "src")) {
    if (!entry.is_regular_file()) continue;
    const auto ext = entry.path().extension();
    if (ext != ".cc" && ext != ".h") continue;
    const std::string component = fs::relative(entry.path(), root / "src").begin()->string();
    if (auto placed = place_component(component)) {
      files.emplace_back(entry.path(), *placed);
    } else {
      problems->push_back("src/" + component + " is in no layer (directory_layers)");
    }
  }
  for (const auto& entry : fs::directory_iterator(root / "include" / "ragmeter")) {
    const std::string name = entry.path().filename().string();
    if (name == "ragmeter.h") continue;  // the umbrella includes every layer, and nothing includes it
    auto placed = place_include("ragmeter/" + name, Placed{});
    if (placed) {
      files.emplace_back(entry.path(), *placed);
    } else {
      problems->push_back("include/ragmeter/" + name + " is in no component (public_header_components)");
    }
  }
  return files;
}

TEST(IncludeLayersTest, NoFileIncludesAHeaderOfAHigherLayer) {
  std::vector<std::string> problems;
  const auto files = library_files(&problems);
  ASSERT_GT(files.size(), 200u);  // the walk found the tree
  const fs::path root(RAGMETER_SOURCE_DIR);
  for (const auto& [file, placed] : files) {
    for (const std::string& name : quoted_includes(file)) {
      auto target = place_include(name, placed);
      if (!target) {
        problems.push_back(fs::relative(file, root).string() + " includes " + name +
                           ", a header in no layer");
      } else if (target->layer > placed.layer) {
        problems.push_back(fs::relative(file, root).string() + " (" + placed.component + ") includes " +
                           name + " (" + target->component + ", a higher layer)");
      }
    }
  }
  for (const std::string& problem : problems) ADD_FAILURE() << problem;
}

// Inside the judge layer, the offline judge stands on its own: the LLM judge may use it
// (its similarity fallback), never the reverse (docs/design.md, "The judge's folders").
TEST(IncludeLayersTest, TheOfflineJudgeIncludesNothingOfTheLlmJudge) {
  const fs::path root(RAGMETER_SOURCE_DIR);
  int files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root / "src" / "judge" / "offline")) {
    if (!entry.is_regular_file()) continue;
    ++files;
    for (const std::string& name : quoted_includes(entry.path())) {
      EXPECT_NE(name.rfind("judge/llm/", 0), 0u) << fs::relative(entry.path(), root).string() << " includes " << name;
      EXPECT_NE(name, "ragmeter/llm_judge.h") << fs::relative(entry.path(), root).string();
    }
  }
  EXPECT_GT(files, 5);  // the walk found the folder
}

TEST(IncludeLayersTest, TheCheckPlacesHeadersAsTheSourcesNameThem) {
  const Placed judge{"judge", 3};
  EXPECT_EQ(place_include("ragmeter/sample.h", judge)->component, "core");
  EXPECT_EQ(place_include("ragmeter/evaluate.h", judge)->layer, 4);
  EXPECT_EQ(place_include("io/readers.h", judge)->component, "io");
  EXPECT_EQ(place_include("call_book.h", judge)->component, "judge");
  EXPECT_FALSE(place_include("ragmeter/nonexistent.h", judge).has_value());
  // The edge this test was written against: the judge factory declared apply_judge and so
  // included the evaluation's header.
  EXPECT_GT(place_include("ragmeter/evaluate.h", judge)->layer, judge.layer);
}

}  // namespace
