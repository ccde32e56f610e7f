"""Images among the retrieved contexts, end to end through `ragmeter eval`: real Tesseract
reading images drawn with known text (Pillow, DejaVu Sans), the offline judge's claim-level
multimodal metrics on that text, the input rules (media root, URLs, size, non-images) ending a
(sample, metric) skipped or failed with the reason while the run goes on, and the vision
protocol against the FAKE judge server (tests/fakes/fake_llm_server.cc, not a model)."""

import base64
import io
import json
import random
import urllib.request

import pytest

from cli_shared import JUDGE_REPLY, REPO, fake_script

PIL = pytest.importorskip("PIL")
from PIL import Image, ImageDraw, ImageFont  # noqa: E402

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def text_png(lines):
    """A white PNG with `lines` in black, 28 px DejaVu Sans, as a scanned page would hold them."""
    font = ImageFont.truetype(FONT, 28)
    image = Image.new("RGB", (900, 60 + 48 * len(lines)), "white")
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((30, 30 + 48 * i), line, fill="black", font=font)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def noise_png(side):
    rng = random.Random(7)
    image = Image.frombytes("RGB", (side, side), bytes(rng.randrange(256) for _ in range(side * side * 3)))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


TOWER = ["The Eiffel Tower is 330 metres tall.", "It was completed in 1889."]


@pytest.fixture
def media(tmp_path):
    root = tmp_path / "media"
    root.mkdir()
    (root / "tower.png").write_bytes(text_png(TOWER))
    png = (root / "tower.png").read_bytes()
    # A PNG whose header reads but whose pixels do not: the signature and IHDR, then junk.
    (root / "broken.png").write_bytes(png[:33] + b"\x00\x00\x00\x10IDATjunkjunkjunkjunk" + png[-12:])
    (root / "noise.png").write_bytes(noise_png(400))
    (tmp_path / "outside.png").write_bytes(png)
    return root


def score(run, tmp_path, rows, *flags):
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "out.jsonl"
    summary = tmp_path / "summary.json"
    result = run("eval", data, "--out", out, "--summary", summary, "--ocr-cache", tmp_path / "ocr.sqlite",
                 *flags)
    return result, [json.loads(line) for line in out.read_text().splitlines()], summary


METRICS = "faithfulness,multimodal_claim_faithfulness,multimodal_faithfulness"


def test_ocr_supports_a_claim_the_image_states_and_not_one_it_contradicts(run, tmp_path, media):
    image = {"type": "image", "path": "tower.png"}
    rows = [
        {"user_input": "How tall is the Eiffel Tower?", "response": "The Eiffel Tower is 330 metres tall.",
         "retrieved_contexts": [image]},
        {"user_input": "How tall is the Eiffel Tower?", "response": "The Eiffel Tower is 500 metres tall.",
         "retrieved_contexts": [image]},
        {"user_input": "Who built it and when?",
         "response": "Gustave Eiffel's company built the tower. It was completed in 1889.",
         "retrieved_contexts": ["Gustave Eiffel's company built the tower.", image]},
    ]
    result, out, _ = score(run, tmp_path, rows, "--metrics", METRICS, "--media-root", media)
    assert result.returncode == 0, result.stderr
    supported, contradicted, mixed = out
    assert supported["scores"]["multimodal_claim_faithfulness"] == 1.0
    assert contradicted["scores"]["multimodal_claim_faithfulness"] == 0.0
    assert mixed["scores"]["multimodal_claim_faithfulness"] == 1.0
    # The text metric does not read images: only the text context's claim is supported.
    assert mixed["scores"]["faithfulness"] == 0.5
    assert supported["status"]["faithfulness"] == "skipped"
    assert "all images" in supported["reasons"]["faithfulness"]
    # The evidence: which claim the image supported, and the text Tesseract read in it.
    images = supported["evidence"]["multimodal_claim_faithfulness"]["images"]
    assert len(images) == 1 and images[0]["supports"] == [0] and images[0]["rank"] == 0
    assert images[0]["thumbnail"].startswith("data:image/jpeg;base64,")
    ocr_text = " ".join(p["text"] for p in images[0]["ocr"]["passages"])
    assert "330 metres" in ocr_text and "1889" in ocr_text
    mixed_images = mixed["evidence"]["multimodal_claim_faithfulness"]["images"]
    assert mixed_images[0]["rank"] == 1 and mixed_images[0]["supports"] == [1]
    # ragas 0.4's one-call metric needs a vision model: skipped with the reason offline.
    assert supported["status"]["multimodal_faithfulness"] == "skipped"
    assert "vision model" in supported["reasons"]["multimodal_faithfulness"]


