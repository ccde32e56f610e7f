// Judged metrics read off the claim ledger. A = response claims, R = reference claims,
// C_1..C_K = chunks in rank order, "y |= x" = premise y entails claim x.
//
// ragas, computed from the ledger (docs/metrics.md; ragas's metric docs):
//   faithfulness         |{a : some C_k |= a}| / |A|
//   context_recall       |{r : some C_k |= r}| / |R|
//   context_precision    sum_k P@k v_k / sum_k v_k, v_k = [C_k |= some r], P@k = (v_1..v_k)/k
//                        (0 when no v_k; ragas's 1e-10 in the denominator is left out)
//   context_utilization  the same with A in place of R
//   noise_sensitivity    |{a : R !|= a, some relevant C_k |= a}| / |A|; irrelevant mode:
//                        some irrelevant C_k |= a and no relevant one; relevant = |= some r
//   factual_correctness  TP = |{a : R |= a}|, FP = |A| - TP, FN = |{r : A !|= r}|, F-beta
// RAGChecker (Ru et al., 2024; its computation.py, checked against its worked examples in
// tests/data):
//   precision            |{a : R |= a}| / |A|              (its answer2response)
//   recall               |{r : A |= r}| / |R|              (its response2answer)
//   f1                   2PR / (P + R), 0 unless P > 0 and R > 0
//   claim_recall         = context_recall above
//   context_precision    |{k : C_k |= some r}| / K
//   context_utilization  |{r : some C_k |= r, A |= r}| / |{r : some C_k |= r}|, 0 if none
//   noise_sensitivity_in_relevant / _in_irrelevant  = noise_sensitivity above
//   hallucination        |{a : no C_k |= a, R !|= a}| / |A|
//   self_knowledge       |{a : no C_k |= a, R |= a}| / |A|
//   faithfulness         = faithfulness above
#include "ragmeter/ledger_metrics.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

// What a metric reports when a set its formula counts is empty.
enum class EmptyInput { kSkip, kZero };

// Claims checked against one kind of premise: row i holds claim i's verdicts, one per
// chunk, or a single one against the other text.
class ClaimCheck {
 public:
  ClaimCheck(const std::vector<Claim>& claims, const VerdictTable& table, const char* side)
      : claims_(claims), table_(&table), side_(side), premise_("any chunk") {}
  ClaimCheck(const std::vector<Claim>& claims, const std::vector<VerdictCell>& cells,
             const char* side, const char* premise)
      : claims_(claims), cells_(&cells), side_(side), premise_(premise) {}

  std::size_t size() const { return claims_.size(); }
  const Claim& claim(std::size_t i) const { return claims_[i]; }
  std::span<const VerdictCell> row(std::size_t i) const {
    return table_ ? table_->row(i) : std::span<const VerdictCell>(&(*cells_)[i], 1);
  }
  bool against_chunks() const { return table_ != nullptr; }
  const char* side() const { return side_; }
  const char* premise() const { return premise_; }

 private:
  const std::vector<Claim>& claims_;
  const VerdictTable* table_ = nullptr;
  const std::vector<VerdictCell>* cells_ = nullptr;
  const char* side_;
  const char* premise_;
};

ClaimCheck response_vs_chunks(const ClaimLedger& l) {
  return {l.response_claims, l.response_vs_chunks, "response"};
}
ClaimCheck reference_vs_chunks(const ClaimLedger& l) {
  return {l.reference_claims, l.reference_vs_chunks, "reference"};
}
ClaimCheck response_vs_reference(const ClaimLedger& l) {
  return {l.response_claims, l.response_vs_reference, "response", "the reference"};
}
ClaimCheck reference_vs_response(const ClaimLedger& l) {
  return {l.reference_claims, l.reference_vs_response, "reference", "the response"};
}

bool any_supports(std::span<const VerdictCell> cells) {
  return std::any_of(cells.begin(), cells.end(), [](const VerdictCell& c) { return c.supports(); });
}

