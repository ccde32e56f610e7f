"""Adapters from RAG frameworks to what ``ragmeter.run`` calls: a function taking the
question and returning ``{"response", "retrieved_contexts", "retrieved_context_ids"}``.

Duck-typed: neither LlamaIndex nor LangChain is imported here, so neither is a dependency.

    engine = index.as_query_engine(similarity_top_k=2)          # LlamaIndex
    answers = ragmeter.run(questions, ragmeter.adapters.llama_index(engine))

    chain = create_retrieval_chain(retriever, combine_docs_chain)  # LangChain
    answers = ragmeter.run(questions, ragmeter.adapters.langchain(chain, input_key="input"))
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Dict, List, Optional, Sequence

__all__ = ["llama_index", "langchain"]


def _name(obj: Any, kind: str) -> str:
    return f"{kind} {type(obj).__module__}.{type(obj).__qualname__}"


# ---- LlamaIndex -------------------------------------------------------------------


def _llama_index_reply(response: Any, context_id: str) -> Dict[str, Any]:
    """A LlamaIndex Response (``.response`` and ``.source_nodes``, a list of
    NodeWithScore) as a reply: the text, the nodes' contents in rank order, their ids."""
    if hasattr(response, "response"):  # a Response; .response is None when nothing was synthesised
        text = response.response or ""
    else:  # a plain value (a str from a custom engine)
        text = "" if response is None else response
    contexts: List[str] = []
    ids: List[str] = []
    for scored in getattr(response, "source_nodes", None) or []:
        node = getattr(scored, "node", scored)
        contexts.append(node.get_content())
        ids.append(str(getattr(node, context_id, None) or getattr(node, "node_id", "")))
    return {"response": str(text), "retrieved_contexts": contexts, "retrieved_context_ids": ids}


class _LlamaIndexTarget:
    def __init__(self, engine: Any, context_id: str):
        self.engine = engine
        self.context_id = context_id
        self.ragmeter_name = _name(engine, "llama_index")

    def __call__(self, question: str) -> Dict[str, Any]:
        return _llama_index_reply(self.engine.query(question), self.context_id)


class _AsyncLlamaIndexTarget(_LlamaIndexTarget):
    async def __call__(self, question: str) -> Dict[str, Any]:  # type: ignore[override]
        return _llama_index_reply(await self.engine.aquery(question), self.context_id)


def llama_index(query_engine: Any, *, use_async: bool = False, context_id: str = "node_id") -> Any:
    """A target for ``ragmeter.run`` over a LlamaIndex query engine (anything with
    ``query(str)``, and ``aquery(str)`` for ``use_async=True``): the response text as
    ``response``, the source nodes' contents (``node.get_content()``) as
    ``retrieved_contexts`` in rank order and their ``context_id`` attribute (``node_id``,
    the chunk; ``ref_doc_id``, the document) as ``retrieved_context_ids``. Its record
    identity is the engine's class: pass ``name=`` to ``run`` to tell two set-ups apart.
    """
    if use_async:
        return _AsyncLlamaIndexTarget(query_engine, context_id)
    return _LlamaIndexTarget(query_engine, context_id)


# ---- LangChain --------------------------------------------------------------------

_ANSWER_KEYS = ("answer", "output", "result", "response", "text")
_CONTEXT_KEYS = ("context", "source_documents", "documents", "retrieved_contexts", "contexts")


def _message_text(value: Any) -> Optional[str]:
    if isinstance(value, str):
        return value
    content = getattr(value, "content", None)  # an AIMessage
    if isinstance(content, str):
        return content
    return None


def _document(doc: Any) -> tuple:
    """(text, id) of a LangChain Document (``page_content``, ``id`` or metadata's id or
    source), or of a plain string."""
    if isinstance(doc, str):
        return doc, None
    text = getattr(doc, "page_content", None)
    if text is None and isinstance(doc, Mapping):
        text = doc.get("page_content", doc.get("text"))
    metadata = getattr(doc, "metadata", None) or (doc.get("metadata") if isinstance(doc, Mapping) else None) or {}
    doc_id = getattr(doc, "id", None) or metadata.get("id") or metadata.get("source")
    return ("" if text is None else str(text)), (None if doc_id is None else str(doc_id))


def _tool_calls(message: Any) -> list:
    """A LangChain AIMessage's tool calls as {"name", "args", "id"} dicts (ragmeter reads
    that shape); none for other messages."""
    calls = getattr(message, "tool_calls", None) or []
    return [{k: c[k] for k in ("name", "args", "id") if c.get(k) is not None} for c in calls]


