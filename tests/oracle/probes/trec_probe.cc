// Oracle probe for the trec_eval-compatible evaluation:
//   trec_probe QRELS RUN [-m MEASURE]... [-l LEVEL] [-M DEPTH] [-c] [-J]
//              [--trec-eval-version 9|10]
// reads both files with ragmeter's readers, evaluates them with trec_eval's options
// and prints one JSON object
//   {"<qid>": {"<measure>": value, ...}, ..., "all": {...}}
// with every value of every evaluated query (-q) and the summary at full precision
// (17 significant digits; NaN as null, text values as strings), for
// tests/oracle/test_trec_eval.py to compare with pytrec_eval.
// A file or option that cannot be used: the error on stderr and exit status 2.
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "ragmeter/trec.h"
#include "ragmeter/trec_eval.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: trec_probe QRELS RUN [-m MEASURE]... [-l N] [-M N] [-c] [-J]\n";
    return 2;
  }
  ragmeter::TrecEvalOptions options{.per_query = true};
  for (int i = 3; i < argc; ++i) {
    const std::string flag = argv[i];
    const bool has_value = i + 1 < argc;
    if (flag == "-m" && has_value) {
      options.measures.push_back(argv[++i]);
    } else if (flag == "-l" && has_value) {
      options.relevance_level = std::atol(argv[++i]);
    } else if (flag == "-M" && has_value) {
      options.max_docs = std::atol(argv[++i]);
    } else if (flag == "-c") {
      options.average_complete = true;
    } else if (flag == "-J") {
      options.judged_only = true;
    } else if (flag == "--trec-eval-version" && has_value) {
      options.version = static_cast<ragmeter::TrecEvalVersion>(std::atoi(argv[++i]));
    } else {
      std::cerr << "unknown option " << flag << "\n";
      return 2;
    }
  }
  const ragmeter::StatusOr<ragmeter::Qrels> qrels = ragmeter::read_qrels(argv[1]);
  const ragmeter::StatusOr<ragmeter::Run> run = ragmeter::read_run(argv[2], &options.run_tag,
                                                                      options.version);
  for (const ragmeter::Status& status : {qrels.status(), run.status()}) {
    if (!status.ok()) {
      std::cerr << status.to_string() << "\n";
      return 2;
    }
  }
  const auto lines = ragmeter::trec_evaluate(*qrels, *run, options);
  if (!lines.ok()) {
    std::cerr << lines.status().to_string() << "\n";
    return 2;
  }
  nlohmann::json out = nlohmann::json::object();
  for (const ragmeter::TrecMeasureValue& line : *lines) {
    if (line.kind == ragmeter::TrecValueKind::kText) {
      out[line.query][line.measure] = line.text;
    } else {
      out[line.query][line.measure] = line.value;
    }
  }
  std::cout << out.dump() << "\n";
  return 0;
}