bool any_judged(std::span<const VerdictCell> cells) {
  return std::any_of(cells.begin(), cells.end(), [](const VerdictCell& c) { return c.judged(); });
}

bool any_is(std::span<const VerdictCell> cells, Verdict verdict) {
  return std::any_of(cells.begin(), cells.end(),
                     [verdict](const VerdictCell& c) { return c.verdict == verdict; });
}

// Entailment beats Contradiction beats Neutral beats Missing.
Verdict aggregate_verdict(std::span<const VerdictCell> cells) {
  for (Verdict v : {Verdict::kEntailment, Verdict::kContradiction, Verdict::kNeutral}) {
    if (any_is(cells, v)) return v;
  }
  return Verdict::kMissing;
}

std::vector<bool> supported_claims(const ClaimCheck& check) {
  std::vector<bool> supported(check.size());
  for (std::size_t i = 0; i < check.size(); ++i) supported[i] = any_supports(check.row(i));
  return supported;
}

std::size_t count_true(const std::vector<bool>& flags) {
  return static_cast<std::size_t>(std::count(flags.begin(), flags.end(), true));
}

double share(std::size_t part, std::size_t whole) {
  return static_cast<double>(part) / static_cast<double>(whole);
}

std::string index_list(const std::vector<std::size_t>& indices) {
  std::string text = "[";
  for (std::size_t i = 0; i < indices.size(); ++i) {
    text += (i ? ", " : "") + std::to_string(indices[i]);
  }
  return text + "]";
}

// ---- Evidence ---------------------------------------------------------------------

// Supporting chunks of a claim, or else the reasons of its negative verdicts; and the
// chunks not judged.
void add_chunk_detail(std::span<const VerdictCell> cells, Json* entry) {
  Json supporting = Json::array();
  Json reasons = Json::array();
  Json missing = Json::array();
  for (std::size_t k = 0; k < cells.size(); ++k) {
    const VerdictCell& cell = cells[k];
    if (cell.supports()) {
      supporting.push_back(k);
    } else if (!cell.judged()) {
      missing.push_back(k);
    } else if (!cell.reason.empty()) {
      reasons.push_back(
          {{"chunk", k}, {"verdict", verdict_name(cell.verdict)}, {"reason", cell.reason}});
    }
  }
  if (!supporting.empty()) {
    (*entry)["chunks"] = std::move(supporting);
  } else if (!reasons.empty()) {
    (*entry)["reasons"] = std::move(reasons);
  }
  if (!missing.empty()) (*entry)["missing_chunks"] = std::move(missing);
}

Json claim_entry(const ClaimCheck& check, std::size_t i) {
  const std::span<const VerdictCell> cells = check.row(i);
  Json entry = {{"id", check.claim(i).id},
                {"claim", check.claim(i).text},
                {"verdict", verdict_name(aggregate_verdict(cells))}};
  if (check.against_chunks()) {
    add_chunk_detail(cells, &entry);
  } else if (!cells[0].supports() && !cells[0].reason.empty()) {
    entry["reason"] = cells[0].reason;
  }
  return entry;
}

Json claims_evidence(const ClaimCheck& check) {
  Json claims = Json::array();
  for (std::size_t i = 0; i < check.size(); ++i) claims.push_back(claim_entry(check, i));
  return claims;
}

// ---- Edges: empty inputs, missing verdicts, invalid ledgers ---------------------------

std::optional<MetricResult> empty_input(std::string reason, EmptyInput policy) {
  if (policy == EmptyInput::kSkip) return MetricResult::skipped(std::move(reason));
  MetricResult result = MetricResult::ok(0.0);
  result.evidence = {{"empty_input", std::move(reason)}};
  return result;
}

std::optional<MetricResult> require_claims(const ClaimCheck& check, EmptyInput policy) {
  if (check.size() > 0) return std::nullopt;
  return empty_input(std::string("the ") + check.side() + " has no claims", policy);
}

std::optional<MetricResult> require_chunks(const ClaimLedger& ledger, EmptyInput policy) {
  if (!ledger.chunks.empty()) return std::nullopt;
  return empty_input("no retrieved chunks", policy);
}

