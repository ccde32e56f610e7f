// Which part of a RAG system each metric measures (report_answer.h): the table the
// report's "weaker part" verdict reads. Every judged and text metric of the metric table
// is listed here (a unit test checks it), so a new metric must be placed.
#include <algorithm>
#include <iterator>
#include <utility>

#include "ragmeter/metric.h"
#include "report/report_answer.h"

namespace ragmeter {
namespace {

constexpr auto kR = RagPart::kRetrieval;
constexpr auto kG = RagPart::kGeneration;
constexpr auto kE = RagPart::kEndToEnd;
constexpr auto kO = RagPart::kOther;

// Retrieval: what was retrieved, judged against the question or the reference. Generation:
// what the generator made of the question and the contexts (grounding, relevance, noise;
// RAGChecker's generator metrics). End-to-end: the answer against a reference or a rubric,
// which either part can spoil (RAGChecker's overall metrics). Other: safety, and a
// direction that depends on what the user wants (self-knowledge).
// clang-format off
constexpr std::pair<std::string_view, RagPart> kParts[] = {
  {"context_precision", kR},              {"context_recall", kR},
  {"context_entity_recall", kR},          {"context_relevance", kR},
  {"context_utilization", kR},            // ragas: context precision with the response as reference
  {"multimodal_context_recall", kR},      {"multimodal_context_utilization", kR},
  {"ragchecker_claim_recall", kR},        {"ragchecker_context_precision", kR},

  {"faithfulness", kG},                   {"answer_relevancy", kG},
  {"noise_sensitivity_relevant", kG},     {"noise_sensitivity_irrelevant", kG},
  {"k_precision", kG},                    {"coherence", kG},
  {"conciseness", kG},                    {"ragchecker_faithfulness", kG},
  {"ragchecker_context_utilization", kG}, {"ragchecker_hallucination", kG},
  {"ragchecker_noise_sensitivity_in_relevant", kG},
  {"ragchecker_noise_sensitivity_in_irrelevant", kG},
  {"multimodal_faithfulness", kG},        {"multimodal_relevance", kG},
  {"multimodal_claim_faithfulness", kG},

  {"exact_match", kE},                    {"string_presence", kE},
  {"squad_exact_match", kE},              {"token_f1", kE},
  {"cmrc_f1", kE},                        {"cmrc_em", kE},
  {"bleu", kE},                           {"chrf", kE},
  {"chrf_pp", kE},                        {"rouge1", kE},
  {"rouge2", kE},                         {"rouge_l", kE},
  {"rouge_lsum", kE},                     {"levenshtein_similarity", kE},
  {"jaro_similarity", kE},                {"jaro_winkler_similarity", kE},
  {"hamming_similarity", kE},             {"answer_token_recall", kE},
  {"factual_correctness", kE},            {"factual_correctness_precision", kE},
  {"factual_correctness_recall", kE},     {"semantic_similarity", kE},
  {"answer_correctness", kE},             {"summary_score", kE},
  {"correctness", kE},                    {"rubric_score", kE},
  {"ragchecker_precision", kE},           {"ragchecker_recall", kE},
  {"ragchecker_f1", kE},

  {"harmfulness", kO},                    {"maliciousness", kO},
  {"ragchecker_self_knowledge", kO},
};
// clang-format on

}  // namespace

const char* rag_part_name(RagPart part) {
  switch (part) {
    case RagPart::kRetrieval:
      return "retrieval";
    case RagPart::kGeneration:
      return "generation";
    case RagPart::kEndToEnd:
      return "end-to-end";
    case RagPart::kOther:
      return "other";
  }
  return "other";
}

RagPart rag_part_of(std::string_view metric) {
  std::string_view name = metric.substr(0, metric.find('@'));
  const MetricInfo* info = find_metric(name);
  if (info == nullptr) return RagPart::kOther;
  if (info->family == MetricFamily::kRetrieval) return RagPart::kRetrieval;
  auto it = std::find_if(std::begin(kParts), std::end(kParts),
                         [&](const auto& entry) { return entry.first == name; });
  return it == std::end(kParts) ? RagPart::kOther : it->second;
}

}  // namespace ragmeter
