"""A conversation's sample page in headless Chromium (docs/agents.md): every message in order
with its role, the tool calls with their arguments, each turn's passages, claims and scores
beside the turn's last assistant message (read from the turn-by-turn evidence), the expected
tool calls, and the conversation's own scores. The sample table shows the first user message
as the question. Message text is data, never markup: a payload in a message runs nothing."""

import json

OPENAI = {"id": "chat-1", "messages": [
    {"role": "system", "content": "Answer from the passages."},
    {"role": "user", "content": "Where is the Eiffel Tower?"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "t1", "type": "function",
         "function": {"name": "search", "arguments": '{"q": "Eiffel Tower"}'}}]},
    {"role": "tool", "tool_call_id": "t1", "content": "<img src=x onerror='window.__pwned=1'>"},
    {"role": "assistant", "content": "The Eiffel Tower is in Paris.",
     "retrieved_contexts": ["The Eiffel Tower is a wrought-iron tower in Paris, France."]},
    {"role": "user", "content": "Thanks!"},
    {"role": "assistant", "content": "You are welcome."}],
    "reference_tool_calls": [{"name": "search", "args": {"q": "Eiffel Tower"}}]}


def test_the_conversation_page_shows_turns_tool_calls_and_per_turn_scores(ragmeter, browser, tmp_path,
                                                                          artifacts):
    data = tmp_path / "chat.jsonl"
    data.write_text(json.dumps(OPENAI) + "\n")
    html = tmp_path / "report.html"
    out = tmp_path / "out.jsonl"
    ragmeter("eval", data, "-m", "faithfulness,ragas_tool_call_f1", "--out", out, "--report", html,
             "-q", "--language", "en")
    (result,) = [json.loads(l) for l in out.read_text().splitlines()]
    turns = result["evidence"]["faithfulness"]["turns"]
    browser.open(html)
    browser.wait_until("document.body.dataset.rendered === '1'")
    # The table's question is the first user message.
    assert "Where is the Eiffel Tower?" in browser.eval("document.querySelector('#samples').textContent")
    browser.eval("location.hash = '#sample=0'")
    browser.wait_until("document.getElementById('sample-title')?.textContent.startsWith('Sample 1')")
    roles = browser.eval("[...document.querySelectorAll('#sample-conversation .message')]"
                         ".map(m => m.querySelector('.badge').textContent)")
    assert roles == ["system", "user", "assistant", "tool", "assistant", "user", "assistant"]
    message = "document.querySelector('#sample-conversation [data-message=\"{}\"]')"
    assert 'search({"q":"Eiffel Tower"})' in browser.eval(message.format(2) + ".textContent")
    # Turn 1 ends at message 4: its passage, its supported claim and its scores are there.
    assert turns[0]["message"] == 4 and turns[0]["status"] == "ok"
    turn1 = message.format(4)
    assert "turn 1" in browser.eval(turn1 + ".textContent")
    assert "supports claim 1" in browser.eval(turn1 + ".querySelector('.context').textContent")
    score = browser.eval(turn1 + ".querySelector('.turn-scores tr[data-metric=faithfulness]').textContent")
    assert f"{turns[0]['score']:.4f}" in score and "ok" in score
    # Turn 2 has no passages: skipped, with the reason the evidence gives.
    turn2 = message.format(6)
    assert turns[1]["status"] == "skipped"
    assert turns[1]["reason"] in browser.eval(turn2 + ".querySelector('.turn-scores').textContent")
    # The tool message's markup is shown as text and runs nothing.
    assert "<img src=x" in browser.eval(message.format(3) + ".textContent")
    assert browser.eval("typeof window.__pwned") == "undefined"
    page = browser.eval("document.getElementById('app').textContent")
    assert "Expected tool calls" in page and "Expected outcome" not in page  # no reference given
    assert browser.eval("document.getElementById('sample-fields')?.textContent ?? ''").count("messages") == 0
    browser.screenshot(artifacts / "conversation.png")
    assert browser.errors() == []
