"""Judges and embedders as objects. They hold settings only (never a key): the C++ library
makes the judge from them (include/ragmeter/judge_factory.h), with the CLI's precedence:
what is set here, then the TOML config file, then the environment (OPENAI_BASE_URL, ...).
The key is read from the environment variable named by ``key_env`` by the C++ HTTP client
when it sends a request, so it never passes through a Python string."""

from __future__ import annotations

import os
from typing import Any, Dict, Optional, Union

__all__ = ["OfflineJudge", "OpenAIJudge", "OfflineEmbedder", "LocalEmbedder", "OpenAIEmbedder",
           "judge_options"]

PathLike = Union[str, "os.PathLike[str]"]


class OfflineJudge:
    """The default judge: deterministic, no model, no network, no key (docs/judges.md)."""

    def _options(self) -> Dict[str, Any]:
        return {"kind": "offline"}

    def __repr__(self) -> str:
        return "OfflineJudge()"


class OpenAIJudge:
    """An LLM judge over any OpenAI-compatible server (OpenAI, Azure, vLLM, llama.cpp,
    Ollama). Arguments are ``ragmeter eval``'s judge flags:

    url: base URL ending in /v1 (``--judge-url``; default OPENAI_BASE_URL);
    model: the model name (``--judge-model``);
    key_env: the NAME of the environment variable holding the key (``--judge-key-env``,
        default OPENAI_API_KEY). The key itself is never given to Python;
    config: a TOML file (``--config``, examples/judge.toml) for everything not set here;
    concurrency, timeout, deadline, cache, cache_mode, max_cost: as the flags of the same
        names;
    context_tokens: the model's context window (``--judge-context-tokens``);
    plan: "compact" (default) or "ragas" (``--plan``).
    """

    def __init__(
        self,
        url: Optional[str] = None,
        model: Optional[str] = None,
        key_env: Optional[str] = None,
        *,
        config: Optional[PathLike] = None,
        concurrency: Optional[int] = None,
        timeout: Optional[float] = None,
        deadline: Optional[float] = None,
        cache: Optional[PathLike] = None,
        cache_mode: Optional[str] = None,
        max_cost: Optional[float] = None,
        context_tokens: int = 0,
        plan: str = "compact",
    ):
        self.url = url
        self.model = model
        self.key_env = key_env
        self.config = os.fspath(config) if config is not None else None
        self.concurrency = concurrency
        self.timeout = timeout
        self.deadline = deadline
        self.cache = os.fspath(cache) if cache is not None else None
        self.cache_mode = cache_mode
        self.max_cost = max_cost
        self.context_tokens = context_tokens
        self.plan = plan

    def _options(self) -> Dict[str, Any]:
        options: Dict[str, Any] = {"kind": "openai", "context_tokens": self.context_tokens,
                                   "plan": self.plan}
        for name, value in (("url", self.url), ("model", self.model), ("key_env", self.key_env),
                            ("config_path", self.config), ("concurrency", self.concurrency),
                            ("timeout_seconds", self.timeout), ("deadline_seconds", self.deadline),
                            ("cache_path", self.cache),
                            ("cache_mode", self.cache_mode), ("max_cost_usd", self.max_cost)):
            if value is not None:
                options[name] = value
        return options

    def __repr__(self) -> str:
        shown = [f"{k}={v!r}" for k, v in (("url", self.url), ("model", self.model),
                                           ("key_env", self.key_env), ("config", self.config))
                 if v is not None]
        return f"OpenAIJudge({', '.join(shown)})"


class OfflineEmbedder:
    """Bag-of-stems vectors for semantic similarity and answer_relevancy: no model
    (``--embedder offline``). The default is "auto": LocalEmbedder() when the model is
    installed, else this."""

    def _options(self) -> Dict[str, Any]:
        return {"embedder": "offline"}

    def __repr__(self) -> str:
        return "OfflineEmbedder()"


class LocalEmbedder:
    """A model run in-process by the C++ library for every text: all-MiniLM-L6-v2 (English,
    ``--embedder local``), or with multilingual=True multilingual-e5-small (about 100
    languages, ``--embedder local-multilingual``); an error when the model is not installed
    (scripts/setup_embedder.sh). The default, ``embedder="auto"``, uses both when installed,
    the multilingual one for text that is not English. model_path: the model's directory
    (``--embedder-model-path``; default RAGMETER_EMBEDDER_MODEL, else
    ~/.cache/ragmeter/models/all-MiniLM-L6-v2; multilingual: RAGMETER_MULTILINGUAL_EMBEDDER_MODEL,
    else ~/.cache/ragmeter/models/multilingual-e5-small-q4)."""

    def __init__(self, model_path: Optional[PathLike] = None, multilingual: bool = False):
        self.model_path = os.fspath(model_path) if model_path is not None else None
        self.multilingual = bool(multilingual)

    def _options(self) -> Dict[str, Any]:
        options: Dict[str, Any] = {"embedder": "local-multilingual" if self.multilingual else "local"}
        if self.model_path is not None:
            options["embedder_model_path"] = self.model_path
        return options

    def __repr__(self) -> str:
        if self.multilingual:
            return f"LocalEmbedder(model_path={self.model_path!r}, multilingual=True)"
        return f"LocalEmbedder(model_path={self.model_path!r})"


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible server (``--embedder-url``, ``--embedder-model``;
    the URL defaults to the judge's). Needs an LLM judge."""

    def __init__(self, url: Optional[str] = None, model: Optional[str] = None):
        self.url = url
        self.model = model

    def _options(self) -> Dict[str, Any]:
        options: Dict[str, Any] = {"embedder": "openai"}
        if self.url is not None:
            options["embedder_url"] = self.url
        if self.model is not None:
            options["embedder_model"] = self.model
        return options

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(url={self.url!r}, model={self.model!r})"


def judge_options(judge: Any, embedder: Any, flags: Dict[str, Any]) -> Dict[str, Any]:
    """The JudgeOptions fields (judge_factory.h) for evaluate()'s judge, embedder and judge
    keyword arguments; the keywords win, as flags win over the config file."""
    from .errors import InvalidArgumentError

    options: Dict[str, Any] = {}
    if judge is None:
        pass
    elif isinstance(judge, (str, os.PathLike)):
        name = os.fspath(judge)
        if name in ("offline", "openai"):
            options["kind"] = name
        else:  # a TOML config file, as --config
            options["config_path"] = name
    elif hasattr(judge, "_options"):
        options.update(judge._options())
    else:
        raise InvalidArgumentError(
            f"judge: expected ragmeter.OfflineJudge(), ragmeter.OpenAIJudge(...), 'offline', "
            f"'openai' or a TOML config path, got {type(judge).__name__}")
    if embedder is None:
        pass
    elif isinstance(embedder, str):  # "auto", "offline", "local", "local-multilingual", "openai" (checked in C++)
        options["embedder"] = embedder
    elif hasattr(embedder, "_options"):
        options.update(embedder._options())
    else:
        raise InvalidArgumentError(
            f"embedder: expected ragmeter.OfflineEmbedder(), ragmeter.LocalEmbedder(), "
            f"ragmeter.OpenAIEmbedder(...) or an --embedder value ('auto', 'offline', 'local', "
            f"'openai'), got {type(embedder).__name__}")
    for name, value in flags.items():
        if value is not None:
            options[name] = os.fspath(value) if isinstance(value, os.PathLike) else value
    return options
