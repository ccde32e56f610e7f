// Adapters for the text metrics (response against reference) to the pure functions of
// bleu.h, chrf.h, rouge.h, string_similarity.h, text_overlap.h. The fields each needs are
// checked before it is called (the table's `needs`, missing_required_field).
#include "metrics/adapters.h"
#include "ragmeter/cmrc.h"
#include "ragmeter/language.h"
#include "ragmeter/string_similarity.h"
#include "ragmeter/text_overlap.h"

namespace ragmeter::adapters {
namespace {

// The token-overlap metrics' tokens for this sample, comparing `texts`: SQuAD's for an
// English (or undetermined) sample, ragmeter's words for another language, and also
// when one of the texts holds letters of a script written without spaces (a Chinese
// response in an English sample is not one token). Short fields' own detected languages
// do not decide: CLD2 misreads names (language.h).
OverlapTokens overlap_tokens(const Sample& s, std::initializer_list<std::string_view> texts) {
  if (overlap_tokens_for(s.language) == OverlapTokens::kWords) return OverlapTokens::kWords;
  for (std::string_view text : texts) {
    if (has_unspaced_letters(text)) return OverlapTokens::kWords;
  }
  return OverlapTokens::kSquad;
}

// The same for the response and `more` (its references, or the contexts).
OverlapTokens overlap_tokens_with(const Sample& s, const std::vector<std::string>& more) {
  if (overlap_tokens(s, {*s.response}) == OverlapTokens::kWords) return OverlapTokens::kWords;
  for (const std::string& text : more) {
    if (has_unspaced_letters(text)) return OverlapTokens::kWords;
  }
  return OverlapTokens::kSquad;
}

template <typename Fn>
MetricResult score_pair(const Sample& s, Fn fn) {
  return MetricResult::ok(fn(*s.response, *s.reference()));
}

MetricResult rouge_result(const Sample& s, RougeScore (*fn)(std::string_view, std::string_view,
                                                            const RougeOptions&),
                          const RougeOptions& options) {
  RougeScore rouge = fn(*s.response, *s.reference(), options);
  MetricResult result = MetricResult::ok(rouge.fmeasure);
  result.evidence = {{"precision", rouge.precision}, {"recall", rouge.recall}};
  // A number computed on what the tokenizer kept: say when that is not the whole text.
  result.note = rouge_dropped_letters_note(*s.response, *s.reference(), options);
  if (!result.note.empty()) result.evidence["note"] = result.note;
  return result;
}

MetricResult chrf_result(const Sample& s, ChrfOptions options, int word_order) {
  options.word_order = word_order;
  // The statistics serve both the sentence score and the corpus sum: computed once.
  std::vector<double> stats = chrf_statistics(*s.response, s.references(), options);
  MetricResult result = MetricResult::ok(chrf_from_statistics(stats, options));
  result.corpus_stats = std::move(stats);
  return result;
}

RougeScore rouge_1(std::string_view c, std::string_view r, const RougeOptions& o) {
  return rouge_n(c, r, 1, o);
}
RougeScore rouge_2(std::string_view c, std::string_view r, const RougeOptions& o) {
  return rouge_n(c, r, 2, o);
}

}  // namespace

MetricResult exact_match(const Sample& s, const MetricRequest&, const ScoringOptions&) {
  return score_pair(s, [](auto a, auto b) { return ragmeter::exact_match(a, b); });
}

MetricResult string_presence(const Sample& s, const MetricRequest&, const ScoringOptions&) {
  return score_pair(s, [](auto a, auto b) { return ragmeter::string_presence(a, b); });
}

MetricResult squad_exact_match(const Sample& s, const MetricRequest&, const ScoringOptions&) {
  return MetricResult::ok(ragmeter::squad_exact_match(*s.response, s.references()));
}

MetricResult token_f1(const Sample& s, const MetricRequest&, const ScoringOptions&) {
  return MetricResult::ok(
      ragmeter::token_f1(*s.response, s.references(), overlap_tokens_with(s, s.references())));
}

MetricResult cmrc_f1(const Sample& s, const MetricRequest&, const ScoringOptions&) {
  return MetricResult::ok(ragmeter::cmrc_f1(*s.response, s.references()));
}

MetricResult cmrc_em(const Sample& s, const MetricRequest&, const ScoringOptions&) {
  return MetricResult::ok(ragmeter::cmrc_exact_match(*s.response, s.references()));
}

MetricResult bleu(const Sample& s, const MetricRequest&, const ScoringOptions& o) {
  // ja-mecab and ko-mecab need MeCab's dictionary (loaded once; later calls are a lookup).
  if (Status ready = prepare_bleu_tokenizer(o.bleu.tokenizer); !ready.ok()) {
    return MetricResult::failed(ready.message());
  }
  // Statistics computed once: the sentence score uses effective order, as sacreBLEU's
  // sentence_bleu; the corpus score sums the same statistics without it.
  std::vector<double> stats = bleu_statistics(*s.response, s.references(), o.bleu);
  BleuOptions sentence_options = o.bleu;
  sentence_options.effective_order = true;
  MetricResult result = MetricResult::ok(bleu_from_statistics(stats, sentence_options));
  result.corpus_stats = std::move(stats);
  result.note = bleu_tokenizer_note(*s.response, *s.reference(), o.bleu.tokenizer);
  if (!result.note.empty()) result.evidence["note"] = result.note;
  return result;
}

MetricResult chrf(const Sample& s, const MetricRequest&, const ScoringOptions& o) {
  return chrf_result(s, o.chrf, 0);
}

MetricResult chrf_pp(const Sample& s, const MetricRequest&, const ScoringOptions& o) {
  return chrf_result(s, o.chrf, 2);
}

MetricResult rouge1(const Sample& s, const MetricRequest&, const ScoringOptions& o) {
  return rouge_result(s, rouge_1, o.rouge);
}
MetricResult rouge2(const Sample& s, const MetricRequest&, const ScoringOptions& o) {
  return rouge_result(s, rouge_2, o.rouge);
}
MetricResult rouge_l(const Sample& s, const MetricRequest&, const ScoringOptions& o) {
  return rouge_result(s, ragmeter::rouge_l, o.rouge);
}
MetricResult rouge_lsum(const Sample& s, const MetricRequest&, const ScoringOptions& o) {
  return rouge_result(s, ragmeter::rouge_lsum, o.rouge);
}

MetricResult levenshtein_similarity(const Sample& s, const MetricRequest&, const ScoringOptions&) {
  return score_pair(s, [](auto a, auto b) { return ragmeter::levenshtein_similarity(a, b); });
}
MetricResult jaro_similarity(const Sample& s, const MetricRequest&, const ScoringOptions&) {
  return score_pair(s, [](auto a, auto b) { return ragmeter::jaro_similarity(a, b); });
}
MetricResult jaro_winkler_similarity(const Sample& s, const MetricRequest&, const ScoringOptions&) {
  return score_pair(s, [](auto a, auto b) { return ragmeter::jaro_winkler_similarity(a, b); });
}
MetricResult hamming_similarity(const Sample& s, const MetricRequest&, const ScoringOptions&) {
  return score_pair(s, [](auto a, auto b) { return ragmeter::hamming_similarity(a, b); });
}

MetricResult k_precision(const Sample& s, const MetricRequest&, const ScoringOptions&) {
  return MetricResult::ok(
      ragmeter::k_precision(*s.response, *s.retrieved_contexts,
                            overlap_tokens_with(s, *s.retrieved_contexts)));
}

MetricResult answer_token_recall(const Sample& s, const MetricRequest&, const ScoringOptions&) {
  return score_pair(s, [&s](auto a, auto b) {
    return ragmeter::answer_token_recall(a, b, overlap_tokens(s, {a, b}));
  });
}

double corpus_bleu(const std::vector<double>& stats, const MetricRequest&, const ScoringOptions& o) {
  return bleu_from_statistics(stats, o.bleu);
}

double corpus_chrf(const std::vector<double>& stats, const MetricRequest&, const ScoringOptions& o) {
  ChrfOptions options = o.chrf;
  options.word_order = 0;
  return chrf_from_statistics(stats, options);
}

double corpus_chrf_pp(const std::vector<double>& stats, const MetricRequest&,
                      const ScoringOptions& o) {
  ChrfOptions options = o.chrf;
  options.word_order = 2;
  return chrf_from_statistics(stats, options);
}

}  // namespace ragmeter::adapters
