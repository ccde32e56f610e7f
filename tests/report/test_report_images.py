"""Image contexts on the report's sample page, in headless Chromium: the thumbnail is an <img>
with a data: URI (the only images the page's CSP allows), the OCR text is beside it, the image
context is marked with the claims it supports, and an image item whose data URI is not a
PNG, JPEG, GIF or WebP (an SVG, which can hold script) is never made an <img>."""

import base64
import io
import json

import pytest

PIL = pytest.importorskip("PIL")
from PIL import Image, ImageDraw, ImageFont  # noqa: E402


def tower_png():
    image = Image.new("RGB", (900, 110), "white")
    ImageDraw.Draw(image).text((30, 30), "The Eiffel Tower is 330 metres tall.", fill="black",
                               font=ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 28))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def test_sample_page_shows_the_image_its_text_and_the_claim_it_supports(ragmeter, browser, tmp_path):
    uri = "data:image/png;base64," + base64.b64encode(tower_png()).decode()
    svg = "data:image/svg+xml;base64," + base64.b64encode(b"<svg onload='window.__pwned=1'/>").decode()
    rows = [{"user_input": "How tall is it?", "response": "The Eiffel Tower is 330 metres tall.",
             "retrieved_contexts": ["Paris has a tower.", uri]},
            {"user_input": "q", "response": "r", "retrieved_contexts": [{"type": "image", "url": svg}]}]
    data = tmp_path / "rows.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    html = tmp_path / "report.html"
    ragmeter("eval", data, "-m", "faithfulness,multimodal_claim_faithfulness", "--out",
             tmp_path / "out.jsonl", "--report", html, "-q", "--ocr-cache", tmp_path / "ocr.sqlite")
    browser.open(html)
    browser.eval("location.hash = '#sample=0'")
    browser.wait_until("document.getElementById('sample-title')?.textContent.startsWith('Sample 1')")
    thumbs = browser.eval("[...document.querySelectorAll('img.thumb')].map(i => i.getAttribute('src').slice(0, 23))")
    assert thumbs == ["data:image/jpeg;base64,"]
    assert browser.eval("document.querySelector('img.thumb').naturalWidth") == 240  # loaded, scaled
    image_box = "document.querySelector('[data-context=\"1\"]')"
    assert "330 metres tall" in browser.eval(image_box + ".querySelector('.ocr').textContent")
    assert "supports claim" in browser.eval(image_box + ".textContent")
    assert "supports claim" not in browser.eval("document.querySelector('[data-context=\"0\"]').textContent")
    browser.eval("location.hash = '#sample=1'")
    browser.wait_until("document.getElementById('sample-title')?.textContent.startsWith('Sample 2')")
    assert browser.eval("document.querySelectorAll('img').length") == 0
    assert browser.eval("typeof window.__pwned") == "undefined"
    assert browser.errors() == []