// Claims first, then (for chunk tables) chunks.
std::optional<MetricResult> require_inputs(const ClaimLedger& ledger, const ClaimCheck& check,
                                           EmptyInput policy) {
  if (auto stop = require_claims(check, policy)) return stop;
  if (check.against_chunks()) return require_chunks(ledger, policy);
  return std::nullopt;
}

// `failed` when some claim has no judged verdict at all.
std::optional<MetricResult> require_judged(const ClaimCheck& check) {
  std::vector<std::size_t> unjudged;
  for (std::size_t i = 0; i < check.size(); ++i) {
    if (!any_judged(check.row(i))) unjudged.push_back(i);
  }
  if (unjudged.empty()) return std::nullopt;
  // The judge's own reason for the first gap, when it left one (e.g. the call's error).
  std::string why = "the judge returned fewer verdicts than claims, or a call failed";
  for (const VerdictCell& cell : check.row(unjudged.front())) {
    if (!cell.judged() && !cell.reason.empty()) {
      why = cell.reason;
      break;
    }
  }
  return MetricResult::failed(std::string(check.side()) + " claims " + index_list(unjudged) +
                              " have no verdict against " + check.premise() + " (" + why + ")");
}

std::optional<MetricResult> require_valid(const ClaimLedger& ledger) {
  Status status = validate_claim_ledger(ledger);
  if (status.ok()) return std::nullopt;
  return MetricResult::failed("invalid claim ledger: " + status.message());
}

// ---- Chunk usefulness -------------------------------------------------------------

// For each chunk, the claims (rows of a chunk table) it entails.
struct ChunkUse {
  std::vector<std::vector<std::size_t>> supports;
  std::vector<bool> useful;
  std::size_t useful_count = 0;
};

ChunkUse chunk_use(const ClaimCheck& check, std::size_t chunks) {
  ChunkUse use{std::vector<std::vector<std::size_t>>(chunks), std::vector<bool>(chunks), 0};
  for (std::size_t i = 0; i < check.size(); ++i) {
    std::span<const VerdictCell> cells = check.row(i);
    for (std::size_t k = 0; k < chunks; ++k) {
      if (cells[k].supports()) use.supports[k].push_back(i);
    }
  }
  for (std::size_t k = 0; k < chunks; ++k) use.useful[k] = !use.supports[k].empty();
  use.useful_count = count_true(use.useful);
  return use;
}

// `failed` when some chunk has no judged verdict against any claim of `check`.
std::optional<MetricResult> require_judged_chunks(const ClaimCheck& check, std::size_t chunks) {
  std::vector<std::size_t> unjudged;
  for (std::size_t k = 0; k < chunks; ++k) {
    bool judged = false;
    for (std::size_t i = 0; i < check.size() && !judged; ++i) judged = check.row(i)[k].judged();
    if (!judged) unjudged.push_back(k);
  }
  if (unjudged.empty()) return std::nullopt;
  return MetricResult::failed("chunks " + index_list(unjudged) + " have no verdict for any " +
                              check.side() + " claim");
}

// The checks every chunk-usefulness metric makes: claims, chunks, judged chunks.
std::optional<MetricResult> require_usefulness(const ClaimLedger& ledger, const ClaimCheck& check,
                                               EmptyInput policy) {
  if (auto stop = require_inputs(ledger, check, policy)) return stop;
  return require_judged_chunks(check, ledger.chunks.size());
}

Json usefulness_evidence(const ClaimLedger& ledger, const ClaimCheck& check, const ChunkUse& use) {
  Json chunks = Json::array();
  for (std::size_t k = 0; k < ledger.chunks.size(); ++k) {
    chunks.push_back({{"chunk", k},
                      {"id", ledger.chunks[k].id},
                      {"useful", static_cast<bool>(use.useful[k])},
                      {"supports", use.supports[k]}});
  }
  return {{"useful", use.useful_count},
          {"chunks", std::move(chunks)},
          {"claims", claims_evidence(check)}};
}

