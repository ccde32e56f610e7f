// What an evaluation reads (data_source.h).
#include "data_source.h"

#include "status_errors.h"

namespace ragmeter::python {

DataSource DataSource::from_rows(PyRows rows) {
  DataSource source;
  source.name_ = rows.source;
  source.row_count_ = static_cast<std::int64_t>(rows.rows.size());
  source.rows_ = std::move(rows);
  return source;
}

DataSource DataSource::from_file(std::string path, DatasetFormat format) {
  DataSource source;
  source.name_ = path;
  source.path_ = std::move(path);
  source.format_ = format;
  return source;
}

std::int64_t DataSource::size() const { return row_count_; }

std::unique_ptr<RowReader> DataSource::open() {
  if (path_) return value_or_raise(open_dataset(*path_, format_));
  if (!rows_) raise_status(invalid_argument("these rows were already evaluated (rows are read once)"));
  std::unique_ptr<RowReader> reader = make_py_row_reader(std::move(*rows_));
  rows_.reset();
  return reader;
}

}  // namespace ragmeter::python
