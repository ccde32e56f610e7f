"""ragmeter.run with a Python function as the target: the C++ run loop asks it (sync on a
pool of threads that take the GIL only to call it, async on an event loop), keeps rows in
input order, turns an exception into that row's run_error, records answers and resumes,
and hands its rows to ragmeter.evaluate (in the same call with eval=)."""

import asyncio
import json
import os
import signal
import threading
import time

import pytest

import ragmeter

QUESTIONS = [{"id": f"q{i}", "user_input": f"question {i}", "reference": f"answer {i} here"} for i in range(8)]


class Concurrency:
    """Counts calls running at once (thread-safe)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.now = 0
        self.most = 0
        self.calls = []

    def enter(self, question):
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
            self.calls.append(question)

    def leave(self):
        with self.lock:
            self.now -= 1


def reply(question):
    n = question.split()[-1]
    return {"response": f"answer {n}", "retrieved_contexts": [f"context {n}a", f"context {n}b"],
            "retrieved_context_ids": [f"d{n}a", f"d{n}b"]}


def test_a_sync_function_runs_on_concurrency_threads_and_rows_keep_input_order():
    seen = Concurrency()

    def rag(question):
        seen.enter(question)
        time.sleep(0.4 if question.endswith("0") else 0.15)  # the first row finishes last
        seen.leave()
        return reply(question)

    result = ragmeter.run(QUESTIONS, rag, concurrency=4, progress=False)
    assert seen.most == 4  # the GIL is released while a call sleeps: four ran at once
    assert sorted(seen.calls) == [q["user_input"] for q in QUESTIONS]
    assert [r["id"] for r in result] == [q["id"] for q in QUESTIONS]
    first = result[0]
    assert first["reference"] == "answer 0 here"  # the input row's own fields stay
    assert first["response"] == "answer 0"
    assert first["retrieved_contexts"] == ["context 0a", "context 0b"]
    assert first["retrieved_context_ids"] == ["d0a", "d0b"]
    assert first["latency_ms"] >= 400
    s = result.summary
    assert (s["rows"], s["answered"], s["failed"], s["requests"]) == (8, 8, 0, 8)
    assert s["latency_ms"]["max"] >= 400 and s["latency_ms"]["n"] == 8


def test_an_async_function_runs_concurrency_coroutines_on_one_event_loop():
    seen = Concurrency()
    loops = set()

    async def rag(question):
        loops.add(id(asyncio.get_running_loop()))
        seen.enter(question)
        await asyncio.sleep(0.2)
        seen.leave()
        return reply(question)

    result = ragmeter.run(QUESTIONS, rag, concurrency=3, progress=False)
    assert seen.most == 3 and len(loops) == 1
    assert [r["response"] for r in result] == [f"answer {i}" for i in range(8)]


def test_arun_runs_an_async_function_on_the_callers_loop():
    async def main():
        caller = asyncio.get_running_loop()
        used = []

        async def rag(question):
            used.append(asyncio.get_running_loop() is caller)
            await asyncio.sleep(0.01)
            return question.upper()  # a str is the response, with no contexts

        result = await ragmeter.arun(QUESTIONS[:3], rag, concurrency=2)
        return result, used

    result, used = asyncio.run(main())
    assert used == [True, True, True]
    assert [r["response"] for r in result] == ["QUESTION 0", "QUESTION 1", "QUESTION 2"]
    assert "retrieved_contexts" not in result[0]


@pytest.mark.parametrize("is_async", [False, True])
def test_an_exception_in_the_function_becomes_that_rows_run_error(is_async):
    def answer(question):
        if question == "question 2":
            raise ValueError("no index for question 2")
        return reply(question)

    if is_async:
        async def rag(question):
            return answer(question)
    else:
        rag = answer
    result = ragmeter.run(QUESTIONS[:4], rag, concurrency=2, progress=False)
    assert [("run_error" in r) for r in result] == [False, False, True, False]
    error = result[2]["run_error"]
    assert error == {"kind": "exception", "message": "ValueError: no index for question 2", "attempts": 1}
    assert "response" not in result[2]
    assert result.errors == {"exception": 1}
    assert result.summary["failed"] == 1 and result.summary["answered"] == 3


def test_an_exception_of_a_retry_on_type_is_retried():
    attempts = {}

    def rag(question):
        attempts[question] = attempts.get(question, 0) + 1
        if question == "question 1" and attempts[question] < 3:
            raise ConnectionError("refused")
        return reply(question)

    result = ragmeter.run(QUESTIONS[:2], rag, max_attempts=4, progress=False)
    assert attempts == {"question 0": 1, "question 1": 3}
    assert result[1]["response"] == "answer 1"
    assert result.summary["retries"] == 2 and result.summary["requests"] == 4


@pytest.mark.parametrize("returned, kind", [
    (["a", "list"], "bad_reply"),
    ({"retrieved_contexts": ["c"]}, "no_answer"),
    ({"response": "r", "retrieved_contexts": "not a list"}, "bad_contexts"),
    ({"response": "r", "retrieved_contexts": ["a", "b"], "retrieved_context_ids": ["only one"]}, "bad_contexts"),
])
def test_a_reply_of_the_wrong_shape_is_that_rows_run_error(returned, kind):
    result = ragmeter.run(QUESTIONS[:1], lambda q: returned, progress=False)
    assert result[0]["run_error"]["kind"] == kind


def test_a_call_longer_than_the_timeout_ends_as_timeout():
    def rag(question):
        if question == "question 0":
            time.sleep(1.5)
        return reply(question)

    start = time.monotonic()
    result = ragmeter.run(QUESTIONS[:2], rag, timeout=0.3, max_attempts=1, concurrency=2, progress=False)
    assert result[0]["run_error"]["kind"] == "timeout"
    assert result[1]["response"] == "answer 1"
    assert time.monotonic() - start < 5


@pytest.mark.hang_limit(60)
def test_an_async_functions_answers_and_exceptions_reach_the_run_with_no_time_limit():
    # The completion callback gets (reply, None) or (None, exception). It once refused
    # None, and the TypeError, raised inside the future's done callback, was only logged:
    # no answer arrived and, with no time limit, the run waited forever (the hang guard
    # fails the test then).
    async def rag(question):
        await asyncio.sleep(0)
        if question == "question 1":
            raise ValueError("no index for question 1")
        return reply(question)

    result = ragmeter.run(QUESTIONS[:3], rag, timeout=None, max_attempts=1, progress=False)
    assert [r.get("response") for r in result] == ["answer 0", None, "answer 2"]
    assert result[1]["run_error"]["message"] == "ValueError: no index for question 1"
    assert result.errors == {"exception": 1}


@pytest.mark.hang_limit(60)
def test_an_async_attempt_whose_completion_is_never_reported_ends_as_lost():
    # The binding's contract (what ragmeter.run's submitter does): submit(request, done)
    # schedules the work and calls done once. A done freed uncalled (here dropped at
    # once) ends its attempt as "lost" instead of leaving the row waiting forever.
    from ragmeter import _core
    from ragmeter._data import to_source

    submitted = []

    def submit(request, done):
        submitted.append(request["question"])  # and done is dropped

    output, stop = _core.run_function(to_source(QUESTIONS[:2]), submit, is_async=True, retry_on=(),
                                      identity="drops done", timeout=0.0, max_attempts=1)
    assert stop is None and submitted == ["question 0", "question 1"]
    rows = output.rows()
    assert [r["run_error"]["kind"] for r in rows] == ["lost", "lost"]
    assert "never reported" in rows[0]["run_error"]["message"]


def test_pass_row_gives_the_function_the_whole_row_and_out_writes_the_rows(tmp_path):
    rows_seen = []

    def rag(row):
        rows_seen.append(row)
        return {"answer": row["reference"], "contexts": [{"text": "t", "id": 7}], "prompt_tokens": 11}

    out = tmp_path / "answers.jsonl"
    result = ragmeter.run(QUESTIONS[:2], rag, pass_row=True, out=out, summary=tmp_path / "s.json",
                          progress=False)
    assert sorted(r["id"] for r in rows_seen) == ["q0", "q1"] and rows_seen[0] == QUESTIONS[int(rows_seen[0]["id"][1])]
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines == result.rows
    assert lines[0]["response"] == "answer 0 here"
    assert lines[0]["retrieved_context_ids"] == ["7"] and lines[0]["prompt_tokens"] == 11
    assert json.loads((tmp_path / "s.json").read_text()) == result.summary
    assert (tmp_path / "answers.jsonl.record").exists()  # out= keeps the record beside it


def test_a_rerun_is_served_from_the_record_and_asks_only_what_had_no_answer(tmp_path):
    calls = []

    def flaky(question):
        calls.append(question)
        if question in ("question 3", "question 5"):
            raise RuntimeError("down")
        return reply(question)

    out = tmp_path / "a.jsonl"
    first = ragmeter.run(QUESTIONS, flaky, out=out, name="my-rag", progress=False)
    assert first.summary["failed"] == 2 and len(calls) == 8
    calls.clear()

    def fixed(question):
        calls.append(question)
        return reply(question)

    second = ragmeter.run(QUESTIONS, fixed, out=out, name="my-rag", progress=False)
    assert sorted(calls) == ["question 3", "question 5"]
    assert second.summary["from_record"] == 6 and second.summary["failed"] == 0
    assert [r["response"] for r in second] == [f"answer {i}" for i in range(8)]
    calls.clear()
    ragmeter.run(QUESTIONS, fixed, out=out, name="my-rag", fresh=True, progress=False)
    assert len(calls) == 8  # fresh asks everything again
    calls.clear()
    ragmeter.run(QUESTIONS, fixed, out=out, name="another set-up", progress=False)
    assert len(calls) == 8  # another identity is another system


def test_ctrl_c_keeps_the_finished_answers_and_a_rerun_asks_only_the_rest(tmp_path, ctrl_c_raises):
    calls = []
    timers = []

    def rag(question):
        calls.append(question)
        if len(calls) == 3 and not timers:  # Ctrl-C from another thread, mid-run
            timers.append(threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGINT)))
            timers[0].start()
        time.sleep(0.1)
        return reply(question)

    out = tmp_path / "a.jsonl"
    questions = QUESTIONS * 1  # 8 rows, one at a time
    with pytest.raises(ragmeter.Interrupted) as info:
        ragmeter.run(questions, rag, out=out, concurrency=1, progress=False)
    timers[0].join()
    partial = info.value.result
    assert isinstance(info.value.cause, KeyboardInterrupt)
    assert partial.summary["cancelled"] is True
    answered = [r for r in partial if "response" in r]
    assert 2 <= len(answered) < 8
    assert all(r["run_error"]["kind"] == "interrupted" for r in partial if "response" not in r)
    asked_before = len(calls)
    calls.clear()
    rest = ragmeter.run(questions, rag, out=out, concurrency=1, progress=False)
    assert rest.summary["from_record"] == len(answered)
    assert len(calls) == 8 - len(answered) <= 8 - asked_before + 1  # at most the one in flight again
    assert [r["response"] for r in rest] == [f"answer {i}" for i in range(8)]


def test_eval_scores_the_rows_in_the_same_call_and_a_failed_row_is_failed():
    def rag(question):
        if question == "question 1":
            raise ValueError("broken")
        return {"response": "answer 0 here" if question == "question 0" else "something else"}

    result = ragmeter.run(QUESTIONS[:3], rag, eval="token_f1", progress=False)
    scores = result.evaluation
    # By hand: row 0 answers its reference exactly (F1 1); row 2 shares no token with
    # "answer 2 here" (F1 0); row 1 has no answer: failed with the run's reason.
    assert scores.scores("token_f1") == [1.0, None, 0.0]
    reason = scores.to_pandas()["token_f1_reason"][1]
    assert reason == "row rejected: <memory>:2: field 'run_error': exception: ValueError: broken"
    # Passing the RunResult to evaluate gives the same.
    again = ragmeter.evaluate(result, "token_f1", progress=False)
    # Everything but the run's date (the two evaluations may fall in different seconds).
    summaries = [dict(r.summary, run={k: v for k, v in r.summary["run"].items() if k != "date"})
                 for r in (again, scores)]
    assert summaries[0] == summaries[1]


def test_a_conversation_row_calls_the_function_with_the_history_turn_by_turn():
    histories = []

    def chat(messages):
        histories.append([dict(m) for m in messages])
        turn = sum(1 for m in messages if m["role"] == "user")
        out = {"response": f"reply {turn}: {messages[-1]['content']}", "retrieved_contexts": [f"passage {turn}"]}
        if turn == 2:
            out["tool_calls"] = [{"name": "book_table", "args": {"people": 2}}]
        return out

    rows = [{"id": "c", "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "old"},
                                     {"role": "user", "content": "book for two"}],
             "reference_tool_calls": [{"name": "book_table", "args": {"people": 2}}]},
            {"id": "s", "user_input": "single"}]
    result = ragmeter.run(rows, lambda x: chat(x) if isinstance(x, list) else f"single answer to {x}",
                          progress=False)
    messages = result[0]["messages"]
    assert [m["content"] for m in messages] == ["hi", "reply 1: hi", "book for two", "reply 2: book for two"]
    assert messages[3]["tool_calls"][0]["function"] == {"name": "book_table", "arguments": '{"people":2}'}
    # The second call saw the first reply, not the row's recorded "old" one.
    assert [m["content"] for m in histories[1]] == ["hi", "reply 1: hi", "book for two"]
    assert result[1]["response"] == "single answer to single"
    # The run's rows score as conversations: the call made equals the reference call.
    scores = ragmeter.evaluate(result, "ragas_tool_call_f1")
    assert scores.scores("ragas_tool_call_f1")[0] == 1.0


def test_a_function_fails_mid_conversation_and_the_turns_answered_are_kept():
    def chat(messages):
        if len(messages) > 1:
            raise ValueError("the second turn broke")
        return f"reply to {messages[-1]['content']}"

    rows = [{"id": "c", "messages": [{"role": "user", "content": "hi"}, {"role": "user", "content": "again"}]}]
    error = ragmeter.run(rows, chat, progress=False)[0]["run_error"]
    assert error["kind"] == "exception" and error["message"].startswith("turn 2: ValueError")
    assert error["turns_answered"] == 1
    assert [m["content"] for m in error["messages"]] == ["hi", "reply to hi", "again"]


@pytest.fixture
def fake_user_model():
    """The FAKE OpenAI-compatible server (tests/fakes/fake_llm_server.cc) as the simulated
    user's model, scripted reply by reply; not a model."""
    import subprocess
    import urllib.request
    from conftest import BUILD

    binary = BUILD / "fakes" / "fake_llm_server"
    if not binary.exists():
        pytest.fail(f"{binary} is not built")
    proc = subprocess.Popen([str(binary), "--port", "0"], stdout=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{int(proc.stdout.readline().split()[-1])}"

    def script(replies):
        steps = [r if "kind" in r else {"content": json.dumps(r)} for r in replies]
        body = json.dumps({"steps": steps}).encode()
        with urllib.request.urlopen(urllib.request.Request(base + "/fake/script", data=body, method="POST"),
                                    timeout=10) as reply:
            reply.read()

    def requests():
        with urllib.request.urlopen(base + "/fake/requests", timeout=10) as reply:
            return json.load(reply)

    yield base + "/v1", script, requests
    proc.terminate()
    proc.wait(timeout=10)


SCENARIO = {"id": "sim", "scenario": "You want a table for two tonight at 8.",
            "expected_outcome": "The assistant confirms a booking for two at 8 pm.",
            "user_description": "Terse, in a hurry."}


@pytest.mark.parametrize("is_async", [False, True])
def test_a_simulated_user_plays_a_scenario_against_a_python_function(fake_user_model, is_async):
    url, script, requests = fake_user_model
    script([{"complete": False, "reason": "", "message": "Table for two tonight?"},
            {"complete": False, "reason": "no time yet", "message": "At 8, book it"},
            {"complete": True, "reason": "booked for two at 8", "message": ""}])
    seen = []

    def answer(messages):
        seen.append([m["content"] for m in messages])
        return f"reply {len(seen)}"

    async def answer_async(messages):
        return answer(messages)

    result = ragmeter.run([SCENARIO], answer_async if is_async else answer, progress=False,
                          simulated_user=ragmeter.OpenAIJudge(url, "fake", cache_mode="off"))
    row = result[0]
    assert [m["content"] for m in row["messages"]] == ["Table for two tonight?", "reply 1", "At 8, book it", "reply 2"]
    assert row["simulation"] == {"user_turns": 2, "ended": "expected_outcome", "reason": "booked for two at 8"}
    assert seen == [["Table for two tonight?"], ["Table for two tonight?", "reply 1", "At 8, book it"]]
    assert len(requests()) == 3
    assert result.summary["conversations"]["simulated_user"]["calls"] == 3


def test_a_scenario_with_no_simulated_user_or_a_bad_turn_limit_says_what_to_give():
    row = ragmeter.run([SCENARIO], lambda messages: "never asked", progress=False)[0]
    assert row["run_error"]["kind"] == "simulated_user"
    assert "simulated_user=ragmeter.OpenAIJudge" in row["run_error"]["message"]
    with pytest.raises(ragmeter.InvalidArgumentError, match="max_user_turns"):
        ragmeter.run([SCENARIO], lambda messages: "x", progress=False, max_user_turns=0)


def test_ctrl_c_while_the_simulated_user_waits_ends_the_run_and_keeps_the_turns(fake_user_model, ctrl_c_raises):
    url, script, _ = fake_user_model
    script([{"complete": False, "reason": "", "message": "Table for two tonight?"}, {"kind": "hang"}])
    timers = []

    def answer(messages):  # Ctrl-C from another thread while the user's next call hangs
        timers.append(threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)))
        timers[-1].start()
        return "reply 1"

    started = time.monotonic()
    with pytest.raises(ragmeter.Interrupted) as info:
        ragmeter.run([SCENARIO], answer, progress=False,
                     simulated_user=ragmeter.OpenAIJudge(url, "fake", cache_mode="off", timeout=120))
    assert time.monotonic() - started < 60  # the hanging call was abandoned, not waited for
    error = info.value.result[0]["run_error"]
    assert error["kind"] == "interrupted"
    assert [m["content"] for m in error["messages"]] == ["Table for two tonight?", "reply 1"]