def _agent_state_reply(messages: Sequence[Any]) -> Dict[str, Any]:
    """A LangGraph agent's state ({"messages": [...]}): the messages after the last human
    one are this turn's; the last AI message's text is the response, every AI message's tool
    calls are the turn's calls."""
    start = max((i + 1 for i, m in enumerate(messages) if getattr(m, "type", None) == "human"), default=0)
    turn = [m for m in messages[start:] if getattr(m, "type", None) == "ai"]
    if not turn:
        raise KeyError("the agent's messages hold no AI message after the last human one")
    reply: Dict[str, Any] = {"response": _message_text(turn[-1]) or ""}
    calls = [c for m in turn for c in _tool_calls(m)]
    if calls:
        reply["tool_calls"] = calls
    return reply


def _langchain_reply(output: Any, answer_key: Optional[str], context_key: Optional[str]) -> Any:
    text = _message_text(output)
    if text is not None:
        calls = _tool_calls(output)
        return {"response": text, "tool_calls": calls} if calls else text
    if isinstance(output, Mapping) and not answer_key and isinstance(output.get("messages"), Sequence) \
            and not any(k in output for k in _ANSWER_KEYS):
        return _agent_state_reply(output["messages"])
    if not isinstance(output, Mapping):
        raise TypeError(f"the runnable returned a {type(output).__name__}: give answer_key= or wrap it")
    keys: Sequence[str] = (answer_key,) if answer_key else _ANSWER_KEYS
    answer = next((output[k] for k in keys if k in output), None)
    text = _message_text(answer)
    if text is None:
        raise KeyError(f"no answer under {list(keys)} in the runnable's output (keys: {list(output)})")
    reply: Dict[str, Any] = {"response": text}
    keys = (context_key,) if context_key else _CONTEXT_KEYS
    docs = next((output[k] for k in keys if k in output), None)
    if docs is not None:
        pairs = [_document(d) for d in docs]
        reply["retrieved_contexts"] = [t for t, _ in pairs]
        if any(i is not None for _, i in pairs):
            reply["retrieved_context_ids"] = ["" if i is None else i for _, i in pairs]
    return reply


class _LangChainTarget:
    def __init__(self, runnable: Any, input_key: Optional[str], answer_key: Optional[str],
                 context_key: Optional[str], messages_key: Optional[str] = "messages"):
        self.runnable = runnable
        self.input_key = input_key
        self.messages_key = messages_key
        self.answer_key = answer_key
        self.context_key = context_key
        self.ragmeter_name = _name(runnable, "langchain")

    def _input(self, question: Any) -> Any:
        if isinstance(question, list):  # a conversation's turn: the history, as (role, text) pairs
            history = [(m["role"], m.get("content") or "") for m in question]
            return {self.messages_key: history} if self.messages_key else history
        return {self.input_key: question} if self.input_key else question

    def __call__(self, question: str) -> Any:
        return _langchain_reply(self.runnable.invoke(self._input(question)), self.answer_key, self.context_key)


class _AsyncLangChainTarget(_LangChainTarget):
    async def __call__(self, question: str) -> Any:  # type: ignore[override]
        output = await self.runnable.ainvoke(self._input(question))
        return _langchain_reply(output, self.answer_key, self.context_key)


def langchain(runnable: Any, *, input_key: Optional[str] = None, answer_key: Optional[str] = None,
              context_key: Optional[str] = None, use_async: bool = False,
              messages_key: Optional[str] = "messages") -> Any:
    """A target for ``ragmeter.run`` over a LangChain runnable (anything with
    ``invoke``, and ``ainvoke`` for ``use_async=True``).

    The input is the question, or ``{input_key: question}`` (``input_key="input"`` for
    ``create_retrieval_chain``, ``"query"`` for ``RetrievalQA``). The output may be a str
    or a message (the response, no contexts), or a dict: the answer under `answer_key`
    (default the first of answer, output, result, response, text; a message's
    ``.content`` is its text) and the retrieved Documents under `context_key` (default the
    first of context, source_documents, documents, retrieved_contexts, contexts): their
    ``page_content`` as contexts, their ``id`` (else metadata's id or source) as ids.

    Conversations (docs/run.md): each turn's history goes in as ``(role, text)`` pairs under
    `messages_key` (``{"messages": [...]}``, a LangGraph agent's input; None: the list
    itself, for a chat model or a chain taking messages). An output that is an agent's state
    (a dict with ``messages``) gives the turn's reply: the last AI message after the last
    human one is the response, and every AI message's ``tool_calls`` there are the turn's
    calls; an AIMessage output's tool calls are kept too.
    """
    cls = _AsyncLangChainTarget if use_async else _LangChainTarget
    return cls(runnable, input_key, answer_key, context_key, messages_key)