// ragas: sum_k precision@k * v_k / sum_k v_k; 0 when no chunk is useful.
MetricResult rank_weighted_precision(const ClaimLedger& ledger, const ClaimCheck& check) {
  if (auto stop = require_usefulness(ledger, check, EmptyInput::kSkip)) return *stop;
  const ChunkUse use = chunk_use(check, ledger.chunks.size());
  double hits = 0.0;
  double weighted = 0.0;
  for (std::size_t k = 0; k < use.useful.size(); ++k) {
    if (!use.useful[k]) continue;
    hits += 1.0;
    weighted += hits / static_cast<double>(k + 1);
  }
  MetricResult result = MetricResult::ok(hits == 0.0 ? 0.0 : weighted / hits);
  result.evidence = usefulness_evidence(ledger, check, use);
  return result;
}

// RAGChecker: share of chunks entailing at least one reference claim.
MetricResult useful_chunk_share(const ClaimLedger& ledger, EmptyInput policy) {
  const ClaimCheck check = reference_vs_chunks(ledger);
  if (auto stop = require_usefulness(ledger, check, policy)) return *stop;
  const ChunkUse use = chunk_use(check, ledger.chunks.size());
  MetricResult result = MetricResult::ok(share(use.useful_count, ledger.chunks.size()));
  result.evidence = usefulness_evidence(ledger, check, use);
  return result;
}

// ---- Claim shares -----------------------------------------------------------------

// Share of the claims of `check` supported by its premises.
MetricResult supported_share(const ClaimLedger& ledger, const ClaimCheck& check,
                             EmptyInput policy) {
  if (auto stop = require_inputs(ledger, check, policy)) return *stop;
  if (auto stop = require_judged(check)) return *stop;
  const std::vector<bool> supported = supported_claims(check);
  const std::size_t count = count_true(supported);
  MetricResult result = MetricResult::ok(share(count, check.size()));
  result.evidence = {
      {"supported", count}, {"total", check.size()}, {"claims", claims_evidence(check)}};
  return result;
}

// Scores the share of `counted` claims; marks each entry of evidence["claims"] with it.
MetricResult counted_share(const ClaimCheck& check, const std::vector<bool>& counted,
                           Json evidence) {
  const std::size_t count = count_true(counted);
  Json& claims = evidence["claims"];
  for (std::size_t i = 0; i < counted.size(); ++i) {
    claims[i]["counted"] = static_cast<bool>(counted[i]);
  }
  evidence["counted"] = count;
  evidence["total"] = check.size();
  MetricResult result = MetricResult::ok(share(count, check.size()));
  result.evidence = std::move(evidence);
  return result;
}

// Response claims and chunks present, every response claim judged against the chunks
// and against the reference.
std::optional<MetricResult> require_response_checks(const ClaimLedger& ledger, EmptyInput policy) {
  const ClaimCheck chunks = response_vs_chunks(ledger);
  if (auto stop = require_inputs(ledger, chunks, policy)) return stop;
  if (auto stop = require_judged(chunks)) return stop;
  return require_judged(response_vs_reference(ledger));
}

// The response claims against the chunks, each with "correct" (the reference entails
// it) and the reference's verdict.
Json response_claims_with_correctness(const ClaimLedger& ledger, const std::vector<bool>& correct) {
  Json claims = claims_evidence(response_vs_chunks(ledger));
  for (std::size_t i = 0; i < correct.size(); ++i) {
    const VerdictCell& cell = ledger.response_vs_reference[i];
    claims[i]["correct"] = static_cast<bool>(correct[i]);
    claims[i]["reference_verdict"] = verdict_name(cell.verdict);
    if (!cell.supports() && !cell.reason.empty()) claims[i]["reference_reason"] = cell.reason;
  }
  return claims;
}

