// The offline judge: fills a claim ledger with no network and no model.
//
// Claims come from sentence segmentation (ICU's sentence BreakIterator) and clause
// splitting; each verdict comes from lexical entailment: how many of the claim's
// content words (lowercased, stopwords removed, Snowball English stems) the
// best-matching window of the premise holds, plus checks that every number and
// capitalised name of the claim occurs in the premise and that negation agrees. A short
// answer's claim carries its question, whose words are context, not checked. It is a
// cheap, deterministic baseline, not a reader: paraphrases with other words are Neutral,
// and a premise that repeats the claim's words in another relation can Entail. Its
// agreement with human labels is measured by bench/offline_judge_quality.py and published
// in docs/judges.md, never implied by this header.
//
// Thread-safety: every function here is thread-safe. Stemming and sentence breaking use
// per-thread instances (thread_local), so concurrent calls share no mutable state.
// OfflinePremise and OfflineClaim are immutable after construction: concurrent reads
// are safe. Results are deterministic: the same inputs give the same ledger on every
// thread and in any call order.
//
// Languages. Every function that reads text takes the text's language (an ISO 639-1
// code, language.h) and applies that language's rules (docs/design.md, "The offline
// judge's rules per language"): English (also "und", undetermined, and "") as offline-v3
// did; the Snowball languages (Danish, Dutch, Finnish, French, German, Hungarian,
// Indonesian, Italian, Norwegian, Portuguese, Russian, Spanish, Swedish) with ICU's words,
// NFKC case folding, their Snowball stemmer and stopword list, their negation words, and
// capitalised names except in German, whose nouns are capitalised; Chinese and Japanese
// with ICU's dictionary words (no stems), NFKC (full-width digits and letters), their
// numerals read as numbers, the CJK clause marks, licensed stopword lists, negation words
// and characters, and for names the Latin-script words and the quoted text 「」『』“”《》.
// A language without rules (Korean, Thai, Polish, ...) is not covered: fill_ledger_offline
// refuses it and the evaluation reports the offline judge's metrics `skipped` with
// offline_judge_gap's reason. The other functions read such text with the English rules.
//
// Text is expected as UTF-8. In English, lowercasing is ASCII-only: non-ASCII letters are
// compared as written, so "Élan" and "élan" are different words; the other languages
// compare words in NFKC case-folded form.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ragmeter/claim_ledger.h"
#include "ragmeter/sample.h"
#include "ragmeter/status.h"

