// ragmeter.metrics: the pure scoring functions of include/ragmeter (bleu.h, chrf.h,
// rouge.h, text_overlap.h, string_similarity.h, retrieval.h), the metric table, and one
// sample scored by any metric. Every function releases the GIL while it computes.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/unordered_map.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "py_json.h"
#include "ragmeter/evaluate.h"
#include "ragmeter/language.h"
#include "ragmeter/metric.h"
#include "ragmeter/retrieval.h"
#include "ragmeter/string_similarity.h"
#include "ragmeter/text_overlap.h"
#include "scoring_options.h"
#include "status_errors.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace ragmeter::python {
namespace {

// One reference or several: metrics with several take the best match.
using References = std::variant<std::string, std::vector<std::string>>;
// Relevant document ids (binary relevance) or id -> graded relevance level.
using Relevance = std::variant<std::vector<std::string>, std::unordered_map<std::string, int>>;

std::vector<std::string> reference_list(References references) {
  if (auto* one = std::get_if<std::string>(&references)) return {std::move(*one)};
  return std::get<std::vector<std::string>>(std::move(references));
}

Judgements judgements_of(Relevance relevance) {
  if (auto* graded = std::get_if<std::unordered_map<std::string, int>>(&relevance)) {
    return std::move(*graded);
  }
  Judgements judgements;
  for (auto& id : std::get<std::vector<std::string>>(relevance)) judgements[std::move(id)] = 1;
  return judgements;
}

// Raises InvalidArgumentError for a `language` keyword that is no supported code (with
// the GIL held: it makes a Python exception).
void check_language(const std::string& language) {
  if (language.empty() || language == "auto" || language == kUndeterminedLanguage) return;
  if (!is_supported_language(language)) {
    raise_status(invalid_argument(unknown_language_message(language, "language")));
  }
}

// The token-overlap metrics' tokens for texts in `language` (checked); with no language
// given, ragmeter's words as soon as one of the texts is detected in a language other
// than English, as `ragmeter eval` decides for a sample.
OverlapTokens overlap_tokens(const std::string& language,
                             const std::vector<std::string_view>& texts) {
  if (!language.empty() && language != "auto") return overlap_tokens_for(language);
  for (std::string_view text : texts) {
    if (overlap_tokens_for(detect_language(text)) == OverlapTokens::kWords) {
      return OverlapTokens::kWords;
    }
  }
  return OverlapTokens::kSquad;
}

BleuOptions bleu_options(const std::string& smoothing, const std::string& tokenize, bool lowercase) {
  BleuOptions options;
  options.smoothing = bleu_smoothing_named(smoothing);
  options.tokenizer = bleu_tokenizer_named(tokenize);
  options.lowercase = lowercase;
  return options;
}

ChrfOptions chrf_options(int word_order, int char_order, double beta, bool lowercase,
                         bool whitespace, bool eps_smoothing) {
  ChrfOptions options;
  options.word_order = word_order;
  options.char_order = char_order;
  options.beta = beta;
  options.lowercase = lowercase;
  options.whitespace = whitespace;
  options.eps_smoothing = eps_smoothing;
  return options;
}

RougeOptions rouge_options(bool stem, const std::string& tokenizer) {
  RougeOptions options;
  options.use_stemmer = stem;
  options.tokenizer = rouge_tokenizer_named(tokenizer);
  return options;
}

double rouge_part(const RougeScore& score, const std::string& mode) {
  if (mode == "fmeasure") return score.fmeasure;
  if (mode == "precision") return score.precision;
  if (mode == "recall") return score.recall;
  raise_status(invalid_argument("mode: '" + mode + "' is not one of fmeasure, precision, recall"));
}

std::vector<std::vector<std::string>> reference_lists(std::vector<References> references) {
  std::vector<std::vector<std::string>> lists;
  lists.reserve(references.size());
  for (auto& r : references) lists.push_back(reference_list(std::move(r)));
  return lists;
}

void bind_text_metrics(nb::module_& m) {
  auto release = nb::call_guard<nb::gil_scoped_release>();
  m.def("exact_match", &ragmeter::exact_match, "response"_a, "reference"_a, release,
        "1.0 when the response equals the reference byte for byte, else 0.0.");
  m.def("string_presence", &ragmeter::string_presence, "response"_a, "reference"_a, release,
        "1.0 when the reference occurs in the response (case-sensitive), else 0.0.");
  m.def(
      "squad_exact_match",
      [](std::string_view response, References references) {
        auto refs = reference_list(std::move(references));
        nb::gil_scoped_release unlocked;
        return ragmeter::squad_exact_match(response, refs);
      },
      "response"_a, "reference"_a,
      "SQuAD exact match after normalisation (lowercase, no punctuation or articles), the "
      "best over the references (a str or a list of str).");
  m.def(
      "token_f1",
      [](std::string_view response, References references, const std::string& language) {
        auto refs = reference_list(std::move(references));
        check_language(language);
        nb::gil_scoped_release unlocked;
        std::vector<std::string_view> texts = {response};
        texts.insert(texts.end(), refs.begin(), refs.end());
        return ragmeter::token_f1(response, refs, overlap_tokens(language, texts));
      },
      "response"_a, "reference"_a, nb::kw_only(), "language"_a = "",
      "Token F1, the best over the references: SQuAD's normalised tokens for English, "
      "ragmeter's words (ICU word break) for other languages. `language`: an ISO 639-1 "
      "code; empty: detected from the texts.");
  m.def(
      "bleu",
      [](std::string_view response, References references, const std::string& smoothing,
         const std::string& tokenize, bool lowercase) {
        auto refs = reference_list(std::move(references));
        BleuOptions options = bleu_options(smoothing, tokenize, lowercase);
        nb::gil_scoped_release unlocked;
        return sentence_bleu(response, refs, options);
      },
      "response"_a, "reference"_a, nb::kw_only(), "smoothing"_a = "exp", "tokenize"_a = "13a",
      "lowercase"_a = false,
      "sacreBLEU's sentence BLEU / 100 (0..1) against one reference or a list of them.");
  m.def(
      "corpus_bleu",
      [](std::vector<std::string> responses, std::vector<References> references,
         const std::string& smoothing, const std::string& tokenize, bool lowercase) {
        if (responses.size() != references.size()) {
          raise_status(invalid_argument("corpus_bleu: one reference (or list) per response is needed"));
        }
        auto refs = reference_lists(std::move(references));
        BleuOptions options = bleu_options(smoothing, tokenize, lowercase);
        nb::gil_scoped_release unlocked;
        return ragmeter::corpus_bleu(responses, refs, options);
      },
      "responses"_a, "references"_a, nb::kw_only(), "smoothing"_a = "exp", "tokenize"_a = "13a",
      "lowercase"_a = false,
      "sacreBLEU's corpus BLEU / 100; references[i] is the reference (or list) of responses[i].");
  m.def(
      "chrf",
      [](std::string_view response, References references, int word_order, int char_order,
         double beta, bool lowercase, bool whitespace, bool eps_smoothing) {
        auto refs = reference_list(std::move(references));
        ChrfOptions options = chrf_options(word_order, char_order, beta, lowercase, whitespace, eps_smoothing);
        nb::gil_scoped_release unlocked;
        return sentence_chrf(response, refs, options);
      },
      "response"_a, "reference"_a, nb::kw_only(), "word_order"_a = 0, "char_order"_a = 6,
      "beta"_a = 2.0, "lowercase"_a = false, "whitespace"_a = false, "eps_smoothing"_a = false,
      "sacreBLEU's chrF / 100 (word_order=2: chrF++).");
  m.def(
      "chrf_pp",
      [](std::string_view response, References references) {
        auto refs = reference_list(std::move(references));
        ChrfOptions options;
        options.word_order = 2;
        nb::gil_scoped_release unlocked;
        return sentence_chrf(response, refs, options);
      },
      "response"_a, "reference"_a, "sacreBLEU's chrF++ / 100 (chrF with word 1- and 2-grams).");
  m.def(
      "corpus_chrf",
      [](std::vector<std::string> responses, std::vector<References> references, int word_order) {
        if (responses.size() != references.size()) {
          raise_status(invalid_argument("corpus_chrf: one reference (or list) per response is needed"));
        }
        auto refs = reference_lists(std::move(references));
        ChrfOptions options;
        options.word_order = word_order;
        nb::gil_scoped_release unlocked;
        return ragmeter::corpus_chrf(responses, refs, options);
      },
      "responses"_a, "references"_a, nb::kw_only(), "word_order"_a = 0,
      "sacreBLEU's corpus chrF / 100 (word_order=2: chrF++).");

  auto def_rouge = [&m](const char* name, auto fn, const char* doc) {
    m.def(
        name,
        [fn](std::string_view response, std::string_view reference, bool stem,
             const std::string& tokenizer, const std::string& mode) {
          RougeOptions options = rouge_options(stem, tokenizer);
          RougeScore score;
          {
            nb::gil_scoped_release unlocked;
            score = fn(response, reference, options);
          }
          return rouge_part(score, mode);
        },
        "response"_a, "reference"_a, nb::kw_only(), "stem"_a = false, "tokenizer"_a = "default",
        "mode"_a = "fmeasure", doc);
  };
  def_rouge("rouge1", [](auto c, auto r, const RougeOptions& o) { return rouge_n(c, r, 1, o); },
            "ROUGE-1 as rouge-score (mode: fmeasure, precision or recall).");
  def_rouge("rouge2", [](auto c, auto r, const RougeOptions& o) { return rouge_n(c, r, 2, o); },
            "ROUGE-2 as rouge-score.");
  def_rouge("rouge_l", [](auto c, auto r, const RougeOptions& o) { return ragmeter::rouge_l(c, r, o); },
            "ROUGE-L (longest common subsequence) as rouge-score.");
  def_rouge("rouge_lsum",
            [](auto c, auto r, const RougeOptions& o) { return ragmeter::rouge_lsum(c, r, o); },
            "ROUGE-Lsum (summary-level LCS over newline-separated sentences) as rouge-score.");

  m.def("levenshtein_similarity", &ragmeter::levenshtein_similarity, "response"_a, "reference"_a,
        release, "1 - Levenshtein distance / longer length, over code points (rapidfuzz).");
  m.def("levenshtein_distance", &ragmeter::levenshtein_distance, "a"_a, "b"_a, release,
        "Edit distance over code points (rapidfuzz Levenshtein.distance).");
  m.def("jaro_similarity", &ragmeter::jaro_similarity, "response"_a, "reference"_a, release,
        "Jaro similarity over code points (rapidfuzz).");
  m.def("jaro_winkler_similarity", &ragmeter::jaro_winkler_similarity, "response"_a, "reference"_a,
        nb::kw_only(), "prefix_weight"_a = 0.1, release,
        "Jaro-Winkler similarity (rapidfuzz); ValueError unless 0 <= prefix_weight <= 1.");
  m.def("hamming_similarity", &ragmeter::hamming_similarity, "response"_a, "reference"_a, release,
        "1 - Hamming distance / longer length, the shorter string padded (rapidfuzz).");
  m.def(
      "k_precision",
      [](std::string_view response, const std::vector<std::string>& contexts,
         const std::string& language) {
        check_language(language);
        nb::gil_scoped_release unlocked;
        std::vector<std::string_view> texts = {response};
        texts.insert(texts.end(), contexts.begin(), contexts.end());
        return ragmeter::k_precision(response, contexts, overlap_tokens(language, texts));
      },
      "response"_a, "contexts"_a, nb::kw_only(), "language"_a = "",
      "Share of the response's tokens found in the contexts (Adlakha et al., 2024); tokens "
      "as token_f1's.");
  m.def(
      "answer_token_recall",
      [](std::string_view response, std::string_view reference, const std::string& language) {
        check_language(language);
        nb::gil_scoped_release unlocked;
        return ragmeter::answer_token_recall(response, reference,
                                             overlap_tokens(language, {response, reference}));
      },
      "response"_a, "reference"_a, nb::kw_only(), "language"_a = "",
      "Share of the reference's tokens found in the response (Adlakha et al., 2024); tokens "
      "as token_f1's.");
}

void bind_retrieval_metrics(nb::module_& m) {
  auto def_ranked = [&m](const char* name, double (*fn)(const Ranking&, const Judgements&, int),
                         const char* doc) {
    m.def(
        name,
        [fn](const Ranking& retrieved, Relevance relevant, int k) {
          Judgements judgements = judgements_of(std::move(relevant));
          nb::gil_scoped_release unlocked;
          return fn(retrieved, judgements, k);
        },
        "retrieved"_a, "relevant"_a, "k"_a = 0, doc);
  };
  def_ranked("precision", &precision_at_k,
             "Share of the top k retrieved ids that are relevant (trec_eval P_k; k=0: all "
             "retrieved). `relevant` is a list of ids or a dict id -> relevance level.");
  def_ranked("recall", &recall_at_k, "Share of the relevant ids found in the top k.");
  def_ranked("f1", &f1_at_k, "Harmonic mean of precision and recall at k.");
  def_ranked("hit_rate", &hit_rate_at_k, "1.0 when a relevant id is in the top k.");
  def_ranked("mrr", &reciprocal_rank, "Reciprocal rank of the first relevant id (0 if none).");
  def_ranked("map", &average_precision, "Average precision (trec_eval map; map_cut_k with k).");
  m.def(
      "r_precision",
      [](const Ranking& retrieved, Relevance relevant) {
        Judgements judgements = judgements_of(std::move(relevant));
        nb::gil_scoped_release unlocked;
        return ragmeter::r_precision(retrieved, judgements);
      },
      "retrieved"_a, "relevant"_a, "Precision at R, R the number of relevant ids (trec_eval Rprec).");
  m.def(
      "ndcg",
      [](const Ranking& retrieved, Relevance relevant, int k, bool graded) {
        Judgements judgements = judgements_of(std::move(relevant));
        nb::gil_scoped_release unlocked;
        return ndcg_at_k(retrieved, judgements, k, graded);
      },
      "retrieved"_a, "relevant"_a, "k"_a = 0, nb::kw_only(), "graded"_a = true,
      "nDCG at k (trec_eval ndcg_cut_k): gain = relevance level (graded) or 1, log2 discount.");
  auto release = nb::call_guard<nb::gil_scoped_release>();
  m.def("id_based_context_precision", &id_context_precision, "retrieved_context_ids"_a,
        "reference_context_ids"_a, release,
        "ragas's id-based context precision: share of distinct retrieved ids that are reference ids.");
  m.def("id_based_context_recall", &id_context_recall, "retrieved_context_ids"_a,
        "reference_context_ids"_a, release,
        "ragas's id-based context recall: share of distinct reference ids that were retrieved.");
}

void bind_metric_table(nb::module_& m) {
  m.def(
      "metric_table",
      [] {
        nb::list table;
        for (const MetricInfo& info : builtin_metrics()) {
          nb::dict row;
          row["name"] = nb::str(info.name.data(), info.name.size());
          row["family"] = metric_family_name(info.family);
          row["fields"] = required_fields_text(info.needs);
          row["definition"] = nb::str(info.definition.data(), info.definition.size());
          row["takes_cutoff"] = info.takes_cutoff;
          row["higher_is_better"] = info.higher_is_better;
          row["needs_llm"] = info.judged != nullptr && metric_needs_llm(info);
          table.append(row);
        }
        return table;
      },
      "Every built-in metric: name, family, fields, definition, takes_cutoff, "
      "higher_is_better, needs_llm (as `ragmeter metrics` prints them).");
  m.def(
      "metric_names",
      [](const std::string& spec) {
        std::vector<std::string> names;
        for (const MetricRequest& r : value_or_raise(parse_metric_list(spec))) names.push_back(r.name);
        return names;
      },
      "spec"_a,
      "The metric names a --metrics value asks for (\"ragas\", \"ndcg@10,bleu\", ...); "
      "InvalidArgumentError names an unknown metric and suggests the nearest.");
}

}  // namespace

void bind_metrics(nb::module_& m) {
  bind_text_metrics(m);
  bind_retrieval_metrics(m);
  bind_metric_table(m);
}

}  // namespace ragmeter::python
