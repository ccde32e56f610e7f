// The multimodal metrics (docs/images.md):
//
//   multimodal_faithfulness, multimodal_relevance   ragas 0.4 (metrics/collections/
//       multi_modal_faithfulness, multi_modal_relevance): one vision call over the response
//       (and the question), the text contexts and the images; 1 when the judge says
//       faithful / relevant, else 0, with its reason. Needs a vision model.
//   multimodal_claim_faithfulness     faithfulness on the multimodal ledger: the share of
//       the response's claims supported by some text context or image.
//   multimodal_context_recall         context_recall on it: reference claims.
//   multimodal_context_utilization    context_utilization on it: rank-weighted precision of
//       the contexts, text and images, that support a response claim.
// On a sample without images the three claim-level metrics read the text ledger itself,
// so they equal faithfulness, context_recall and context_utilization.
#include "metrics/adapters.h"
#include "metrics/judged_evidence.h"
#include "ragmeter/judge.h"
#include "ragmeter/judge_tasks.h"
#include "ragmeter/ledger_metrics.h"
#include "ragmeter/ocr.h"
#include "ragmeter/offline_judge.h"

namespace ragmeter::adapters {
namespace {

using Json = nlohmann::ordered_json;

// An image that could not be read: `skipped` when the run does not allow its source
// (a file without --media-root, a URL without --allow-media-urls), else `failed`.
MetricResult image_problem(const Status& status) {
  if (status.code() == StatusCode::kFailedPrecondition) return MetricResult::skipped(status.message());
  return MetricResult::failed(status.message());
}

// The indices of the claims a chunk supports, in one table.
Json supported_claims(const VerdictTable& table, std::size_t chunk) {
  Json claims = Json::array();
  for (std::size_t row = 0; row < table.rows(); ++row) {
    if (table.at(row, chunk).supports()) claims.push_back(row);
  }
  return claims;
}

// Each image of the ledger: where it is, what it is, which claims it supports, a
// thumbnail for the report, and the text read in it (OCR) when that is how it was read.
Json image_evidence(SampleJudgement& j, const ClaimLedger& ledger, bool reference_claims) {
  Json images = Json::array();
  const auto& read = j.images();
  if (!read.ok()) return images;
  const std::string language = offline_sample_language(j.sample());
  for (std::size_t k = 0; k < ledger.chunks.size(); ++k) {
    const Chunk& chunk = ledger.chunks[k];
    if (chunk.image.empty()) continue;
    Json entry = {{"chunk", k}, {"image", chunk.image}};
    for (const SampleImage& image : *read) {
      if (image.image.sha256 != chunk.image) continue;
      entry["rank"] = image.rank;
      entry["format"] = image_mime_type(image.image.format);
      entry["width"] = image.image.width;
      entry["height"] = image.image.height;
      for (const RetrievedImage& ref : j.sample().retrieved_images) {
        if (ref.rank == image.rank) entry["source"] = describe_image_ref(ref.ref);
      }
      const std::string thumbnail = image_thumbnail(image.image);
      if (!thumbnail.empty()) entry["thumbnail"] = thumbnail;
      if (ledger.provenance.judge == "offline" || !chunk.text.empty()) {
        auto ocr = j.ocr().read(image.image, language);
        if (ocr.ok()) entry["ocr"] = ocr->to_json();
      }
      break;
    }
    entry["supports"] = supported_claims(reference_claims ? ledger.reference_vs_chunks
                                                          : ledger.response_vs_chunks,
                                         k);
    images.push_back(std::move(entry));
  }
  return images;
}

template <typename Read>
MetricResult from_multimodal_ledger(SampleJudgement& j, bool response, bool reference,
                                    Read read) {
  const Sample& s = j.sample();
  if (!s.retrieved_images.empty() && !j.images().ok()) return image_problem(j.images().status());
  const auto& ledger = j.multimodal_ledger();
  const CallLog& calls = s.retrieved_images.empty() ? j.ledger_calls() : j.multimodal_calls();
  if (!ledger.ok()) {
    return with_calls(MetricResult::failed("judge: " + ledger.status().message()), calls);
  }
  MetricResult result = with_warnings(read(*ledger), ledger->warnings);
  if (result.outcome == Outcome::kOk && !s.retrieved_images.empty()) {
    result.evidence["images"] = image_evidence(j, *ledger, reference && !response);
  }
  return with_calls(std::move(result), calls);
}

MetricResult one_call(SampleJudgement& j, MultimodalQuestion question) {
  const Sample& s = j.sample();
  const auto& read = j.images();
  if (!read.ok()) return image_problem(read.status());
  CallLog calls;
  auto verdict = ask_multimodal_verdict(j.judge(), s, *read, question, &calls);
  if (!verdict.ok()) {
    if (verdict.status().code() == StatusCode::kFailedPrecondition) {
      return MetricResult::skipped(verdict.status().message());
    }
    return with_calls(MetricResult::failed("judge: " + verdict.status().message()), calls);
  }
  MetricResult result = MetricResult::ok(verdict->verdict ? 1.0 : 0.0);
  result.evidence["verdict"] = verdict->verdict;
  if (!verdict->reason.empty()) result.evidence["reason"] = verdict->reason;
  result.evidence["images"] = read->size();
  if (!verdict->warning.empty()) result = with_warnings(std::move(result), {verdict->warning});
  return with_calls(std::move(result), calls);
}

}  // namespace

MetricResult multimodal_faithfulness(SampleJudgement& j, const MetricRequest&, const ScoringOptions&) {
  return one_call(j, MultimodalQuestion::kFaithfulness);
}

MetricResult multimodal_relevance(SampleJudgement& j, const MetricRequest&, const ScoringOptions&) {
  return one_call(j, MultimodalQuestion::kRelevance);
}

MetricResult multimodal_claim_faithfulness(SampleJudgement& j, const MetricRequest&,
                                           const ScoringOptions&) {
  return from_multimodal_ledger(j, true, false, ledger_faithfulness);
}

MetricResult multimodal_context_recall(SampleJudgement& j, const MetricRequest&,
                                       const ScoringOptions&) {
  return from_multimodal_ledger(j, false, true, ledger_context_recall);
}

MetricResult multimodal_context_utilization(SampleJudgement& j, const MetricRequest&,
                                            const ScoringOptions&) {
  return from_multimodal_ledger(j, true, false, ledger_context_utilization);
}

}  // namespace ragmeter::adapters
