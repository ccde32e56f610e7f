// Rows from Python data (py_rows.h).
#include "py_rows.h"

#include "py_json.h"
#include "status_errors.h"

namespace nb = nanobind;

namespace ragmeter::python {
namespace {

using Json = nlohmann::ordered_json;

RowError row_error(const PyRows& rows, std::size_t index, std::string field, std::string message) {
  RowError error;
  error.file = rows.source;
  error.line = static_cast<std::int64_t>(index) + 1;
  error.index = static_cast<std::int64_t>(index);
  error.field = std::move(field);
  error.message = std::move(message);
  return error;
}

void set_error(PyRows* rows, std::size_t index, RowError error) {
  if (rows->errors.empty()) rows->errors.resize(rows->rows.size());
  rows->errors[index] = std::move(error);
  rows->rows[index] = nullptr;
}

// Converts the cell `value` of `field` into the row; false (and the row's error) if it
// cannot be.
bool add_cell(PyRows* rows, std::size_t index, const std::string& field, PyObject* value) {
  Json converted;
  if (auto error = to_json(value, &converted)) {
    set_error(rows, index, row_error(*rows, index, field, *error));
    return false;
  }
  rows->rows[index][field] = std::move(converted);
  return true;
}

class PyRowReader : public RowReader {
 public:
  explicit PyRowReader(PyRows rows) : rows_(std::move(rows)) {}

  Result next(Row* row, RowError* error) override {
    if (next_ >= rows_.rows.size()) return Result::kEnd;
    std::size_t i = next_++;
    if (!rows_.errors.empty() && rows_.errors[i]) {
      *error = std::move(*rows_.errors[i]);
      return Result::kError;
    }
    row->fields = std::move(rows_.rows[i]);
    row->line = static_cast<std::int64_t>(i) + 1;
    row->index = static_cast<std::int64_t>(i);
    return Result::kRow;
  }

 private:
  PyRows rows_;
  std::size_t next_ = 0;
};

}  // namespace

PyRows rows_from_records(nb::handle records, const std::string& source) {
  PyRows rows;
  rows.source = source;
  nb::object fast = nb::steal(PySequence_Fast(records.ptr(), "rows must be a sequence"));
  if (!fast.is_valid()) throw nb::python_error();
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast.ptr());
  PyObject** items = PySequence_Fast_ITEMS(fast.ptr());
  rows.rows.resize(static_cast<std::size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    std::size_t index = static_cast<std::size_t>(i);
    PyObject* record = items[i];
    // A value that is not a dict converts to a JSON value the library then rejects as
    // "a row must be a JSON object", as it rejects such a line of a file.
    Json converted;
    if (auto error = to_json(record, &converted)) {
      // "key 'f': why" names the field: keep it as the RowError's field.
      std::string field, message = *error;
      if (message.starts_with("key '")) {
        auto end = message.find("': ", 5);
        if (end != std::string::npos) {
          field = message.substr(5, end - 5);
          message = message.substr(end + 3);
        }
      }
      set_error(&rows, index, row_error(rows, index, field, message));
      continue;
    }
    rows.rows[index] = std::move(converted);
  }
  return rows;
}

PyRows rows_from_columns(const std::vector<std::string>& names, nb::handle columns,
                         const std::string& source) {
  PyRows rows;
  rows.source = source;
  nb::object fast_columns = nb::steal(PySequence_Fast(columns.ptr(), "columns must be a sequence"));
  if (!fast_columns.is_valid()) throw nb::python_error();
  if (PySequence_Fast_GET_SIZE(fast_columns.ptr()) != static_cast<Py_ssize_t>(names.size())) {
    raise_status(invalid_argument("one column per name is needed"));
  }
  std::vector<nb::object> cells;
  Py_ssize_t n = -1;
  for (std::size_t j = 0; j < names.size(); ++j) {
    nb::object column = nb::steal(
        PySequence_Fast(PySequence_Fast_GET_ITEM(fast_columns.ptr(), j), "a column must be a sequence"));
    if (!column.is_valid()) throw nb::python_error();
    Py_ssize_t size = PySequence_Fast_GET_SIZE(column.ptr());
    if (n >= 0 && size != n) {
      raise_status(invalid_argument("column '" + names[j] + "' has " + std::to_string(size) +
                                    " values, the others " + std::to_string(n)));
    }
    n = size;
    cells.push_back(std::move(column));
  }
  rows.rows.assign(static_cast<std::size_t>(std::max<Py_ssize_t>(n, 0)), Json::object());
  for (std::size_t i = 0; i < rows.rows.size(); ++i) {
    for (std::size_t j = 0; j < names.size(); ++j) {
      PyObject* value = PySequence_Fast_ITEMS(cells[j].ptr())[i];
      if (!add_cell(&rows, i, names[j], value)) break;
    }
  }
  return rows;
}

std::unique_ptr<RowReader> make_py_row_reader(PyRows rows) {
  return std::make_unique<PyRowReader>(std::move(rows));
}

}  // namespace ragmeter::python