def test_without_images_the_multimodal_metric_equals_the_text_one(run, tmp_path, media):
    rows = [{"user_input": "Where is the tower?",
             "response": "The tower is in Paris. It opened in 1889. It is painted red.",
             "retrieved_contexts": ["The tower stands in Paris.", "The tower opened to the public in 1889."]}]
    result, out, _ = score(run, tmp_path, rows, "--metrics",
                           "faithfulness,multimodal_claim_faithfulness,context_utilization,"
                           "multimodal_context_utilization")
    assert result.returncode == 0, result.stderr
    scores = out[0]["scores"]
    assert 0 < scores["faithfulness"] < 1
    assert scores["multimodal_claim_faithfulness"] == scores["faithfulness"]
    assert scores["multimodal_context_utilization"] == scores["context_utilization"]


def test_data_uri_image_is_read_without_a_media_root(run, tmp_path, media):
    uri = "data:image/png;base64," + base64.b64encode((media / "tower.png").read_bytes()).decode()
    rows = [{"response": "The Eiffel Tower is 330 metres tall.", "retrieved_contexts": [uri]}]
    result, out, _ = score(run, tmp_path, rows, "--metrics", "multimodal_claim_faithfulness")
    assert result.returncode == 0, result.stderr
    assert out[0]["scores"]["multimodal_claim_faithfulness"] == 1.0


def test_bad_images_end_their_metric_with_the_reason_and_the_run_goes_on(run, tmp_path, media):
    claim = "The Eiffel Tower is 330 metres tall."
    rows = [
        {"response": claim, "retrieved_contexts": ["https://example.com/tower.png"]},  # URL: not allowed
        {"response": claim, "retrieved_contexts": [{"type": "image", "path": "broken.png"}]},
        {"response": claim, "retrieved_contexts": [{"type": "image", "path": "noise.png"}]},  # too large
        {"response": claim, "retrieved_contexts": [{"type": "image", "path": "../outside.png"}]},
        {"response": claim, "retrieved_contexts": [{"type": "image", "path": "tower.png"}]},
    ]
    result, out, summary = score(run, tmp_path, rows, "--metrics", "multimodal_claim_faithfulness",
                                 "--media-root", media, "--max-image-bytes", "300000")
    assert result.returncode == 3, result.stderr  # some (sample, metric) failed; the run completed
    status = [row["status"]["multimodal_claim_faithfulness"] for row in out]
    reasons = [row.get("reasons", {}).get("multimodal_claim_faithfulness", "") for row in out]
    assert status == ["skipped", "failed", "failed", "failed", "ok"]
    assert "--allow-media-urls" in reasons[0]
    assert "cannot be decoded" in reasons[1]
    assert "larger than 300000 bytes" in reasons[2]
    assert "outside --media-root" in reasons[3]
    assert out[4]["scores"]["multimodal_claim_faithfulness"] == 1.0
    counts = json.loads(summary.read_text())["metrics"]["multimodal_claim_faithfulness"]
    assert (counts["n"], counts["skipped"], counts["failed"]) == (1, 1, 3)


def test_no_media_root_means_files_are_skipped_with_the_flag_named(run, tmp_path, media):
    rows = [{"response": "x", "retrieved_contexts": [str(media / "tower.png")]}]
    result, out, _ = score(run, tmp_path, rows, "--metrics", "multimodal_claim_faithfulness")
    assert result.returncode == 0, result.stderr
    assert out[0]["status"]["multimodal_claim_faithfulness"] == "skipped"
    assert "--media-root" in out[0]["reasons"]["multimodal_claim_faithfulness"]


def test_vision_judge_gets_image_url_parts_and_counts_image_tokens(run, tmp_path, media,
                                                                   start_fake_llm_server):
    base = start_fake_llm_server(json.dumps({"reason": "The image states the height.", "verdict": 1}))
    fake_script(base, {"default": {"content": json.dumps({"reason": "The image states the height.",
                                                          "verdict": 1}),
                                   "prompt_tokens": 120, "completion_tokens": 9}})
    rows = [{"user_input": "How tall is it?", "response": "The Eiffel Tower is 330 metres tall.",
             "retrieved_contexts": ["Paris has a tower.", {"type": "image", "path": "tower.png"}]},
            {"user_input": "How tall is it?", "response": "It is tall.",
             "retrieved_contexts": [{"type": "image", "path": "tower.png"},
                                    {"type": "image", "path": "tower.png"}]}]
    result, out, summary = score(run, tmp_path, rows, "--metrics", "multimodal_faithfulness",
                                 "--media-root", media, "--judge-url", base + "/v1",
                                 "--judge-model", "fake-vision", "--judge-image-detail", "low",
                                 "--judge-max-images", "1", "--cache-mode", "off")
    assert out[0]["status"]["multimodal_faithfulness"] == "ok", out[0]
    assert out[0]["scores"]["multimodal_faithfulness"] == 1.0
    assert out[0]["evidence"]["multimodal_faithfulness"]["reason"] == "The image states the height."
    # Two images, the server takes one per request: failed with the reason, nothing dropped.
    assert out[1]["status"]["multimodal_faithfulness"] == "failed"
    assert "--judge-max-images" in out[1]["reasons"]["multimodal_faithfulness"]
    with urllib.request.urlopen(base + "/fake/requests", timeout=10) as reply:
        requests = json.load(reply)
    assert len(requests) == 1
    body = requests[0]["body"]
    parts = body["messages"][-1]["content"]
    images = [p for p in parts if p["type"] == "image_url"]
    assert len(images) == 1 and images[0]["image_url"]["detail"] == "low"
    url = images[0]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == (media / "tower.png").read_bytes()
    texts = " ".join(p["text"] for p in parts if p["type"] == "text")
    assert "[1] Paris has a tower." in texts and "[2] an image:" in texts
    usage = json.loads(summary.read_text())["usage"]
    assert usage["images"] == 1 and usage["image_tokens_estimated"] == 85  # OpenAI's low detail
    assert usage["prompt_tokens"] == 120  # the server's count, images included


