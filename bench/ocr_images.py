"""The offline path for images, measured (docs/images.md): sentences drawn into PNGs with
Pillow (DejaVu Sans and Liberation Serif, 18 to 32 px, black on white and dark grey on light
grey), read by `ragmeter eval` with Tesseract, and judged.

Reports, per run:
- how many images Tesseract read back exactly (the sentence equal to the OCR text, spaces
  normalised),
- multimodal_claim_faithfulness's mean on responses that state the sentence (should be 1) and
  on responses with the number in it changed (should be 0),
- the wall time of a run with an empty OCR cache and of the same run again (cache hits), and
  their ratio.

    python bench/ocr_images.py [--images 60] [--build build]
"""

import argparse
import json
import pathlib
import random
import subprocess
import tempfile
import time

from PIL import Image, ImageDraw, ImageFont

FONTS = ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
         "/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf"]
SUBJECTS = ["The bridge", "The museum", "The library", "The stadium", "The observatory",
            "The harbour", "The cathedral", "The railway station", "The dam", "The lighthouse"]
FACTS = ["was opened in {n}.", "is {n} metres long.", "has {n} visitors a year.",
         "was rebuilt in {n}.", "employs {n} people."]


def sentences(count, rng):
    out = []
    for i in range(count):
        n = rng.randrange(1200, 2024) if i % 2 == 0 else rng.randrange(10, 99000)
        out.append((f"{rng.choice(SUBJECTS)} {rng.choice(FACTS).format(n=n)}", n))
    return out


def draw(sentence, index):
    font = ImageFont.truetype(FONTS[index % 2], 18 + 2 * (index % 8))
    background, ink = ("white", "black") if index % 3 else ((230, 230, 230), (60, 60, 60))
    image = Image.new("RGB", (40 + font.getbbox(sentence)[2], 100), background)
    ImageDraw.Draw(image).text((20, 30), sentence, fill=ink, font=font)
    return image


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--images", type=int, default=60)
    parser.add_argument("--build", default="build")
    args = parser.parse_args()
    binary = pathlib.Path(args.build) / "ragmeter"
    rng = random.Random(37)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        (tmp / "media").mkdir()
        rows = []
        for i, (sentence, n) in enumerate(sentences(args.images, rng)):
            draw(sentence, i).save(tmp / "media" / f"{i}.png")
            image = {"type": "image", "path": f"{i}.png"}
            rows.append({"id": f"{i}-true", "response": sentence, "retrieved_contexts": [image]})
            wrong = sentence.replace(str(n), str(n + 7))
            rows.append({"id": f"{i}-changed", "response": wrong, "retrieved_contexts": [image]})
        (tmp / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        times = []
        for run in ("empty cache", "cached"):
            start = time.perf_counter()
            subprocess.run([str(binary), "eval", tmp / "rows.jsonl", "-m", "multimodal_claim_faithfulness",
                            "--media-root", tmp / "media", "--ocr-cache", tmp / "ocr.sqlite",
                            "--out", tmp / "out.jsonl", "-q", "--threads", "2"], check=True)
            times.append(time.perf_counter() - start)
        out = [json.loads(line) for line in (tmp / "out.jsonl").read_text().splitlines()]
        exact = 0
        scores = {"true": [], "changed": []}
        for row in out:
            kind = row["id"].split("-")[1]
            scores[kind].append(row["scores"]["multimodal_claim_faithfulness"])
            if kind == "true":
                images = row["evidence"]["multimodal_claim_faithfulness"]["images"]
                text = " ".join(p["text"] for p in images[0]["ocr"]["passages"])
                exact += " ".join(text.split()) == " ".join(row["response"].split())
        mean = lambda xs: sum(xs) / len(xs)  # noqa: E731
        print(f"images: {args.images}; read back exactly: {exact} ({exact / args.images:.1%})")
        print(f"multimodal_claim_faithfulness: stated {mean(scores['true']):.3f}, "
              f"number changed {mean(scores['changed']):.3f}")
        print(f"wall: empty OCR cache {times[0]:.2f} s, cached {times[1]:.2f} s, "
              f"ratio {times[0] / times[1]:.1f}x")


if __name__ == "__main__":
    main()
