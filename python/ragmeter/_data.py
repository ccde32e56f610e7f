"""Python data -> rows for the C++ library (glue only: no field logic lives here).

Shapes are recognised by duck typing, so none of pandas, datasets or ragas is imported:

- a path (``str`` or ``os.PathLike``): a JSONL, JSON or CSV file, read by the library as
  ``ragmeter eval FILE`` reads it;
- a pandas ``DataFrame`` or a pyarrow ``Table``, a Hugging Face ``datasets.Dataset``, or
  a dict of equally long columns (ragas's legacy ``Dataset.from_dict`` input): by column;
- a ``ragmeter.RunResult`` (what ``ragmeter.run`` returns): its rows, a row with
  ``run_error`` rejected;
- a ragas ``EvaluationDataset`` (its ``to_list()``), a list of ragas ``SingleTurnSample`` or
  ``MultiTurnSample`` or DeepEval ``ConversationalTestCase`` (pydantic models:
  ``model_dump()``), or a list of dicts (what ``EvaluationDataset.from_list`` takes): by row.

A conversation's messages may be objects too (docs/agents.md): LangChain messages
(``HumanMessage``, ``AIMessage`` with ``tool_calls``, ``ToolMessage``, ``SystemMessage``) under
``messages`` become OpenAI chat messages and under ``user_input`` ragas messages; ragas's and
DeepEval's own message, turn and tool-call models are dumped as they are. The library reads the
result as it reads the same dicts from a file.

Field names are resolved by the library (ragas's names, the legacy ones, ``column_map``),
exactly as for a file.
"""

from __future__ import annotations

import base64
import io
import json
import os
from collections.abc import Mapping
from typing import Any, List, Sequence

from . import _core

__all__ = ["to_source"]


def _is_path(data: Any) -> bool:
    return isinstance(data, (str, os.PathLike))


def _looks_like_dataframe(data: Any) -> bool:
    return hasattr(data, "columns") and hasattr(data, "iloc") and hasattr(data, "dtypes")


def _looks_like_hf_dataset(data: Any) -> bool:
    return hasattr(data, "column_names") and hasattr(data, "features") and hasattr(data, "to_dict")


def _looks_like_evaluation_dataset(data: Any) -> bool:
    return hasattr(data, "samples") and hasattr(data, "to_list")


_CONTEXT_FIELDS = ("retrieved_contexts", "contexts")


def _media_item(item: Any) -> Any:
    """A context item that Python holds as an image, in the form the library reads
    (docs/images.md): a path as {"type": "image", "path": ...}, bytes and PIL images as a
    data URI (the library takes the type from the bytes, never from the label). Anything
    else unchanged."""
    if isinstance(item, os.PathLike):
        return {"type": "image", "path": os.fspath(item)}
    if isinstance(item, (bytes, bytearray, memoryview)):
        return "data:application/octet-stream;base64," + base64.b64encode(bytes(item)).decode()
    if hasattr(item, "save") and hasattr(item, "mode") and hasattr(item, "size"):  # a PIL image
        buffer = io.BytesIO()
        item.save(buffer, format="PNG")
        return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()
    return item


def _with_media(record: Any) -> Any:
    """The record with its contexts' Python images turned into what the library reads."""
    if not isinstance(record, Mapping):
        return record
    changed = None
    for name in _CONTEXT_FIELDS:
        items = record.get(name)
        if isinstance(items, (list, tuple)):
            converted = [_media_item(item) for item in items]
            if any(a is not b for a, b in zip(converted, items)):
                changed = changed or dict(record)
                changed[name] = converted
    return changed if changed is not None else record


# LangChain message types -> OpenAI chat roles.
_LANGCHAIN_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}


def _is_langchain_message(item: Any) -> bool:
    return all(hasattr(item, a) for a in ("type", "content", "additional_kwargs"))


def _langchain_text(content: Any) -> Any:
    """A LangChain message's content as text: a list of content parts is joined from its text
    parts; anything else is passed on for the library to accept or reject."""
    if isinstance(content, list):
        parts = [p if isinstance(p, str) else p.get("text", "") for p in content
                 if isinstance(p, str) or (isinstance(p, Mapping) and p.get("type") == "text")]
        return "".join(parts)
    return content


def _openai_message(item: Any) -> Any:
    """A LangChain message as an OpenAI chat message (a ``messages`` item)."""
    out = {"role": _LANGCHAIN_ROLES.get(item.type, item.type), "content": _langchain_text(item.content)}
    calls = getattr(item, "tool_calls", None) or []
    if calls:
        out["tool_calls"] = [
            {"id": call.get("id"), "type": "function",
             "function": {"name": call.get("name"), "arguments": json.dumps(call.get("args", {}))}}
            for call in calls]
    if getattr(item, "tool_call_id", None) is not None:
        out["tool_call_id"] = item.tool_call_id
    return out