def fake_requests(base):
    with urllib.request.urlopen(base + "/fake/requests", timeout=10) as reply:
        return json.load(reply)


def user_parts(request):
    """The user message's content parts of a request to the FAKE server."""
    return request["body"]["messages"][-1]["content"]


def part_texts(parts):
    return "".join(p["text"] for p in parts if p["type"] == "text")


def test_vision_relevance_shows_the_question_and_scores_a_no_as_zero(run, tmp_path, media,
                                                                     start_fake_llm_server):
    no = json.dumps({"reason": "The image gives a height, not a colour.", "verdict": 0})
    base = start_fake_llm_server(no)
    fake_script(base, {"default": {"content": no}})
    rows = [{"user_input": "What colour is the Eiffel Tower?", "response": "It is 330 metres tall.",
             "retrieved_contexts": [{"type": "image", "path": "tower.png"}, "The tower is in Paris."]}]
    result, out, _ = score(run, tmp_path, rows, "--metrics", "multimodal_relevance",
                           "--media-root", media, "--judge-url", base + "/v1",
                           "--judge-model", "fake-vision", "--cache-mode", "off")
    assert result.returncode == 0, result.stderr
    assert out[0]["scores"]["multimodal_relevance"] == 0.0
    assert out[0]["evidence"]["multimodal_relevance"]["reason"] == "The image gives a height, not a colour."
    requests = fake_requests(base)
    assert len(requests) == 1
    parts = user_parts(requests[0])
    texts = part_texts(parts)
    assert "QUESTION:\nWhat colour is the Eiffel Tower?" in texts
    assert "RESPONSE:\nIt is 330 metres tall." in texts
    # The image first (rank 1), then the text (rank 2), as the row lists them.
    assert texts.index("[1] an image:") < texts.index("[2] The tower is in Paris.")
    images = [p for p in parts if p["type"] == "image_url"]
    assert len(images) == 1 and images[0]["image_url"]["detail"] == "auto"  # the default
    assert "LANGUAGE:" not in texts  # an English sample's request is unchanged


def test_vision_url_not_allowed_skips_the_one_call_metric_without_a_request(run, tmp_path, media,
                                                                            start_fake_llm_server):
    base = start_fake_llm_server(json.dumps({"reason": "r", "verdict": 1}))
    rows = [{"user_input": "How tall?", "response": "330 metres.",
             "retrieved_contexts": ["https://example.com/tower.png"]},
            {"user_input": "How tall?", "response": "The Eiffel Tower is 330 metres tall.",
             "retrieved_contexts": [{"type": "image", "path": "tower.png"}]}]
    result, out, _ = score(run, tmp_path, rows, "--metrics", "multimodal_faithfulness",
                           "--media-root", media, "--judge-url", base + "/v1",
                           "--judge-model", "fake-vision", "--cache-mode", "off")
    assert result.returncode == 0, result.stderr
    assert out[0]["status"]["multimodal_faithfulness"] == "skipped"
    assert "--allow-media-urls" in out[0]["reasons"]["multimodal_faithfulness"]
    assert out[1]["scores"]["multimodal_faithfulness"] == 1.0
    assert len(fake_requests(base)) == 1  # only the second row's


