"""The exceptions ragmeter raises: one class per error code of the C++ library's Status.

Each also derives from the built-in exception a Python user would catch for that kind of
error, so ``except ValueError`` catches a bad argument and ``except FileNotFoundError`` a
missing file. A bad *row* is never an exception: it is a per-row ``failed`` status in the
result, as in the command-line program.
"""

from __future__ import annotations

from typing import Any, Optional

__all__ = [
    "RagmeterError",
    "InvalidArgumentError",
    "NotFoundError",
    "UnavailableError",
    "DeadlineExceededError",
    "FailedPreconditionError",
    "InternalError",
    "ResourceExhaustedError",
    "Interrupted",
    "STATUS_CODES",
]


class RagmeterError(Exception):
    """Base class of the errors of the C++ library. ``code`` is the Status code's name."""

    code = "Unknown"


class InvalidArgumentError(RagmeterError, ValueError):
    """Bad input: an unknown metric, a malformed option, a file that cannot be read as a dataset."""

    code = "InvalidArgument"


class NotFoundError(RagmeterError, FileNotFoundError, LookupError):
    """A file or a named thing does not exist."""

    code = "NotFound"


class UnavailableError(RagmeterError, ConnectionError):
    """A service (the judge's server) cannot be reached now; retrying may help."""

    code = "Unavailable"


class DeadlineExceededError(RagmeterError, TimeoutError):
    """A timeout."""

    code = "DeadlineExceeded"


class FailedPreconditionError(RagmeterError, RuntimeError):
    """The operation does not make sense in the current state (e.g. a critic with the offline judge)."""

    code = "FailedPrecondition"


class InternalError(RagmeterError, RuntimeError):
    """A broken invariant: a bug in ragmeter. Please report it."""

    code = "Internal"


class ResourceExhaustedError(RagmeterError, RuntimeError):
    """A budget or a quota was reached (``max_cost``)."""

    code = "ResourceExhausted"


class Interrupted(KeyboardInterrupt):
    """Ctrl-C (or an exception in a progress callback) stopped an evaluation.

    ``result`` holds what finished before the stop: the rows scored so far, in input
    order, and their summary (``result.summary["cancelled"]`` is true). ``cause`` is the
    exception that stopped the run (a KeyboardInterrupt for Ctrl-C).
    """

    def __init__(self, message: str, result: Any = None, cause: Optional[BaseException] = None):
        super().__init__(message)
        self.result = result
        self.cause = cause


# Status code name -> exception class: the binding raises STATUS_CODES[code].
STATUS_CODES = {
    cls.code: cls
    for cls in (
        InvalidArgumentError,
        NotFoundError,
        UnavailableError,
        DeadlineExceededError,
        FailedPreconditionError,
        InternalError,
        ResourceExhaustedError,
    )
}
