// Evaluating rows held in memory into a result table (evaluate_rows.h).
#include "ragmeter/evaluate_rows.h"

namespace ragmeter {

StatusOr<EvalRun> evaluate_to_table(RowReader& reader, const std::string& source_name,
                                    const EvalOptions& options, const ProgressCallback& progress) {
  ResultTableSink sink(metric_names(options.metrics));
  RAGMETER_ASSIGN_OR_RETURN(EvalSummary summary,
                            evaluate(reader, source_name, options, sink, progress));
  return EvalRun{std::move(summary), sink.release()};
}

StatusOr<EvalRun> evaluate_rows(std::vector<nlohmann::ordered_json> rows,
                                const EvalOptions& options, const ProgressCallback& progress,
                                const std::string& source_name) {
  std::unique_ptr<RowReader> reader = make_memory_row_reader(std::move(rows), source_name);
  return evaluate_to_table(*reader, source_name, options, progress);
}

}  // namespace ragmeter