MetricResult noise_sensitivity(const ClaimLedger& ledger, NoiseMode mode, EmptyInput policy) {
  if (auto stop = require_claims(response_vs_chunks(ledger), policy)) return *stop;
  if (auto stop = require_usefulness(ledger, reference_vs_chunks(ledger), policy)) return *stop;
  if (auto stop = require_response_checks(ledger, policy)) return *stop;
  const ChunkUse relevant = chunk_use(reference_vs_chunks(ledger), ledger.chunks.size());
  const std::vector<bool> correct = supported_claims(response_vs_reference(ledger));
  Json claims = response_claims_with_correctness(ledger, correct);
  std::vector<bool> counted(ledger.response_claims.size());
  for (std::size_t i = 0; i < counted.size(); ++i) {
    bool in_relevant = false;
    bool in_irrelevant = false;
    std::span<const VerdictCell> cells = ledger.response_vs_chunks.row(i);
    for (std::size_t k = 0; k < cells.size(); ++k) {
      if (!cells[k].supports()) continue;
      (relevant.useful[k] ? in_relevant : in_irrelevant) = true;
    }
    const bool in_mode = mode == NoiseMode::kRelevant ? in_relevant : in_irrelevant && !in_relevant;
    counted[i] = !correct[i] && in_mode;
    claims[i]["in_relevant"] = in_relevant;
    claims[i]["in_irrelevant"] = in_irrelevant;
  }
  Json relevant_chunks = Json::array();
  for (std::size_t k = 0; k < relevant.useful.size(); ++k) {
    if (relevant.useful[k]) relevant_chunks.push_back(k);
  }
  return counted_share(
      response_vs_chunks(ledger), counted,
      {{"relevant_chunks", std::move(relevant_chunks)}, {"claims", std::move(claims)}});
}

// RAGChecker: response claims no chunk entails, counted when their correctness (the
// reference entails them) equals `correct_wanted`: hallucination (false), self-knowledge (true).
MetricResult unfaithful_share(const ClaimLedger& ledger, bool correct_wanted, EmptyInput policy) {
  if (auto stop = require_response_checks(ledger, policy)) return *stop;
  const std::vector<bool> faithful = supported_claims(response_vs_chunks(ledger));
  const std::vector<bool> correct = supported_claims(response_vs_reference(ledger));
  std::vector<bool> counted(faithful.size());
  for (std::size_t i = 0; i < counted.size(); ++i)
    counted[i] = !faithful[i] && correct[i] == correct_wanted;
  return counted_share(response_vs_chunks(ledger), counted,
                       {{"claims", response_claims_with_correctness(ledger, correct)}});
}

// RAGChecker: among reference claims some chunk entails, the share the response entails.
MetricResult recalled_claims_used(const ClaimLedger& ledger, EmptyInput policy) {
  const ClaimCheck chunks = reference_vs_chunks(ledger);
  const ClaimCheck response = reference_vs_response(ledger);
  if (auto stop = require_inputs(ledger, chunks, policy)) return *stop;
  if (auto stop = require_judged(chunks)) return *stop;
  if (auto stop = require_judged(response)) return *stop;
  const std::vector<bool> recalled = supported_claims(chunks);
  const std::vector<bool> used = supported_claims(response);
  Json claims = claims_evidence(chunks);
  std::size_t recalled_count = 0;
  std::size_t used_count = 0;
  for (std::size_t i = 0; i < recalled.size(); ++i) {
    recalled_count += recalled[i];
    used_count += recalled[i] && used[i];
    claims[i]["recalled"] = static_cast<bool>(recalled[i]);
    claims[i]["in_response"] = static_cast<bool>(used[i]);
  }
  MetricResult result =
      MetricResult::ok(recalled_count == 0 ? 0.0 : share(used_count, recalled_count));
  result.evidence = {
      {"recalled", recalled_count}, {"used", used_count}, {"claims", std::move(claims)}};
  return result;
}

// ---- Precision, recall, F -----------------------------------------------------------

double f_beta(double precision, double recall, double beta) {
  if (precision == 0.0 && recall == 0.0) return 0.0;
  const double b2 = beta * beta;
  return (1.0 + b2) * precision * recall / (b2 * precision + recall);
}

