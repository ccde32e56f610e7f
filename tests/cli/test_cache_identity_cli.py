"""The judge cache's identity is the model, not the server's address (docs/design.md): a
restarted server on another port, or localhost for 127.0.0.1, hits; another model does not.
Calls are counted at the FAKE server (tests/fakes/fake_llm_server.cc, not a model)."""
import json

from cli_shared import JUDGE_REPLY, fake_stats


def test_a_restarted_server_on_another_port_or_localhost_hits_the_cache(run, tmp_path,
                                                                          start_fake_llm_server):
    data, cache = tmp_path / "d.jsonl", tmp_path / "judge.sqlite"
    data.write_text("".join(json.dumps({"user_input": f"Where is tower {i}?",
                                        "response": "The tower is in Paris. It is tall.",
                                        "reference": "The tower stands in Paris.",
                                        "retrieved_contexts": [f"Paris has tower {i}."]}) + "\n"
                            for i in range(2)))
    first = start_fake_llm_server(JUDGE_REPLY)

    def judged(url, model="fake"):
        return run("eval", data, "-m", "faithfulness,context_recall", "-q", "--cache", cache,
                   "--judge-url", url + "/v1", "--judge-model", model)

    assert judged(first).returncode == 0
    paid = fake_stats(first)["chat"]
    assert paid > 0
    # The "same server" restarted on another port, reached as localhost.
    second = start_fake_llm_server(JUDGE_REPLY)
    assert second != first
    assert judged(second.replace("127.0.0.1", "localhost")).returncode == 0
    assert fake_stats(second)["chat"] == 0
    # Another model shares nothing.
    assert judged(second, model="other-model").returncode == 0
    assert fake_stats(second)["chat"] == paid
