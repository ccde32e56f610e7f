"""Single-turn metrics on conversations, turn by turn (docs/agents.md): a conversation's
faithfulness, answer_relevancy and k_precision must equal the mean, over its turns that could be
scored, of the same metrics on single-turn rows written out here by hand from the turns (the
user's message, the assistant's text, the passages of that turn). The single-turn rows are the
oracle: they go through the ordinary single-turn path, which the other suites check against
ragas and the papers. The same conversation in ragas's, OpenAI's and DeepEval's shapes scores
the same."""
import json
import math

from cli_shared import read_jsonl

METRICS = "faithfulness,answer_relevancy,k_precision"
# answer_relevancy's embeddings are float32 sums whose order OpenBLAS chooses by the size of
# the batch (the texts packed into one matrix, docs/design.md), and the turns of three
# conversations are batched otherwise than three single-turn rows: they agree to about 1e-8.
# The other two are counts and agree exactly.
TOLERANCE = {"faithfulness": 0.0, "k_precision": 0.0, "answer_relevancy": 1e-6}

PARIS = "The Eiffel Tower is a wrought-iron lattice tower in Paris, France."
HEIGHT = "The tower is 330 metres tall. It was the tallest structure in the world until 1930."

RAGAS = {"id": "c1", "user_input": [
    {"type": "human", "content": "Where is the Eiffel Tower?"},
    {"type": "ai", "content": "", "tool_calls": [{"name": "search", "args": {"q": "Eiffel"}}]},
    {"type": "tool", "content": PARIS},
    {"type": "ai", "content": "The Eiffel Tower is in Paris, France.", "retrieved_contexts": [PARIS]},
    {"type": "human", "content": "How tall is it?"},
    {"type": "ai", "content": "It is 330 metres tall and was built in 1889.",
     "retrieved_contexts": [HEIGHT]},
    {"type": "human", "content": "Thanks!"},
    {"type": "ai", "content": "You are welcome."}],
    "reference_tool_calls": [{"name": "search", "args": {"q": "Eiffel"}}]}

OPENAI = {"id": "c1", "messages": [
    {"role": "system", "content": "Answer from the passages."},
    {"role": "user", "content": "Where is the Eiffel Tower?"},
    {"role": "assistant", "content": None, "tool_calls": [
        {"id": "t1", "type": "function", "function": {"name": "search", "arguments": '{"q": "Eiffel"}'}}]},
    {"role": "tool", "tool_call_id": "t1", "content": PARIS},
    {"role": "assistant", "content": "The Eiffel Tower is in Paris, France.", "retrieved_contexts": [PARIS]},
    {"role": "user", "content": "How tall is it?"},
    {"role": "assistant", "content": "It is 330 metres tall and was built in 1889.",
     "retrieved_contexts": [HEIGHT]},
    {"role": "user", "content": "Thanks!"},
    {"role": "assistant", "content": "You are welcome."}]}

DEEPEVAL = {"id": "c1", "turns": [
    {"role": "user", "content": "Where is the Eiffel Tower?"},
    {"role": "assistant", "content": "The Eiffel Tower is in Paris, France.", "retrieval_context": [PARIS]},
    {"role": "user", "content": "How tall is it?"},
    {"role": "assistant", "content": "It is 330 metres tall and was built in 1889.",
     "retrieval_context": [HEIGHT]},
    {"role": "user", "content": "Thanks!"},
    {"role": "assistant", "content": "You are welcome."}]}

# The turns as single-turn rows, by hand. The third turn has no passages.
TURNS = [
    {"user_input": "Where is the Eiffel Tower?", "response": "The Eiffel Tower is in Paris, France.",
     "retrieved_contexts": [PARIS]},
    {"user_input": "How tall is it?", "response": "It is 330 metres tall and was built in 1889.",
     "retrieved_contexts": [HEIGHT]},
    {"user_input": "Thanks!", "response": "You are welcome."},
]


def write(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_a_conversation_scores_the_mean_of_its_turns_as_single_turn_rows(run, tmp_path):
    out_turns = tmp_path / "turns_out.jsonl"
    # answer_relevancy is withdrawn from the offline judge by default (docs/judges.md); here
    # it is scored anyway, for a metric that reads each turn's user message.
    p = run("eval", write(tmp_path / "turns.jsonl", TURNS), "-m", METRICS, "--language", "en",
            "--offline-score-withdrawn", "--out", out_turns, "-q")
    assert p.returncode == 0, p.stderr
    singles = read_jsonl(out_turns)
    out = tmp_path / "out.jsonl"
    rows = [RAGAS, OPENAI, DEEPEVAL]
    p = run("eval", write(tmp_path / "conversations.jsonl", rows), "-m", METRICS,
            "--language", "en", "--offline-score-withdrawn", "--out", out, "-q")
    assert p.returncode == 0, p.stderr
    results = read_jsonl(out)
    assert len(results) == 3
    for metric in METRICS.split(","):
        scored = [r["scores"][metric] for r in singles if r["status"][metric] == "ok"]
        # The third turn has no passages: only answer_relevancy scores it.
        assert len(scored) == (3 if metric == "answer_relevancy" else 2), (metric, singles)
        expected = sum(scored) / len(scored)
        for shape, result in zip(("ragas", "openai", "deepeval"), results):
            assert result["status"][metric] == "ok", (shape, metric, result["reasons"])
            assert math.isclose(result["scores"][metric], expected, abs_tol=TOLERANCE[metric]), \
                (shape, metric)
            turns = result["evidence"][metric]["turns"]
            assert [t["turn"] for t in turns] == [1, 2, 3]
            assert [t["status"] for t in turns] == [r["status"][metric] for r in singles]
            for turn, single in zip(turns, singles):
                if single["status"][metric] == "ok":
                    assert math.isclose(turn["score"], single["scores"][metric],
                                        abs_tol=TOLERANCE[metric]), (shape, metric)
            assert [t.get("reason") for t in turns] == [r["reasons"].get(metric) for r in singles]
    # The second turn's claim about 1889 is not in its passage: its faithfulness is below the
    # first turn's, so the conversation is not read as wholly grounded.
    assert singles[1]["scores"]["faithfulness"] < singles[0]["scores"]["faithfulness"]


def test_the_summary_says_some_turns_were_skipped(run, tmp_path):
    summary = tmp_path / "s.json"
    p = run("eval", write(tmp_path / "c.jsonl", [RAGAS]), "-m", "k_precision", "--language", "en",
            "--summary", summary)
    assert p.returncode == 0, p.stderr
    assert "some turns were skipped: the score is the mean of the turns scored" in p.stdout
    metric = json.loads(summary.read_text())["metrics"]["k_precision"]
    assert metric["n"] == 1


def test_a_conversation_without_an_assistant_text_skips_single_turn_metrics(run, tmp_path):
    row = {"user_input": [{"type": "human", "content": "Weather?"},
                          {"type": "ai", "content": "", "tool_calls": [{"name": "w", "args": {}}]},
                          {"type": "tool", "content": "sunny"}]}
    out = tmp_path / "out.jsonl"
    p = run("eval", write(tmp_path / "c.jsonl", [row]), "-m", "faithfulness", "--out", out, "-q")
    assert p.returncode == 0, p.stderr
    (result,) = read_jsonl(out)
    assert result["status"]["faithfulness"] == "skipped"
    assert "no assistant message of this one has text" in result["reasons"]["faithfulness"]
