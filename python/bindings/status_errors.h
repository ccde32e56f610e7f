// The binding's one translation of errors: a non-OK Status becomes the Python exception
// class of its code (ragmeter/errors.py: InvalidArgument -> InvalidArgumentError, a
// ValueError; NotFound -> NotFoundError, a FileNotFoundError and LookupError; ...).
#pragma once

#include "ragmeter/status.h"

namespace ragmeter::python {

// Raises the exception of `status` (which must not be OK) with its message. Needs the GIL.
[[noreturn]] void raise_status(const Status& status);

// The value of `result`, or raises its status.
template <typename T>
T value_or_raise(StatusOr<T>&& result) {
  if (!result.ok()) raise_status(result.status());
  return std::move(result).value();
}

inline void ok_or_raise(const Status& status) {
  if (!status.ok()) raise_status(status);
}

}  // namespace ragmeter::python
