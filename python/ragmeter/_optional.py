"""Imports of the optional dependencies, with an error that names the extra to install."""

from __future__ import annotations


def import_pandas(what: str):
    """pandas, or an ImportError saying that `what` needs it and how to install it."""
    try:
        import pandas
    except ImportError as missing:
        raise ImportError(
            f"{what} needs pandas, an optional dependency of ragmeter: "
            "pip install pandas (or pip install 'ragmeter[pandas]')"
        ) from missing
    return pandas
