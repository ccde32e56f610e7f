"""ragmeter.adapters mapped over stand-ins shaped as the frameworks' objects (FAKES: the
attribute names of LlamaIndex's Response/NodeWithScore/TextNode and LangChain's
Document/AIMessage and chain outputs), run through ragmeter.run. The real LlamaIndex
pipeline is test_run_llama_index.py."""

import asyncio

import pytest

import ragmeter
from ragmeter import adapters

QUESTIONS = [{"user_input": "what is a tide?"}, {"user_input": "what is copper?"}]


class FakeTextNode:
    def __init__(self, text, node_id, ref_doc_id):
        self._text, self.node_id, self.ref_doc_id = text, node_id, ref_doc_id

    def get_content(self):
        return self._text


class FakeNodeWithScore:
    def __init__(self, node, score):
        self.node, self.score = node, score


class FakeResponse:
    def __init__(self, response, source_nodes):
        self.response, self.source_nodes = response, source_nodes


class FakeQueryEngine:
    def __init__(self):
        self.asked = []

    def query(self, question):
        self.asked.append(question)
        word = question.split()[-1].rstrip("?")
        return FakeResponse(f"about {word}", [FakeNodeWithScore(FakeTextNode(f"{word} text {i}", f"n-{word}-{i}",
                                                                             f"doc-{word}"), 1 - i / 10)
                                              for i in range(2)])

    async def aquery(self, question):
        await asyncio.sleep(0)
        return self.query(question)


@pytest.mark.parametrize("use_async", [False, True])
def test_llama_index_response_text_and_source_nodes_become_the_row(use_async):
    engine = FakeQueryEngine()
    result = ragmeter.run(QUESTIONS, adapters.llama_index(engine, use_async=use_async), progress=False)
    assert sorted(engine.asked) == sorted(q["user_input"] for q in QUESTIONS)
    row = result[0]
    assert row["response"] == "about tide"
    assert row["retrieved_contexts"] == ["tide text 0", "tide text 1"]
    assert row["retrieved_context_ids"] == ["n-tide-0", "n-tide-1"]


def test_llama_index_ids_can_be_the_documents():
    result = ragmeter.run(QUESTIONS[:1], adapters.llama_index(FakeQueryEngine(), context_id="ref_doc_id"),
                          progress=False)
    assert result[0]["retrieved_context_ids"] == ["doc-tide", "doc-tide"]


def test_llama_index_empty_response_is_an_empty_answer_not_none():
    class Engine:
        def query(self, question):
            return FakeResponse(None, [])  # LlamaIndex's Response when nothing was synthesised

    result = ragmeter.run(QUESTIONS[:1], adapters.llama_index(Engine()), progress=False)
    assert result[0]["response"] == "" and result[0]["retrieved_contexts"] == []


class FakeDocument:
    def __init__(self, page_content, metadata=None, id=None):
        self.page_content, self.metadata, self.id = page_content, metadata or {}, id


class FakeAIMessage:
    def __init__(self, content):
        self.content = content


class FakeRunnable:
    def __init__(self, output):
        self.output = output
        self.inputs = []

    def invoke(self, value):
        self.inputs.append(value)
        return self.output(value)

    async def ainvoke(self, value):
        return self.invoke(value)


def retrieval_chain_output(value):  # what create_retrieval_chain returns
    return {"input": value["input"], "answer": "from the chain",
            "context": [FakeDocument("first", {"source": "a.txt"}), FakeDocument("second", id="doc-2")]}


@pytest.mark.parametrize("use_async", [False, True])
def test_langchain_retrieval_chain_dict_gives_answer_and_documents(use_async):
    chain = FakeRunnable(retrieval_chain_output)
    result = ragmeter.run(QUESTIONS[:1], adapters.langchain(chain, input_key="input", use_async=use_async),
                          progress=False)
    assert chain.inputs == [{"input": "what is a tide?"}]
    row = result[0]
    assert row["response"] == "from the chain"
    assert row["retrieved_contexts"] == ["first", "second"]
    assert row["retrieved_context_ids"] == ["a.txt", "doc-2"]


