"""The installed package: where it is imported from, what it ships (stubs, py.typed)."""

import pathlib

import ragmeter
from conftest import REPO


def test_imported_from_the_installed_wheel_not_the_checkout():
    package = pathlib.Path(ragmeter.__file__).resolve().parent
    assert REPO not in package.parents, package
    assert "site-packages" in package.parts
    assert pathlib.Path(ragmeter._core.__file__).parent == package


def test_version_is_the_cmake_projects():
    cmake = (REPO / "CMakeLists.txt").read_text()
    assert f"project(ragmeter VERSION {ragmeter.__version__} " in cmake


def test_ships_type_stubs_and_the_typed_marker():
    package = pathlib.Path(ragmeter.__file__).parent
    assert (package / "py.typed").exists()
    stub = (package / "_core.pyi").read_text()
    # Generated from the binding: signatures with their keyword arguments.
    assert "def bleu(response: str, reference: str | Sequence[str], *, smoothing: str = 'exp'" in stub
    assert "class Run" in stub


def test_every_status_code_has_one_exception_class():
    # include/ragmeter/status.h's codes, each to one class deriving from the built-in
    # exception a Python user would catch.
    status_h = (REPO / "include" / "ragmeter" / "status.h").read_text()
    codes = [line.split()[0].lstrip("k").rstrip(",") for line in status_h.splitlines()
             if line.strip().startswith("k") and "//" in line and "kOk" not in line]
    assert set(codes) == set(ragmeter.errors.STATUS_CODES), codes
    builtin = {
        "InvalidArgument": ValueError,
        "NotFound": (FileNotFoundError, LookupError),
        "Unavailable": ConnectionError,
        "DeadlineExceeded": TimeoutError,
        "FailedPrecondition": RuntimeError,
        "Internal": RuntimeError,
        "ResourceExhausted": RuntimeError,
    }
    for code, cls in ragmeter.errors.STATUS_CODES.items():
        assert issubclass(cls, ragmeter.RagmeterError)
        for base in builtin[code] if isinstance(builtin[code], tuple) else (builtin[code],):
            assert issubclass(cls, base), (code, base)


def test_judge_and_embedder_classes_are_typed_for_editors():
    # The glue is typed Python shipped with py.typed: editors and type checkers read the
    # signatures from it (the compiled module's are in _core.pyi).
    import typing

    package = pathlib.Path(ragmeter.__file__).parent
    assert (package / "_judges.py").exists()
    for cls, names in ((ragmeter.OpenAIJudge, {"url", "model", "key_env", "config", "deadline"}),
                       (ragmeter.OpenAIEmbedder, {"url", "model"}),
                       (ragmeter.LocalEmbedder, {"model_path"})):
        hints = typing.get_type_hints(cls.__init__)
        assert names <= set(hints), (cls, hints)
    hints = typing.get_type_hints(ragmeter.evaluate)
    assert {"judge", "embedder", "judge_url", "embedder_model_path", "deadline"} <= set(hints)
    stub = (package / "_core.pyi").read_text()
    assert "judge: dict" in stub  # the binding's judge settings argument
