"""`ragmeter run --target-cmd` against the FAKE command (tests/run/fake_rag_command.py):
answers over JSON lines from several processes, a crashing process restarted and its
question retried, its stderr kept for the summary, a hung process killed on timeout."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from run_testing import read_jsonl, write_questions

FAKE = Path(__file__).resolve().parent / "fake_rag_command.py"


def test_processes_answer_and_a_crash_is_restarted_and_retried(ragmeter_bin, tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    questions = [f"question {i}" for i in range(10)] + ["crash once here", "always crash"]
    q = write_questions(tmp_path / "q.jsonl", questions)
    out, summary = tmp_path / "a.jsonl", tmp_path / "s.json"
    proc = subprocess.run([str(ragmeter_bin), "run", str(q), "--target-cmd",
                           f"{sys.executable} {FAKE} {state}", "--out", str(out), "--summary", str(summary),
                           "--concurrency", "3", "--max-attempts", "2"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, proc.stderr
    rows = read_jsonl(out)
    assert [r["user_input"] for r in rows] == questions
    for r in rows[:11]:
        assert r["response"] == f"answer to {r['user_input']}"
        assert r["retrieved_contexts"] == [f"context for {r['user_input']}"]
    assert rows[11]["run_error"]["kind"] == "process_died"
    assert rows[11]["run_error"]["attempts"] == 2
    assert "exited with status 3" in rows[11]["run_error"]["message"]
    assert "crashing on purpose" in rows[11]["run_error"]["message"]

    requests = [json.loads(line) for line in (state / "requests.jsonl").read_text().splitlines()]
    asked = [r["question"] for r in requests]
    assert asked.count("crash once here") == 2 and asked.count("always crash") == 2
    assert all(asked.count(q) == 1 for q in questions[:10])
    assert requests[0]["row"]["reference"].startswith("reference")  # the whole row is sent
    assert len({r["pid"] for r in requests}) >= 3  # several processes, restarts included

    s = json.loads(summary.read_text())
    assert s["errors"] == {"process_died": 1}
    assert s["target"]["restarts"] == 3
    assert "crashing on purpose" in s["target"]["stderr_tail"]
    assert (tmp_path / "a.jsonl.stderr.log").read_text().count("started") >= 3


def test_a_hung_command_is_killed_on_timeout_and_started_again(ragmeter_bin, tmp_path):
    script = tmp_path / "hang.py"
    script.write_text(
        "import json, sys, time\n"
        "for line in sys.stdin:\n"
        "    q = json.loads(line)['question']\n"
        "    if q == 'hang':\n"
        "        time.sleep(60)\n"
        "    print(json.dumps({'response': 'ok ' + q}), flush=True)\n")
    q = write_questions(tmp_path / "q.jsonl", ["hang", "fine"])
    proc = subprocess.run([str(ragmeter_bin), "run", str(q), "--target-cmd", f"{sys.executable} {script}",
                           "--out", str(tmp_path / "a.jsonl"), "--concurrency", "1", "--timeout", "1",
                           "--max-attempts", "1"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 3
    rows = read_jsonl(tmp_path / "a.jsonl")
    assert rows[0]["run_error"]["kind"] == "timeout"
    assert rows[1]["response"] == "ok fine"


def test_the_documented_example_command_answers_and_is_scored(ragmeter_bin, tmp_path):
    example = Path(__file__).resolve().parents[2] / "examples" / "rag_command.py"
    q = tmp_path / "q.jsonl"
    q.write_text(json.dumps({"user_input": "What does colorsys convert?",
                             "reference": "Colors between RGB and YIQ, HLS and HSV."}) + "\n" +
                 json.dumps({"user_input": "Where is the moon?", "reference": "In the sky."}) + "\n")
    proc = subprocess.run([str(ragmeter_bin), "run", str(q), "--target-cmd", f"{sys.executable} {example}",
                           "--out", str(tmp_path / "a.jsonl"), "--eval", "token_f1",
                           "--eval-out", str(tmp_path / "s.jsonl")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    rows = read_jsonl(tmp_path / "a.jsonl")
    assert rows[0]["response"].startswith("The colorsys module converts colors")
    assert rows[0]["retrieved_context_ids"] == ["d1"]
    assert rows[1]["response"] == "I do not know." and rows[1]["retrieved_contexts"] == []
    scores = read_jsonl(tmp_path / "s.jsonl")
    # By hand (SQuAD normalisation drops "the" and punctuation): 8 shared tokens, 11 in the
    # answer, 8 in the reference: F1 = 2 * (8/11) * 1 / (8/11 + 1) = 16/19.
    assert abs(scores[0]["scores"]["token_f1"] - 16 / 19) < 1e-9
    assert scores[1]["scores"]["token_f1"] == 0.0


def test_image_contexts_of_a_reply_are_kept_and_scored_as_images(ragmeter_bin, tmp_path):
    """A target may return image items among its contexts (docs/images.md): the answers file
    keeps them as objects, and `--eval` reads the image (OCR offline)."""
    pytest.importorskip("PIL")
    from PIL import Image, ImageDraw, ImageFont
    media = tmp_path / "media"
    media.mkdir()
    image = Image.new("RGB", (900, 110), "white")
    ImageDraw.Draw(image).text((30, 30), "The Eiffel Tower is 330 metres tall.", fill="black",
                               font=ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 28))
    image.save(media / "tower.png")
    state = tmp_path / "state"
    state.mkdir()
    q = write_questions(tmp_path / "q.jsonl", ["image:tower.png|The Eiffel Tower is 330 metres tall."])
    proc = subprocess.run([str(ragmeter_bin), "run", str(q), "--target-cmd",
                           f"{sys.executable} {FAKE} {state}", "--out", str(tmp_path / "a.jsonl"),
                           "--eval", "faithfulness,multimodal_claim_faithfulness", "--media-root", str(media),
                           "--ocr-cache", str(tmp_path / "ocr.sqlite"),
                           "--eval-out", str(tmp_path / "s.jsonl")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    rows = read_jsonl(tmp_path / "a.jsonl")
    assert rows[0]["retrieved_contexts"] == ["a text context", {"type": "image", "path": "tower.png"}]
    scores = read_jsonl(tmp_path / "s.jsonl")[0]["scores"]
    assert scores["multimodal_claim_faithfulness"] == 1.0
    assert scores["faithfulness"] == 0.0  # the text context does not state it


def test_a_dying_process_is_named_by_its_own_stderr_not_another_processs(ragmeter_bin, tmp_path):
    # The processes share the stderr file. One keeps writing to its stderr while the other
    # dies: the message quotes the dead one's last line, not the file's last line.
    script = tmp_path / "noisy.py"
    script.write_text(
        "import json, sys, threading, time\n"
        "def noise():\n"
        "    while True:\n"
        "        print('noise from a live process', file=sys.stderr, flush=True)\n"
        "        time.sleep(0.001)\n"
        "for line in sys.stdin:\n"
        "    q = json.loads(line)['question']\n"
        "    if q == 'die':\n"
        "        time.sleep(0.3)\n"  # the other process is answering 'noisy' by now
        "        print('dying on purpose', file=sys.stderr, flush=True)\n"
        "        sys.exit(4)\n"
        "    if q == 'noisy':\n"
        "        threading.Thread(target=noise, daemon=True).start()\n"
        "        time.sleep(1.0)\n"
        "    print(json.dumps({'answer': 'ok', 'contexts': []}), flush=True)\n")
    q = write_questions(tmp_path / "q.jsonl", ["die", "noisy"])
    out = tmp_path / "a.jsonl"
    proc = subprocess.run([str(ragmeter_bin), "run", str(q), "--target-cmd", f"{sys.executable} {script}",
                           "--out", str(out), "--concurrency", "2", "--max-attempts", "1"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, proc.stderr
    rows = read_jsonl(out)
    message = rows[0]["run_error"]["message"]
    assert "exited with status 4" in message
    assert message.endswith("stderr ends: dying on purpose"), message
    assert rows[1]["response"] == "ok"
    # Every process's lines still reach the file.
    log = (tmp_path / "a.jsonl.stderr.log").read_text()
    assert "dying on purpose" in log and "noise from a live process" in log
