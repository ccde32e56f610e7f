// What an evaluation reads: rows converted from Python data (py_rows.h), or a dataset
// file that the library reads itself (streaming, as `ragmeter eval FILE` does).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "py_rows.h"
#include "ragmeter/dataset.h"

namespace ragmeter::python {

class DataSource {
 public:
  static DataSource from_rows(PyRows rows);
  static DataSource from_file(std::string path, DatasetFormat format);

  // The name used in messages and in the summary's "dataset": the file's path, or the
  // source name of the rows.
  const std::string& name() const { return name_; }
  // True for a dataset file (its path goes into the summary's "dataset").
  bool is_file() const { return path_.has_value(); }
  // The number of rows, when known without reading (rows from Python), else -1.
  std::int64_t size() const;
  // Opens the rows for reading. Rows from Python can be read once (they are moved into
  // the reader); a second call raises ValueError. A file is opened anew each time;
  // NotFoundError or InvalidArgumentError as open_dataset says.
  std::unique_ptr<RowReader> open();

 private:
  std::string name_;
  std::optional<PyRows> rows_;
  std::int64_t row_count_ = -1;
  std::optional<std::string> path_;
  DatasetFormat format_ = DatasetFormat::kAuto;
};

}  // namespace ragmeter::python
