// ragmeter._core.agree: the library's `agree` (include/ragmeter/agree.h) over a Run in
// memory or a results file, and labels from Python data or a file. Returns the JSON
// text of `ragmeter agree --out` and its terminal table; no statistics here.
#include <utility>

#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "data_source.h"
#include "ragmeter/agree.h"
#include "run_result.h"
#include "status_errors.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace ragmeter::python {
namespace {

std::pair<std::string, std::string> run_agree(const ResultTable& results,
                                              const std::string& results_name, DataSource& labels,
                                              const AgreeOptions& options) {
  std::unique_ptr<RowReader> reader = labels.open();
  StatusOr<AgreementReport> report = invalid_argument("not run");
  {
    nb::gil_scoped_release unlocked;
    LabelSet set = read_labels(*reader, labels.name(), results.metrics, options.labels);
    report = agree(results, results_name, set, options);
  }
  AgreementReport value = value_or_raise(std::move(report));
  return {agreement_to_json(value).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
          format_agreement_table(value)};
}

}  // namespace

void bind_agree(nb::module_& m) {
  m.def(
      "agree",
      [](nb::handle results, DataSource& labels, const std::string& scale,
         const std::string& id_column, const std::string& annotator_column,
         const std::vector<std::string>& metrics, std::uint64_t split_seed, std::uint64_t seed,
         int bootstrap_resamples, int threads) {
        AgreeOptions options;
        options.labels.scale = value_or_raise(parse_label_scale(scale));
        options.labels.id_column = id_column;
        options.labels.annotator_column = annotator_column;
        options.metrics = metrics;
        options.split_seed = split_seed;
        options.bootstrap.seed = seed;
        if (bootstrap_resamples < 1 || threads < 1) {
          raise_status(invalid_argument("bootstrap_resamples and threads must be at least 1"));
        }
        options.bootstrap.resamples = bootstrap_resamples;
        options.bootstrap.threads = threads;
        if (nb::isinstance<RunResult>(results)) {
          const RunResult& run = nb::cast<const RunResult&>(results);
          return run_agree(run.run.table, "<evaluate result>", labels, options);
        }
        std::string path = nb::cast<std::string>(results);
        StatusOr<ResultTable> read = invalid_argument("not read");
        {
          nb::gil_scoped_release unlocked;
          read = read_results_jsonl(path);
        }
        return run_agree(value_or_raise(std::move(read)), path, labels, options);
      },
      "results"_a, "labels"_a, nb::kw_only(), "scale"_a = "binary", "id_column"_a = "id",
      "annotator_column"_a = "annotator", "metrics"_a = std::vector<std::string>(),
      "split_seed"_a = 0, "seed"_a = 42, "bootstrap_resamples"_a = 1000, "threads"_a = 1,
      "Agreement of a Run (or a results file's path) with labels (a DataSource): returns "
      "(the JSON text of `ragmeter agree --out`, its terminal table). The GIL is released "
      "while it computes.");
}

}  // namespace ragmeter::python
