"""`ragmeter eval --dry-run --judge-speed PROMPT,GENERATION`: the wall-time estimate, checked
against the planned tokens the same run prints (prompt / prompt speed + completion /
generation speed, over the requests served at once), so a user knows before starting that
a slow local judge takes hours."""

import json
import re


def estimate(run, data, *extra):
    p = run("eval", data, "--metrics", "ragas", "--dry-run", "--judge-url", "http://127.0.0.1:9/v1",
            "--judge-model", "local-model", *extra)
    assert p.returncode == 0, p.stderr
    prompt, completion = map(int, re.search(r"estimated tokens: (\d+) prompt, (\d+) completion",
                                            p.stdout).groups())
    line = next(l for l in p.stdout.splitlines() if l.startswith("estimated wall time"))
    return prompt, completion, line


def seconds_of(line):
    h = re.search(r"wall time: (\d+) h (\d+) min", line)
    if h:
        return int(h.group(1)) * 3600 + int(h.group(2)) * 60
    m = re.search(r"wall time: (\d+) min (\d+) s", line)
    return int(m.group(1)) * 60 + int(m.group(2))


def test_wall_time_at_the_given_speed(run, tmp_path):
    rows = [{"user_input": f"Question {i}?", "response": "The tower is in Paris. It was built in 1889.",
             "reference": "The Eiffel Tower stands in Paris. It opened in 1889.",
             "retrieved_contexts": ["Paris is the capital of France. " * 40] * 5} for i in range(200)]
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    prompt, completion, line = estimate(run, data, "--judge-speed", "60,8")
    want = prompt / 60 + completion / 8
    assert abs(seconds_of(line) - want) <= 60, (line, want)
    assert "1 request at a time" in line
    # A server serving four at once (and a concurrency that lets it) takes a quarter.
    _, _, line4 = estimate(run, data, "--judge-speed", "60,8", "--judge-parallel", "4")
    assert abs(seconds_of(line4) - want / 4) <= 60, (line4, want)
    # Without a speed the estimate says what it needs; a malformed speed is a usage error.
    _, _, bare = estimate(run, data)
    assert "--judge-speed" in bare
    p = run("eval", data, "--metrics", "ragas", "--dry-run", "--judge-url", "http://127.0.0.1:9/v1",
            "--judge-model", "local-model", "--judge-speed", "60")
    assert p.returncode == 2 and "PROMPT,GENERATION" in p.stderr
