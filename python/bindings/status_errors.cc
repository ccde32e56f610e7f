// Status -> Python exception (status_errors.h). The classes live in ragmeter/errors.py,
// so that they can derive from the built-in exceptions users already catch.
#include "status_errors.h"

#include <nanobind/nanobind.h>

namespace nb = nanobind;

namespace ragmeter::python {
namespace {

const char* exception_class_name(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: break;
    case StatusCode::kInvalidArgument: return "InvalidArgumentError";
    case StatusCode::kNotFound: return "NotFoundError";
    case StatusCode::kUnavailable: return "UnavailableError";
    case StatusCode::kDeadlineExceeded: return "DeadlineExceededError";
    case StatusCode::kFailedPrecondition: return "FailedPreconditionError";
    case StatusCode::kInternal: return "InternalError";
    case StatusCode::kResourceExhausted: return "ResourceExhaustedError";
  }
  return "InternalError";
}

}  // namespace

void raise_status(const Status& status) {
  nb::object errors = nb::module_::import_("ragmeter.errors");
  nb::object cls = errors.attr(exception_class_name(status.code()));
  PyErr_SetString(cls.ptr(), status.message().c_str());
  throw nb::python_error();
}

}  // namespace ragmeter::python