namespace ragmeter {

// Written as the ledger's provenance.prompt_version; changes whenever the segmentation
// or the verdict rules change (it keys the judge cache).
// offline-v4 added the languages other than English; offline-v5 supports an English claim
// the premise has word for word (as v4 did a verbatim claim in the other languages), where
// v3's English rules had read a negation near its words (docs/design.md); offline-v6 ends no
// sentence at an initial or a title ("A. J. McClung", "Dr."), which v5 made claims of.
inline constexpr std::string_view kOfflineJudgeVersion = "offline-v6";

// ---- Languages -----------------------------------------------------------------------

// The codes of the languages the offline judge has rules for, sorted ("da", "de", "en",
// ...). Thread-safe.
std::vector<std::string> offline_judge_languages();

// Empty when the offline judge covers `language` (one of offline_judge_languages(), "und"
// or ""); else the reason its metrics are skipped: "the offline judge does not cover
// Korean" (language_name's English name, or the code when it has none).
std::string offline_judge_gap(std::string_view language);

// The language the offline judge reads `sample` in: sample.language when set, else the
// one detect_sample_languages finds (language.h). Never fails.
std::string offline_sample_language(const Sample& sample);

// ---- Tokens ------------------------------------------------------------------------

enum class NumberKind {
  kNone,     // not a number
  kYear,     // four digits, 1000..2099, no separator
  kInteger,  // digits, with optional thousands separators ("1,000")
  kDecimal,  // digits with a decimal point ("3.5")
  kOrdinal,  // digits with st/nd/rd/th ("19th")
};

// One word or number of a text. In English, a word is a run of letters and digits (any non-ASCII
// byte counts as a letter, except Unicode dashes, quotes, bullets, ellipses and
// no-break spaces); an apostrophe between letters stays inside ("don't", "Arthur's");
// "," and "." between digits stay inside a number ("1,000", "3.5"); hyphens split.
// Markers are not tokens: citation brackets holding only numbers, commas, hyphens, en
// dashes and spaces ("[0]", "[1, 2]", "[3-5]"), and a list item's number of one or two
// digits at the start of a line followed by "." or ")", a space and more text ("1. ").
// In the other languages a word is one of ICU's words (words.h), keyed in NFKC case-folded
// form; an elided article is its own stopword token ("l'homme": "l", "homme"); numbers
// follow the language's decimal mark ("3,5" in German is 3.5, "1.000" a thousand);
// Chinese and Japanese numerals are numbers ("二十三" -> "23"; "三个" is 3 and "个"),
// except the numeral for one alone, which is mostly an article; a word that starts with a
// negating character ("不去") is the negation and the rest ("去"), unless the word is one
// that does not negate ("不同", "非常").
struct OfflineToken {
  std::size_t begin = 0;  // byte offsets into the tokenised text
  std::size_t end = 0;
  // Words: lowercased, possessive "'s" removed, stemmed (other languages: NFKC case
  // folded, stemmed where the language has a Snowball stemmer). Numbers: the digits
  // without separators or ordinal suffix ("1,000" -> "1000", "19th" -> "19").
  std::string key;
  NumberKind number = NumberKind::kNone;
  bool stopword = false;     // a function word (negations included): not content
  bool negation = false;     // not, no, never, nor, none, cannot, ...n't; a capitalised
                             // one inside a sentence is part of a name ("Tell No One"):
                             // not a negation (still a stopword)
  bool capitalized = false;  // first character is a capital letter (English: ASCII only)
};

// The tokens of `text` in order, under `language`'s rules. Never fails; empty text gives
// no tokens.
std::vector<OfflineToken> offline_tokenize(std::string_view text, std::string_view language = "en");

// `text` with ASCII letters lowercased and U+2019 (right single quotation mark) replaced
// by an ASCII apostrophe; other bytes are kept. Never fails.
std::string offline_fold_case(std::string_view text);

// ---- Claims ------------------------------------------------------------------------

// The sentences of `text` by ICU's sentence BreakIterator (root locale rules), as views
// into `text`, trimmed of surrounding white space; empty pieces are dropped. No sentence
// ends at the period of an initial ("A. J. McClung", a Latin or Cyrillic capital letter)
// or of a title or abbreviation ("Dr.", "St.", "U.S.", "e.g."), the word taken
// whole ("the UN." ends one). Falls back to the whole trimmed text when ICU cannot create
// the iterator.
std::vector<std::string_view> split_sentences(std::string_view text);

// The claims of `text`, each a substring of it (trimmed), in order:
//  - every sentence (split_sentences) is a claim, except that an English sentence of more than
//    10 words is split into clauses at "; ", ", and ", ", but ", ", while ",
//    ", whereas ", ", although ", ", though " (the connector is dropped) and before
//    "which" / "who" after ", ", but only when both sides have at least 3 words and a
//    verb-like word (an auxiliary such as is/was/has, a common irregular verb form, a
//    word ending in "ed", or a word ending in "s" right before a determiner: "crosses
//    the"), so "Tom, Dick, and Harry met at ..." stays whole. In the Snowball languages a
//    sentence of more than 10 words is split at "; ", in Chinese and Japanese at the
//    clause marks ，、；and the ASCII "," and ";", when both sides have at least 3 words;
//  - pieces with no letter or digit are dropped.
// Short answers: when `question` is not empty and `text` is a single sentence of at
// most 5 words with no verb-like word (e.g. "Arthur's Magazine"), the only claim is
// `question` (trimmed) + " " + `text` (trimmed), so the claim carries the question's
// context ("Which magazine was started first ...? Arthur's Magazine"); in the other
// languages a verb-like word is one of the language's copulas and auxiliaries ("ist",
// "est", "是", "です"), so "北京" answering "中国的首都是哪里？" carries it. This is the one
// case where a claim is not a substring of `text`. With an empty question a short
// answer is an ordinary one-sentence claim.
// Empty or punctuation-only text gives no claims. Never fails.
std::vector<std::string> extract_claims(std::string_view text, std::string_view question = {},
                                        std::string_view language = "en");

// The text a claim is checked against when `text` (a response or a reference) is the
// premise: a short answer under the rule above carries the question, as its claim does
// (question + " " + text), so "What ...? Arthur's Magazine" can be judged against the
// reference "Arthur's Magazine"; any other text is returned as is. Never fails.
std::string answer_premise(std::string_view text, std::string_view question,
                           std::string_view language = "en");

// The byte length of the question part of a claim made by the short-answer rule: when
// `claim` has two or more sentences (split_sentences) and the last one has at most 5
// words and no verb-like word, the offset where that last sentence starts ("Which
// magazine was started first? Arthur's Magazine" -> the offset of "Arthur's"); else 0.
// Never fails.
std::size_t question_context_length(std::string_view claim, std::string_view language = "en");

// True when `response` declines to answer: its first sentence contains a phrase such as
// "I don't know", "not sure", "the context does not say / mention / provide", "cannot
// be determined", "unable to answer", "no information", "not enough information" (English
// phrases only), or the
// whole response is "unknown", "n/a", "none" or "no answer" (case-insensitive, straight
// or curly apostrophes). An answer that commits first and hedges later ("Paris. I am
// not sure about the date") is not noncommittal. Empty text is noncommittal.
bool is_noncommittal(std::string_view response);

// ---- Verdicts ----------------------------------------------------------------------

// A premise analysed once (tokens, sentences, an index from key to sentences), to be
// judged against many claims in the same language.
class OfflinePremise {
 public:
  explicit OfflinePremise(std::string_view text, std::string_view language = "en");

