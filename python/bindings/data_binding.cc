// Python data -> rows for the library: ragmeter._core.rows_from_records, rows_from_columns
// and dataset_file, each a DataSource for evaluate().
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "data_source.h"
#include "status_errors.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace ragmeter::python {

void bind_data(nb::module_& m) {
  nb::class_<DataSource>(m, "DataSource",
                         "Rows for evaluate(): converted from Python values, or a dataset file.")
      .def_prop_ro("name", &DataSource::name, "The name used in messages (a path or '<memory>').")
      .def("__len__", [](const DataSource& s) {
        if (s.size() < 0) raise_status(failed_precondition("a file's rows are counted as it is read"));
        return s.size();
      });
  m.def(
      "rows_from_records",
      [](nb::handle records, const std::string& source) {
        return DataSource::from_rows(rows_from_records(records, source));
      },
      "records"_a, "source"_a = "<memory>",
      "Rows from a sequence of dicts (field name -> value). A value that cannot be "
      "converted rejects its row, naming the field.");
  m.def(
      "rows_from_columns",
      [](const std::vector<std::string>& names, nb::handle columns, const std::string& source) {
        return DataSource::from_rows(rows_from_columns(names, columns, source));
      },
      "names"_a, "columns"_a, "source"_a = "<memory>",
      "Rows from columns: names[j] holds the sequence columns[j]; all equally long.");
  m.def(
      "dataset_file",
      [](std::string path, const std::string& format) {
        return DataSource::from_file(std::move(path), value_or_raise(parse_dataset_format(format)));
      },
      "path"_a, "format"_a = "auto",
      "A dataset file (JSONL, JSON array or CSV) read by the library as `ragmeter eval` does.");
}

}  // namespace ragmeter::python
