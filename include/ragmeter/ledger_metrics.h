// The judged metrics read off a claim ledger (claim_ledger.h): pure functions, no judge
// calls. Thread-safe; each returns a fresh MetricResult that owns its evidence.
//
// Supporting. Only an Entailment verdict supports a claim; Neutral and Contradiction
// do not (the evidence shows which). A claim is "supported by the chunks" when at least
// one chunk's verdict is Entailment.
//
// Gaps (missing verdicts). A missing cell never supports: a claim with some missing
// cells is supported only if another chunk supports it. A claim with no judged cell at
// all in a table the metric reads (or a chunk with no judged cell against any claim,
// for the metrics that ask which chunks are useful) makes the metric `failed`, with a
// reason listing them: nothing is silently dropped. The evidence lists missing cells.
//
// Edges. A metric is `skipped` when a set its formula reads is empty (no response
// claims, no reference claims, no chunks), with a reason naming it. An invalid ledger
// (validate_claim_ledger) is `failed`.
// Other 0/0 cases are scored as each function says.
//
// Evidence. A scored result's evidence has "claims": one entry per claim the metric
// reads, {"id", "claim", "verdict"} where verdict aggregates the claim's row:
// Entailment if any premise supports it, else Contradiction if any contradicts, else
// Neutral, else Missing. Supported claims list their supporting chunks ("chunks", ranks
// from 0); negative ones carry the judge's reasons ("reasons": [{"chunk", "verdict",
// "reason"}] against chunks, "reason" against a text) and any "missing_chunks". Each
// function adds the flags and counts its formula uses. A 0 scored for an empty input
// (ragchecker_empty_as_zero) has only {"empty_input": reason}.
#pragma once

#include <span>

#include "ragmeter/claim_ledger.h"
#include "ragmeter/metric.h"

namespace ragmeter {

struct LedgerMetricOptions {
  // factual_correctness's F-beta: beta > 1 weighs recall more, beta < 1 precision.
  // Must be finite and > 0 (else the metric is `failed`). Free to change.
  double beta = 1.0;
  // RAGChecker scores 0 where an input is empty (no claims, no chunks). By default
  // ragchecker_metric reports `skipped` there instead (a 0 would pull the mean down
  // for a sample that was never measured). true reproduces RAGChecker's means exactly
  // on data with such samples, at that cost. Affects ragchecker_metric only.
  bool ragchecker_empty_as_zero = false;
};

// ---- ragas's metrics, computed from the ledger (the compact plan) ---------------------

// faithfulness: share of response claims supported by at least one chunk.
// Skipped: no response claims; no chunks.
MetricResult ledger_faithfulness(const ClaimLedger& ledger);

// context_recall: share of reference claims supported by at least one chunk.
// Skipped: no reference claims; no chunks.
MetricResult ledger_context_recall(const ClaimLedger& ledger);

// context_precision: v_k = 1 when chunk k (rank k = 1..K) supports at least one
// reference claim; score = sum_k precision@k * v_k / sum_k v_k, with precision@k =
// (v_1 + ... + v_k) / k. 0 when no chunk is useful. ragas adds 1e-10 to the
// denominator (its perfect score is 0.9999999999); this does not.
// Evidence adds "useful" (a count) and "chunks": [{"chunk", "id", "useful", "supports":
// [claim indices]}], chunks and claims indexed from 0 in rank order.
// Skipped: no reference claims; no chunks.
MetricResult ledger_context_precision(const ClaimLedger& ledger);

// context_utilization: context_precision with the response claims in place of the
// reference claims. Skipped: no response claims; no chunks.
MetricResult ledger_context_utilization(const ClaimLedger& ledger);

// noise_sensitivity. A chunk is relevant when it supports at least one reference
// claim; a response claim is incorrect when the reference text does not support it
// (response_vs_reference). kRelevant: share of response claims that are incorrect and
// supported by a relevant chunk. kIrrelevant: incorrect, supported by an irrelevant
// chunk and by no relevant chunk. Lower is better. Same formula as RAGChecker's
// noise_sensitivity_in_relevant / _in_irrelevant (and ragas's two modes).
// Skipped: no response claims; no reference claims; no chunks.
enum class NoiseMode { kRelevant, kIrrelevant };
MetricResult ledger_noise_sensitivity(const ClaimLedger& ledger, NoiseMode mode);

// factual_correctness. TP = response claims the reference supports, FP = response
// claims it does not, FN = reference claims the response does not support.
//   precision = TP / (TP + FP)                     skipped when there are no response claims
//   recall    = TP / (TP + FN)                     skipped when there are no reference claims;
//                                                  0 when TP + FN = 0 (the judge says the
//                                                  response covers every reference claim yet
//                                                  the reference supports none of its claims)
//   f_beta    = (1 + b^2) P R / (b^2 P + R)        skipped when either side has no claims;
//                                                  0 when P = R = 0
// ragas smooths each denominator with a tiny epsilon; this does not.
// Evidence adds "tp", "fp"; unless kPrecision also "fn" and "reference_claims" (entries
// against the response); with kF1 "beta". "claims" are the response claims against
// the reference.
enum class FactualMode { kF1, kPrecision, kRecall };
MetricResult ledger_factual_correctness(const ClaimLedger& ledger, FactualMode mode,
                                        const LedgerMetricOptions& options = {});

// ---- RAGChecker's diagnostics (Ru et al., 2024) ----------------------------------------
//
// As RAGChecker's computation.py defines them, per sample (RAGChecker's overall
// figures are the means over samples, x100, rounded to one decimal). With A = response
// claims, R = reference claims, K = chunks:
//   precision            share of A entailed by the reference text (answer2response)
//   recall               share of R entailed by the response text (response2answer)
//   f1                   2 P R / (P + R) when P > 0 and R > 0, else 0
//   claim_recall         share of R entailed by at least one chunk
//   context_precision    share of chunks entailing at least one R claim (not ragas's
//                        rank-weighted context precision)
//   context_utilization  among R claims entailed by some chunk, the share the response
//                        also entails; 0 when no R claim is entailed by any chunk
//   noise_sensitivity_in_relevant / _in_irrelevant   ledger_noise_sensitivity
//   hallucination        share of A entailed by no chunk and not by the reference
//   self_knowledge       share of A entailed by no chunk but by the reference
//   faithfulness         share of A entailed by at least one chunk
// Lower is better for noise sensitivity and hallucination; self_knowledge is
// descriptive (RAGChecker reads it as "correct without the context").
// Skipped when a set the formula reads is empty, unless ragchecker_empty_as_zero.
enum class RagcheckerMetric {
  kPrecision,
  kRecall,
  kF1,
  kClaimRecall,
  kContextPrecision,
  kContextUtilization,
  kNoiseSensitivityInRelevant,
  kNoiseSensitivityInIrrelevant,
  kHallucination,
  kSelfKnowledge,
  kFaithfulness,
};

// All eleven, in the order above.
std::span<const RagcheckerMetric> ragchecker_metrics();

// RAGChecker's key for `metric`: "precision", ..., "noise_sensitivity_in_relevant", ...
const char* ragchecker_metric_name(RagcheckerMetric metric);

MetricResult ragchecker_metric(const ClaimLedger& ledger, RagcheckerMetric metric,
                               const LedgerMetricOptions& options = {});

}  // namespace ragmeter