  const std::string& text() const { return text_; }
  const std::string& language() const { return language_; }
  const std::vector<OfflineToken>& tokens() const { return tokens_; }
  std::size_t sentence_count() const { return sentence_starts_.size(); }
  // The index of the first token of each sentence (ascending).
  const std::vector<std::size_t>& sentence_starts() const { return sentence_starts_; }
  // Sentences (ascending, no repeats) where a token with `key` occurs; empty if none.
  std::span<const std::uint32_t> sentences_with(const std::string& key) const;
  // Outside English: the text NFKC case-folded, where a claim's quoted text and a claim
  // stated verbatim are looked for; empty in English.
  const std::string& folded_text() const { return folded_; }

 private:
  std::string text_;
  std::string language_;
  std::string folded_;
  std::vector<OfflineToken> tokens_;
  std::vector<std::size_t> sentence_starts_;
  std::unordered_map<std::string, std::vector<std::uint32_t>> key_sentences_;
};

// A claim analysed once, to be judged against many premises. A question-answer claim
// (question_context_length() > 0) whose answer has a content word is judged on its answer:
// content(), names() and negated() come from the answer's tokens, and the question's
// content words are context() (a premise need not contain them: the question is given,
// not claimed). When the answer has no content word ("...? no") the whole text is the
// claim, as for any other claim.
class OfflineClaim {
 public:
  explicit OfflineClaim(std::string_view text, std::string_view language = "en");

  const std::string& text() const { return text_; }
  const std::string& language() const { return language_; }
  const std::vector<OfflineToken>& tokens() const { return tokens_; }
  // Indices into tokens() of the content tokens (not stopwords), one per distinct key,
  // in order of first occurrence: the units coverage counts. Outside English, a claim of
  // function words only ("啊,咱们那时候") counts all of its words instead.
  const std::vector<std::size_t>& content() const { return content_; }
  // Indices into tokens() of the names: capitalised content words other than the first
  // word, plus a capitalised first word followed by another capitalised word or written
  // in capitals ("NASA"). German: only words written in capitals (every noun is
  // capitalised: "Meter" is no name). Chinese and Japanese: the words with Latin letters.
  const std::vector<std::size_t>& names() const { return names_; }
  // Chinese and Japanese: the text between 「」, 『』, “” and 《》 (NFKC case-folded),
  // which a premise must hold as written; empty in the other languages.
  const std::vector<std::string>& quotes() const { return quotes_; }
  // Indices into tokens() of the question's content tokens of a question-answer claim
  // (one per distinct key not among content()); empty for other claims.
  const std::vector<std::size_t>& context() const { return context_; }
  bool negated() const { return negated_; }

