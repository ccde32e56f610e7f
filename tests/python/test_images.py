"""Images as contexts from Python: a pathlib.Path under media_root, bytes and a PIL image
each read by Tesseract, and the same scores as the CLI gets for the same image as a file."""

import io
import pathlib

import pytest

import ragmeter

PIL = pytest.importorskip("PIL")
from PIL import Image, ImageDraw, ImageFont  # noqa: E402

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def tower_image():
    image = Image.new("RGB", (900, 110), "white")
    draw = ImageDraw.Draw(image)
    draw.text((30, 30), "The Eiffel Tower is 330 metres tall.", fill="black",
              font=ImageFont.truetype(FONT, 28))
    return image


def png_bytes(image):
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


@pytest.mark.parametrize("form", ["path", "bytes", "pil"])
def test_python_images_are_read_as_contexts(tmp_path, form):
    image = tower_image()
    (tmp_path / "tower.png").write_bytes(png_bytes(image))
    context = {"path": pathlib.Path("tower.png"), "bytes": png_bytes(image), "pil": image}[form]
    samples = [{"response": "The Eiffel Tower is 330 metres tall.", "retrieved_contexts": [context]},
               {"response": "The Eiffel Tower is 500 metres tall.", "retrieved_contexts": [context]}]
    result = ragmeter.evaluate(samples, metrics="multimodal_claim_faithfulness",
                               media_root=tmp_path, progress=False)
    rows = result.to_pandas()
    assert list(rows["multimodal_claim_faithfulness"]) == [1.0, 0.0]


def test_a_path_without_media_root_is_skipped_with_the_reason(tmp_path):
    (tmp_path / "tower.png").write_bytes(png_bytes(tower_image()))
    samples = [{"response": "x", "retrieved_contexts": [tmp_path / "tower.png"]}]
    result = ragmeter.evaluate(samples, metrics="multimodal_claim_faithfulness", progress=False)
    row = result.to_pandas().iloc[0]
    assert row["multimodal_claim_faithfulness_status"] == "skipped"
    assert "--media-root" in row["multimodal_claim_faithfulness_reason"]