MetricResult ragchecker_f1(const ClaimLedger& ledger, EmptyInput policy) {
  MetricResult precision = supported_share(ledger, response_vs_reference(ledger), policy);
  if (precision.outcome != Outcome::kOk) return precision;
  MetricResult recall = supported_share(ledger, reference_vs_response(ledger), policy);
  if (recall.outcome != Outcome::kOk) return recall;
  const double p = precision.score;
  const double r = recall.score;
  MetricResult result = MetricResult::ok(p > 0.0 && r > 0.0 ? 2 * p * r / (p + r) : 0.0);
  result.evidence = {{"precision", p},
                     {"recall", r},
                     {"claims", std::move(precision.evidence["claims"])},
                     {"reference_claims", std::move(recall.evidence["claims"])}};
  return result;
}

std::optional<MetricResult> require_factual_inputs(const ClaimLedger& ledger, FactualMode mode,
                                                   double beta) {
  if (!(std::isfinite(beta) && beta > 0.0))
    return MetricResult::failed("beta must be finite and > 0");
  const bool needs_response = mode != FactualMode::kRecall;
  const bool needs_reference = mode != FactualMode::kPrecision;
  if (needs_response) {
    if (auto stop = require_claims(response_vs_reference(ledger), EmptyInput::kSkip)) return stop;
  }
  if (needs_reference) {
    if (auto stop = require_claims(reference_vs_response(ledger), EmptyInput::kSkip)) return stop;
    if (auto stop = require_judged(reference_vs_response(ledger))) return stop;
  }
  return require_judged(response_vs_reference(ledger));
}

MetricResult factual_correctness(const ClaimLedger& ledger, FactualMode mode, double beta) {
  if (auto stop = require_factual_inputs(ledger, mode, beta)) return *stop;
  const std::vector<bool> supported_by_reference = supported_claims(response_vs_reference(ledger));
  const std::vector<bool> supported_by_response = supported_claims(reference_vs_response(ledger));
  const std::size_t tp = count_true(supported_by_reference);
  const std::size_t fp = supported_by_reference.size() - tp;
  const std::size_t fn = supported_by_response.size() - count_true(supported_by_response);
  const double precision = tp + fp == 0 ? 0.0 : share(tp, tp + fp);
  const double recall = tp + fn == 0 ? 0.0 : share(tp, tp + fn);
  double score = f_beta(precision, recall, beta);
  if (mode == FactualMode::kPrecision) score = precision;
  if (mode == FactualMode::kRecall) score = recall;
  MetricResult result = MetricResult::ok(score);
  result.evidence = {{"tp", tp}, {"fp", fp}};
  if (mode != FactualMode::kPrecision) result.evidence["fn"] = fn;
  if (mode == FactualMode::kF1) result.evidence["beta"] = beta;
  result.evidence["claims"] = claims_evidence(response_vs_reference(ledger));
  if (mode != FactualMode::kPrecision) {
    result.evidence["reference_claims"] = claims_evidence(reference_vs_response(ledger));
  }
  return result;
}

// ---- RAGChecker table -------------------------------------------------------------

struct RagcheckerEntry {
  RagcheckerMetric metric;
  const char* name;
};

constexpr std::array<RagcheckerEntry, 11> kRagcheckerMetrics = {{
    {RagcheckerMetric::kPrecision, "precision"},
    {RagcheckerMetric::kRecall, "recall"},
    {RagcheckerMetric::kF1, "f1"},
    {RagcheckerMetric::kClaimRecall, "claim_recall"},
    {RagcheckerMetric::kContextPrecision, "context_precision"},
    {RagcheckerMetric::kContextUtilization, "context_utilization"},
    {RagcheckerMetric::kNoiseSensitivityInRelevant, "noise_sensitivity_in_relevant"},
    {RagcheckerMetric::kNoiseSensitivityInIrrelevant, "noise_sensitivity_in_irrelevant"},
    {RagcheckerMetric::kHallucination, "hallucination"},
    {RagcheckerMetric::kSelfKnowledge, "self_knowledge"},
    {RagcheckerMetric::kFaithfulness, "faithfulness"},
}};