 private:
  std::string text_;
  std::string language_;
  std::vector<OfflineToken> tokens_;
  std::vector<std::size_t> content_;
  std::vector<std::size_t> names_;
  std::vector<std::string> quotes_;
  std::vector<std::size_t> context_;
  bool negated_ = false;
};

// The verdict of `claim` given `premise`, checked in this order:
//  0. outside English, a claim with a content word that the premise states verbatim
//     (NFKC case-folded, from its first word to the end of its last): Entailment;
//  1. no content words in the claim: Neutral;
//  2. a number of the claim absent from the premise: Contradiction when the premise has
//     a different number of the same kind (NumberKind) within 6 tokens of a content word
//     that is within 4 tokens of the claim's number, and at least half the claim's
//     other content words occur in the premise; else Neutral. The reason names the
//     numbers;
//  3. a name or a quoted text of the claim absent from the premise: Neutral, naming it;
//  4. coverage: of the claim's n content keys, the best window (up to 3 consecutive
//     sentences, or the whole premise when it has at most 120 tokens; among windows
//     holding as many keys, the one with the most context() keys, then the earliest)
//     holds fewer than n - floor(0.4 * (n - 2)) (all of up to 4 keys, all but one of 5
//     or 6, all but two of 7 to 9, about 60% of a long claim; in Chinese and Japanese
//     every key): Neutral, naming the words not found;
//  5. negation in the claim but not in the premise window near the matched words (or
//     the reverse): Contradiction. Outside English, clause by clause (clauses cut at
//     ,;:，、；：。): each clause of the claim with content words against the premise
//     window's clause holding most of them, negated in one and not the other;
//  6. otherwise Entailment.
// confidence is in [0.5, 1]: for Entailment and coverage-based Neutral it grows with the
// distance of the coverage from the threshold (1 when every key is required and found);
// rule-based verdicts use fixed values.
// reason is empty for Entailment. Never fails.
VerdictCell judge_claim(const OfflineClaim& claim, const OfflinePremise& premise);
// Convenience: analyses both texts in `language`, then judges.
VerdictCell judge_claim(std::string_view claim, std::string_view premise,
                        std::string_view language = "en");

// The part of `premise` that judge_claim's coverage rule (rule 4) reads for `claim`: the
// window of up to 3 consecutive sentences holding most of the claim's content words, from
// the start of its first sentence to the end of its last (the whole premise when it is
// short, at most 120 tokens or 3 sentences), white space at the end left out. The LLM judge asks a claim again against it
// when a long passage's verdict shows the model did not read it (docs/design.md, "A claim
// asked against its sentences"). Never fails.
std::string claim_window(const OfflineClaim& claim, const OfflinePremise& premise);

// Rules 2 and 3 of judge_claim alone: the cell a number or a name of `claim` absent
// from `premise` decides (Neutral or Contradiction, the reason naming them), or nullopt
// when the premise holds every number and name of the claim (a question-answer claim:
// of its answer). The LLM judge vets the model's Entailment verdicts with it. Never fails.
std::optional<VerdictCell> missing_number_or_name(const OfflineClaim& claim,
                                                  const OfflinePremise& premise);

// ---- The ledger --------------------------------------------------------------------

// What the offline judge reads. Views must outlive the call.
struct OfflineJudgeInput {
  std::string_view question;               // may be empty; context for short answers only
  std::string_view response;               // may be empty: no response claims
  std::string_view reference;              // may be empty: no reference claims
  std::span<const std::string> chunks;     // retrieved contexts, in rank order
  std::span<const std::string> chunk_ids;  // empty, or one doc id per chunk
  std::string_view language = "en";        // every text's language (ISO 639-1, "und")
};

// Replaces *ledger with the claims of the response and of the reference
// (extract_claims with the question), the chunks, and all four tables filled (every
// cell judged): response and reference claims against each chunk, response claims
// against the reference text, reference claims against the response text (each text
// through answer_premise, so a short answer carries the question). Provenance
// is {"offline", "", kOfflineJudgeVersion}. InvalidArgument when `ledger` is null or
// chunk_ids is neither empty nor the size of chunks; FailedPrecondition with
// offline_judge_gap's reason when the judge does not cover the language (ledger
// untouched either way).
Status fill_ledger_offline(const OfflineJudgeInput& input, ClaimLedger* ledger);

// The same from a Sample: user_input, response, reference, retrieved_contexts and
// retrieved_context_ids (absent fields read as empty), in offline_sample_language.
// InvalidArgument and FailedPrecondition as above.
StatusOr<ClaimLedger> offline_claim_ledger(const Sample& sample);

}  // namespace ragmeter