def _ragas_message(item: Any) -> Any:
    """A LangChain message as a ragas message (a ``user_input`` item)."""
    out = {"type": item.type, "content": _langchain_text(item.content)}
    calls = getattr(item, "tool_calls", None) or []
    if calls:
        out["tool_calls"] = [{"name": c.get("name"), "args": c.get("args", {})} for c in calls]
    return out


def _dumped(item: Any, langchain: Any) -> Any:
    if isinstance(item, Mapping):
        return item
    if _is_langchain_message(item):
        return langchain(item)
    dump = getattr(item, "model_dump", None)
    return dump(exclude_none=True) if callable(dump) else item


# Conversation fields whose items may be Python objects, and how a LangChain message is read
# in each (None: not a place for LangChain messages).
_CONVERSATION_LISTS = {"messages": _openai_message, "user_input": _ragas_message, "turns": None,
                       "reference_tool_calls": None, "expected_tools": None}


def _with_messages(record: Any) -> Any:
    """The record with its conversation's message and tool-call objects turned into dicts."""
    if not isinstance(record, Mapping):
        return record
    changed = None
    for name, langchain in _CONVERSATION_LISTS.items():
        items = record.get(name)
        if isinstance(items, (list, tuple)) and not all(isinstance(i, Mapping) for i in items):
            changed = changed or dict(record)
            changed[name] = [_dumped(i, langchain or (lambda m: m)) for i in items]
    return changed if changed is not None else record


def _prepared(record: Any) -> Any:
    return _with_messages(_with_media(record))


def _sample_record(item: Any) -> Any:
    """A row as a dict: pydantic models (ragas's SingleTurnSample) through model_dump()."""
    if isinstance(item, Mapping):
        return _prepared(item)
    dump = getattr(item, "model_dump", None)
    if callable(dump):
        return _prepared(dump(exclude_none=True))
    to_dict = getattr(item, "to_dict", None)
    if callable(to_dict):
        return _prepared(to_dict())
    return item  # rejected by the library ("a row must be a JSON object"), at its place


def _columns_source(names: Sequence[Any], columns: Sequence[Sequence[Any]], name: str):
    columns = [
        [_media_list(cell) for cell in column] if str(n) in _CONTEXT_FIELDS else column
        for n, column in zip(names, columns)
    ]
    return _core.rows_from_columns([str(n) for n in names], list(columns), name)


def _media_list(cell: Any) -> Any:
    if isinstance(cell, (list, tuple)):
        return [_media_item(item) for item in cell]
    return cell


def _dataframe_columns(frame: Any) -> List[list]:
    # By position, so repeated column names stay separate (the library rejects a row
    # with a repeated field the same way it treats a CSV header).
    return [frame.iloc[:, j].tolist() for j in range(frame.shape[1])]


def to_source(data: Any, *, format: str = "auto", name: str = "<memory>") -> "_core.DataSource":
    """Turns one of the accepted shapes into a DataSource for ``_core.evaluate``."""
    if isinstance(data, _core.DataSource):
        return data
    own_source = getattr(data, "_ragmeter_source", None)  # a ragmeter.RunResult
    if callable(own_source):
        return own_source()
    if _is_path(data):
        return _core.dataset_file(os.fspath(data), format)
    if _looks_like_dataframe(data):
        return _columns_source(list(data.columns), _dataframe_columns(data), name)
    if _looks_like_hf_dataset(data):
        columns = data.to_dict()
        return _columns_source(list(columns.keys()), list(columns.values()), name)
    if hasattr(data, "to_pydict") and hasattr(data, "column_names"):  # pyarrow.Table
        columns = data.to_pydict()
        return _columns_source(list(columns.keys()), list(columns.values()), name)
    if _looks_like_evaluation_dataset(data):
        return _core.rows_from_records([_prepared(r) for r in data.to_list()], name)
    if isinstance(data, Mapping):
        values = list(data.values())
        if values and all(isinstance(v, (list, tuple)) or hasattr(v, "tolist") for v in values):
            return _columns_source(list(data.keys()), [list(v) for v in values], name)
        raise _errors().InvalidArgumentError(
            "a dict is read as columns (field -> list of values, one per sample); for one "
            "sample pass a list holding the dict: evaluate([sample])"
        )
    if isinstance(data, (list, tuple)):
        if all(isinstance(item, dict) for item in data):
            return _core.rows_from_records([_prepared(item) for item in data], name)
        return _core.rows_from_records([_sample_record(item) for item in data], name)
    if hasattr(data, "__iter__"):
        return _core.rows_from_records([_sample_record(item) for item in data], name)
    raise _errors().InvalidArgumentError(
        f"cannot read samples from a {type(data).__name__}: pass a list of dicts, a pandas "
        "DataFrame, a datasets.Dataset, a ragas EvaluationDataset or a file path"
    )


def _errors():
    from . import errors

    return errors