constexpr std::array<RagcheckerMetric, 11> ragchecker_order() {
  std::array<RagcheckerMetric, 11> order{};
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = kRagcheckerMetrics[i].metric;
  return order;
}

constexpr std::array<RagcheckerMetric, 11> kRagcheckerOrder = ragchecker_order();

MetricResult compute_ragchecker(const ClaimLedger& ledger, RagcheckerMetric metric,
                                EmptyInput policy) {
  switch (metric) {
    case RagcheckerMetric::kPrecision:
      return supported_share(ledger, response_vs_reference(ledger), policy);
    case RagcheckerMetric::kRecall:
      return supported_share(ledger, reference_vs_response(ledger), policy);
    case RagcheckerMetric::kF1:
      return ragchecker_f1(ledger, policy);
    case RagcheckerMetric::kClaimRecall:
      return supported_share(ledger, reference_vs_chunks(ledger), policy);
    case RagcheckerMetric::kContextPrecision:
      return useful_chunk_share(ledger, policy);
    case RagcheckerMetric::kContextUtilization:
      return recalled_claims_used(ledger, policy);
    case RagcheckerMetric::kNoiseSensitivityInRelevant:
      return noise_sensitivity(ledger, NoiseMode::kRelevant, policy);
    case RagcheckerMetric::kNoiseSensitivityInIrrelevant:
      return noise_sensitivity(ledger, NoiseMode::kIrrelevant, policy);
    case RagcheckerMetric::kHallucination:
      return unfaithful_share(ledger, false, policy);
    case RagcheckerMetric::kSelfKnowledge:
      return unfaithful_share(ledger, true, policy);
    case RagcheckerMetric::kFaithfulness:
      return supported_share(ledger, response_vs_chunks(ledger), policy);
  }
  return MetricResult::failed("unknown RAGChecker metric");
}

}  // namespace

MetricResult ledger_faithfulness(const ClaimLedger& ledger) {
  if (auto stop = require_valid(ledger)) return *stop;
  return supported_share(ledger, response_vs_chunks(ledger), EmptyInput::kSkip);
}

MetricResult ledger_context_recall(const ClaimLedger& ledger) {
  if (auto stop = require_valid(ledger)) return *stop;
  return supported_share(ledger, reference_vs_chunks(ledger), EmptyInput::kSkip);
}

MetricResult ledger_context_precision(const ClaimLedger& ledger) {
  if (auto stop = require_valid(ledger)) return *stop;
  return rank_weighted_precision(ledger, reference_vs_chunks(ledger));
}

MetricResult ledger_context_utilization(const ClaimLedger& ledger) {
  if (auto stop = require_valid(ledger)) return *stop;
  return rank_weighted_precision(ledger, response_vs_chunks(ledger));
}

MetricResult ledger_noise_sensitivity(const ClaimLedger& ledger, NoiseMode mode) {
  if (auto stop = require_valid(ledger)) return *stop;
  return noise_sensitivity(ledger, mode, EmptyInput::kSkip);
}

MetricResult ledger_factual_correctness(const ClaimLedger& ledger, FactualMode mode,
                                        const LedgerMetricOptions& options) {
  if (auto stop = require_valid(ledger)) return *stop;
  return factual_correctness(ledger, mode, options.beta);
}

std::span<const RagcheckerMetric> ragchecker_metrics() { return kRagcheckerOrder; }

const char* ragchecker_metric_name(RagcheckerMetric metric) {
  for (const RagcheckerEntry& entry : kRagcheckerMetrics) {
    if (entry.metric == metric) return entry.name;
  }
  return "unknown";
}

MetricResult ragchecker_metric(const ClaimLedger& ledger, RagcheckerMetric metric,
                               const LedgerMetricOptions& options) {
  if (auto stop = require_valid(ledger)) return *stop;
  return compute_ragchecker(
      ledger, metric, options.ragchecker_empty_as_zero ? EmptyInput::kZero : EmptyInput::kSkip);
}

}  // namespace ragmeter
