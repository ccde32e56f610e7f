"""The names the CLI tests share (REPO, BUILD, the fake judge's scripts and counters), taken
from this folder's conftest.py by path.

`from conftest import ...` is not safe here: scripts/test.sh runs several test folders in one
pytest session, each with a conftest.py, and the module named `conftest` is whichever of them
pytest loaded last (tests/llm's or tests/run's), not this folder's.
"""

import importlib.util
import pathlib

_spec = importlib.util.spec_from_file_location(
    "ragmeter_cli_conftest", pathlib.Path(__file__).with_name("conftest.py"))
_module = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_module)
globals().update({k: v for k, v in vars(_module).items() if not k.startswith("__")})