def test_langchain_retrieval_qa_keys_and_a_message_answer():
    chain = FakeRunnable(lambda v: {"query": v["query"], "result": FakeAIMessage("qa answer"),
                                    "source_documents": [FakeDocument("only")]})
    result = ragmeter.run(QUESTIONS[:1], adapters.langchain(chain, input_key="query"), progress=False)
    assert result[0]["response"] == "qa answer"
    assert result[0]["retrieved_contexts"] == ["only"]
    assert "retrieved_context_ids" not in result[0]


def test_langchain_plain_string_or_message_output_is_the_response():
    for output in ("plain", FakeAIMessage("plain")):
        result = ragmeter.run(QUESTIONS[:1], adapters.langchain(FakeRunnable(lambda v, o=output: o)),
                              progress=False)
        assert result[0]["response"] == "plain" and "retrieved_contexts" not in result[0]


def test_langchain_output_without_an_answer_is_that_rows_run_error():
    result = ragmeter.run(QUESTIONS[:1], adapters.langchain(FakeRunnable(lambda v: {"nothing": 1})),
                          progress=False)
    error = result[0]["run_error"]
    assert error["kind"] == "exception" and error["message"].startswith("KeyError: ")


class FakeMessage:
    """A LangChain message's attributes (type, content, tool_calls): a FAKE of
    HumanMessage/AIMessage/ToolMessage."""

    def __init__(self, type, content, tool_calls=None):
        self.type, self.content, self.tool_calls = type, content, tool_calls or []


def fake_agent(value):
    """A FAKE LangGraph agent: its state in, its state out with this turn's messages added
    (a search call, its result, then an answer that names the turn)."""
    history = value["messages"]
    turn = sum(1 for role, _ in history if role == "user")
    state = [FakeMessage("human" if role == "user" else "ai", text) for role, text in history]
    return {"messages": state + [
        FakeMessage("ai", "", [{"name": "search", "args": {"turn": turn}, "id": f"t{turn}", "type": "tool_call"}]),
        FakeMessage("tool", "found it"),
        FakeMessage("ai", f"answer {turn} to {history[-1][1]}")]}


@pytest.mark.parametrize("use_async", [False, True])
def test_langchain_agent_gets_the_history_turn_by_turn_and_its_tool_calls_are_kept(use_async):
    agent = FakeRunnable(fake_agent)
    rows = [{"id": "c", "messages": [{"role": "system", "content": "Be brief."},
                                     {"role": "user", "content": "first"}, {"role": "user", "content": "second"}]}]
    result = ragmeter.run(rows, adapters.langchain(agent, use_async=use_async), progress=False)
    # The second turn's input: the system message, the first exchange, the new question.
    assert agent.inputs[1] == {"messages": [("system", "Be brief."), ("user", "first"),
                                            ("assistant", "answer 1 to first"), ("user", "second")]}
    messages = result[0]["messages"]
    assert [m["content"] for m in messages] == ["Be brief.", "first", "answer 1 to first", "second",
                                               "answer 2 to second"]
    assert messages[4]["tool_calls"] == [{"id": "t2", "type": "function",
                                          "function": {"name": "search", "arguments": '{"turn":2}'}}]


def test_langchain_chat_model_takes_the_history_as_a_list_with_messages_key_none():
    model = FakeRunnable(lambda history: FakeMessage("ai", f"{len(history)} messages seen",
                                                     [{"name": "lookup", "args": {}, "id": "x"}]))
    rows = [{"messages": [{"role": "user", "content": "hi"}]}]
    result = ragmeter.run(rows, adapters.langchain(model, messages_key=None), progress=False)
    assert model.inputs == [[("user", "hi")]]
    reply = result[0]["messages"][1]
    assert reply["content"] == "1 messages seen" and reply["tool_calls"][0]["function"]["name"] == "lookup"
