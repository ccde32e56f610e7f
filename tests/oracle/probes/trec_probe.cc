// Oracle probe for the trec_eval-compatible evaluation: `trec_probe QRELS RUN` reads
// both files with ragmeter's readers and prints one JSON object
//   {"<qid>": {"<measure>": value, ...}, ..., "all": {...}}
// with every measure of every evaluated query at full precision (17 significant
// digits), for tests/oracle/test_trec_eval.py to compare with pytrec_eval.
// A file that cannot be read: the error on stderr and exit status 2.
#include <iostream>
#include <nlohmann/json.hpp>

#include "ragmeter/trec.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: trec_probe QRELS RUN\n";
    return 2;
  }
  const ragmeter::StatusOr<ragmeter::Qrels> qrels = ragmeter::read_qrels(argv[1]);
  const ragmeter::StatusOr<ragmeter::Run> run = ragmeter::read_run(argv[2]);
  for (const ragmeter::Status& status : {qrels.status(), run.status()}) {
    if (!status.ok()) {
      std::cerr << status.to_string() << "\n";
      return 2;
    }
  }
  nlohmann::json out = nlohmann::json::object();
  for (const ragmeter::TrecMeasureValue& line :
       ragmeter::trec_evaluate(*qrels, *run, {.per_query = true})) {
    out[line.query][line.measure] = line.value;
  }
  std::cout << out.dump() << "\n";
  return 0;
}
