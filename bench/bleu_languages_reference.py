"""sacreBLEU 2.6's own cost per character for the pairs of bench/bleu_languages_bench.cc, to
compare with ragmeter's (same pairs, one core, sentence BLEU with effective order).

Run from the repository root:
  ~/.cache/ragmeter/venv/bin/python bench/bleu_languages_reference.py
Each tokenizer gets a fresh BLEU object per pass, and its lru_cache is cleared, so repeated
segments are tokenized every time, as ragmeter does.
"""
import json
import time

from sacrebleu.metrics import BLEU

KOREAN = [  # bench/bleu_languages_bench.cc's korean()
    ("서울은 대한민국의 수도이며 가장 큰 도시이다.", "대한민국의 수도는 서울이고, 서울은 가장 큰 도시입니다."),
    ("한강은 서울을 동쪽에서 서쪽으로 가로질러 흐른다.", "서울의 한가운데를 한강이 동서로 흐르고 있다."),
    ("세종대왕은 1443년에 훈민정음을 만들었다.", "훈민정음은 1443년 세종대왕이 창제한 문자이다."),
    ("이 회사의 2023년 매출은 12.5% 증가한 4조 2천억 원이었다.", "2023년에 회사 매출이 12.5퍼센트 늘어 4.2조 원을 기록했다."),
    ("광합성은 빛 에너지를 화학 에너지로 바꾸는 과정이다.", "식물은 광합성을 통해 햇빛의 에너지를 포도당에 저장한다."),
    ("제주도는 한국에서 가장 큰 섬으로 화산 활동으로 만들어졌다.", "화산섬인 제주도는 대한민국에서 제일 큰 섬이다."),
    ("파이썬은 주로 참조 횟수로 메모리를 관리한다.", "CPython은 참조 계수 방식으로 대부분의 객체를 해제한다."),
    ("그 조약은 1919년 6월 28일 베르사유 궁전에서 서명되었다.", "베르사유 조약은 1919년 6월 28일 거울의 방에서 체결되었다."),
]


def rows(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def corpora():
    halueval = rows("tests/data/halueval_qa_one_turn.jsonl")
    english = [(r["hallucinated_answer"] + ". " + r["question"], r["right_answer"] + ". " + r["question"])
               for r in halueval]
    nli = lambda p: [(r["sentence2"], r["sentence1"]) for r in rows(p)]  # noqa: E731
    return {"english": english, "chinese": nli("tests/data/bleu_languages/ocnli_dev_sample.jsonl"),
            "japanese": nli("tests/data/bleu_languages/jnli_valid_sample.jsonl"), "korean": KOREAN}


def ns_per_char(tokenize, pairs, min_seconds=1.0):
    chars = sum(len(h) + len(r) for h, r in pairs)
    passes, start = 0, time.process_time()
    while True:
        bleu = BLEU(tokenize=tokenize, effective_order=True)
        bleu.tokenizer.__call__.cache_clear() if hasattr(bleu.tokenizer.__call__, "cache_clear") else None
        for h, r in pairs:
            bleu.sentence_score(h, [r])
        passes += 1
        elapsed = time.process_time() - start
        if elapsed >= min_seconds:
            return elapsed / (passes * chars) * 1e9


def main():
    c = corpora()
    runs = [("13a", "english"), ("zh", "chinese"), ("intl", "chinese"), ("char", "chinese"),
            ("ja-mecab", "japanese"), ("ko-mecab", "korean")]
    for tokenize, text in runs:
        print(f"sacreBLEU {tokenize:9s} on {text:9s} {ns_per_char(tokenize, c[text]):10.1f} ns per character")


if __name__ == "__main__":
    main()
