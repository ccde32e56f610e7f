// What the bindings share around Python exceptions raised while the library runs:
// taking the pending exception as an object, and the per-row hook that hears Ctrl-C and
// runs a Python progress callback. Everything here needs the GIL unless said otherwise.
#pragma once

#include <atomic>
#include <cstdint>

#include <nanobind/nanobind.h>

namespace ragmeter::python {

// Takes the error indicator's exception as an object, normalised (and clears it): on
// Python < 3.12 an exception set from C (a KeyboardInterrupt raised by the signal
// handler, say) has no exception object until it is normalised, and
// nb::python_error::value() is then null.
inline nanobind::object take_error_indicator() {
  PyObject *type = nullptr, *value = nullptr, *traceback = nullptr;
  PyErr_Fetch(&type, &value, &traceback);
  PyErr_NormalizeException(&type, &value, &traceback);
  if (traceback != nullptr && value != nullptr) PyException_SetTraceback(value, traceback);
  Py_XDECREF(traceback);
  Py_XDECREF(type);
  return nanobind::steal(value);
}

// The exception a caught nb::python_error holds, as an object (see take_error_indicator).
inline nanobind::object exception_object(nanobind::python_error& e) {
  e.restore();
  return take_error_indicator();
}

// Called by the library on the caller's thread (GIL released) between rows: takes the
// GIL, hears Ctrl-C and runs the Python progress callback. The first exception from
// either stops the run (the library's cancel flag) and is kept for the caller, who gets
// the finished rows with it.
class ProgressHook {
 public:
  ProgressHook(nanobind::object callback, std::atomic<bool>* cancel)
      : callback_(std::move(callback)), cancel_(cancel) {}

  void operator()(std::int64_t rows) {
    nanobind::gil_scoped_acquire gil;
    if (stop_.is_valid()) return;
    if (PyErr_CheckSignals() != 0) {
      stop(take_error_indicator());
      return;
    }
    if (callback_.is_none()) return;
    try {
      callback_(rows);
    } catch (nanobind::python_error& e) {
      stop(exception_object(e));
    }
  }

  // The exception that stopped the run, or None.
  nanobind::object stop_exception() const { return stop_.is_valid() ? stop_ : nanobind::none(); }

 private:
  void stop(nanobind::object exception) {
    stop_ = std::move(exception);
    cancel_->store(true);
  }

  nanobind::object callback_;
  std::atomic<bool>* cancel_;
  nanobind::object stop_;
};

}  // namespace ragmeter::python