def test_vision_reason_in_the_samples_language_or_a_warning(run, tmp_path, media, start_fake_llm_server):
    latin = json.dumps({"reason": "The image states the height.", "verdict": 1})
    base = start_fake_llm_server(latin)
    fake_script(base, {"default": {"content": latin}})
    image = {"type": "image", "path": "tower.png"}
    rows = [{"user_input": "埃菲尔铁塔有多高？", "response": "埃菲尔铁塔高330米。", "retrieved_contexts": [image]},
            {"user_input": "How tall is it?", "response": "The Eiffel Tower is 330 metres tall.",
             "retrieved_contexts": [image]}]
    result, out, _ = score(run, tmp_path, rows, "--metrics", "multimodal_faithfulness",
                           "--media-root", media, "--judge-url", base + "/v1",
                           "--judge-model", "fake-vision", "--cache-mode", "off")
    assert result.returncode == 0, result.stderr
    chinese, english = out
    # The verdict stands; the reason in Latin script is named as a warning.
    assert chinese["scores"]["multimodal_faithfulness"] == 1.0
    assert chinese["evidence"]["multimodal_faithfulness"]["warnings"] == [
        "the judge wrote the reason in Latin script, not in Chinese, also when asked again in so "
        "many words; the verdict is kept"]
    assert "warnings" not in english["evidence"]["multimodal_faithfulness"]
    texts = [part_texts(user_parts(r)) for r in fake_requests(base)]
    chinese_texts = [t for t in texts if "埃菲尔铁塔高330米" in t]
    english_texts = [t for t in texts if "The Eiffel Tower is 330 metres tall." in t]
    assert len(chinese_texts) == 2 and len(english_texts) == 1
    assert chinese_texts[0].endswith(
        "LANGUAGE: the texts are in Chinese (中文). Write the reason in Chinese (中文), as the "
        "texts are written. Keep the keys and the fixed values of the reply exactly as the task "
        "shows them.\n")
    assert "not in Latin script" in chinese_texts[1]
    assert "LANGUAGE:" not in english_texts[0]


def test_vision_claim_level_reads_each_claim_against_the_image(run, tmp_path, media, start_fake_llm_server):
    def reply(verdict):  # JUDGE_REPLY: the claims and text verdicts every judged CLI test uses
        return json.dumps({**json.loads(JUDGE_REPLY),
                           "claim 01": {"reason": "The image shows it.", "verdict": verdict}})

    base = start_fake_llm_server(reply("Entailment"))
    rows = [{"response": "The tower is in Paris.", "retrieved_contexts": [{"type": "image", "path": "tower.png"}]}]
    scores = {}
    for verdict in ("Entailment", "Contradiction"):
        fake_script(base, {"default": {"content": reply(verdict)}})
        result, out, _ = score(run, tmp_path, rows, "--metrics", "multimodal_claim_faithfulness",
                               "--media-root", media, "--judge-url", base + "/v1",
                               "--judge-model", "fake-vision", "--cache-mode", "off")
        assert result.returncode == 0, result.stderr
        scores[verdict] = out[0]["scores"]["multimodal_claim_faithfulness"]
        evidence = out[0]["evidence"]["multimodal_claim_faithfulness"]
        assert evidence["images"][0]["supports"] == ([0] if verdict == "Entailment" else [])
        assert "ocr" not in evidence["images"][0]  # the vision judge read the image itself
        image_calls = [r for r in fake_requests(base)
                       if any(p.get("type") == "image_url" for p in user_parts(r)
                              if isinstance(user_parts(r), list))]
        assert len(image_calls) == 1
        assert "claim 01: The tower is in Paris." in part_texts(user_parts(image_calls[0]))
    assert scores == {"Entailment": 1.0, "Contradiction": 0.0}


GEN_REPLY = json.dumps({
    "pairs": [{"passages": ["P1"], "question": "When was the lighthouse at Cape Wrath built?",
               "reference": "In 1828."}],
    "answerable": True, "grounded": True, "standalone": True, "why_not": "",
    "answer": "unknown",
})


def test_gen_reads_a_scanned_pdf_page_by_ocr(run, tmp_path, start_fake_llm_server):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "scanned.pdf").write_bytes((REPO / "tests/data/images/scanned.pdf").read_bytes())
    base = start_fake_llm_server(GEN_REPLY)
    out = tmp_path / "testset.jsonl"
    p = run("gen", docs, "--out", out, "--size", "1", "--ocr-cache", tmp_path / "ocr.sqlite",
            "--judge-url", base + "/v1", "--judge-model", "fake", "--cache-mode", "off",
            "--concurrency", "1")
    assert p.returncode == 0, p.stderr
    assert "skipped" not in p.stderr  # the page without a text layer was read, not skipped
    # The generation request carries the text Tesseract read in the drawn page.
    prompts = " ".join(json.dumps(r["body"]) for r in fake_requests(base))
    assert "The lighthouse at Cape Wrath was built in 1828." in prompts
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 1
    assert "Cape Wrath" in " ".join(rows[0]["reference_contexts"])
    assert not (tmp_path / "ocr.sqlite").exists()  # --cache-mode off: the OCR cache too
