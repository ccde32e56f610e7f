// Images in the judgement of a sample (judge.h): reading them once per sample and the
// default multimodal ledger (each image's OCR text judged as a text chunk).
#include "judge/multimodal_ledger.h"
#include "ragmeter/judge.h"
#include "ragmeter/ocr.h"
#include "ragmeter/offline_judge.h"

namespace ragmeter {
namespace {

OcrReader& default_ocr() {
  static const std::shared_ptr<OcrReader> reader = make_tesseract_reader();
  return *reader;
}

// The sample with each image replaced by the text read in it, at its rank (images are
// in rank order; a rank past the list's end puts the image after the texts), and where
// each image's chunk is.
struct MergedSample {
  Sample sample;
  std::vector<std::size_t> image_positions;
};

StatusOr<MergedSample> sample_with_image_text(const Sample& sample,
                                              const std::vector<SampleImage>& images, OcrReader& ocr) {
  const std::string language = offline_sample_language(sample);
  const std::vector<std::string> none;
  const auto& texts = sample.retrieved_contexts ? *sample.retrieved_contexts : none;
  std::vector<std::string> merged;
  MergedSample out;
  std::size_t next_text = 0;
  for (std::size_t next_image = 0; next_text < texts.size() || next_image < images.size();) {
    const bool image_here = next_image < images.size() &&
                            (images[next_image].rank <= merged.size() || next_text == texts.size());
    if (!image_here) {
      merged.push_back(texts[next_text++]);
      continue;
    }
    const SampleImage& image = images[next_image++];
    auto read = ocr.read(image.image, language);
    if (!read.ok()) {
      return Status(read.status().code(),
                    "image context " + std::to_string(image.rank + 1) + ": " + read.status().message());
    }
    out.image_positions.push_back(merged.size());
    merged.push_back(read->text());
  }
  out.sample = sample;
  out.sample.retrieved_contexts = std::move(merged);
  out.sample.retrieved_images.clear();
  out.sample.retrieved_context_ids.reset();  // they name the row's items, not these chunks
  return out;
}

}  // namespace

StatusOr<ClaimLedger> Judge::multimodal_claim_ledger(const Sample& sample,
                                                     const std::vector<SampleImage>& images,
                                                     OcrReader& ocr, CallLog* calls) {
  if (images.empty()) return claim_ledger(sample, calls);
  RAGMETER_ASSIGN_OR_RETURN(MergedSample merged, sample_with_image_text(sample, images, ocr));
  RAGMETER_ASSIGN_OR_RETURN(ClaimLedger ledger, claim_ledger(merged.sample, calls));
  for (std::size_t i = 0; i < images.size(); ++i) {
    const std::size_t at = merged.image_positions[i];
    if (at < ledger.chunks.size()) ledger.chunks[at].image = images[i].image.sha256;
  }
  return ledger;
}

const StatusOr<std::vector<SampleImage>>& SampleJudgement::images() {
  if (images_) return *images_;
  static const MediaOptions kDefaults;
  const MediaOptions& media = access_.media != nullptr ? *access_.media : kDefaults;
  std::vector<SampleImage> read;
  read.reserve(sample_.retrieved_images.size());
  for (const RetrievedImage& image : sample_.retrieved_images) {
    auto loaded = load_image(image.ref, media);
    if (!loaded.ok()) {
      images_.emplace(Status(loaded.status().code(), "image context " + std::to_string(image.rank + 1) +
                                                         ": " + loaded.status().message()));
      return *images_;
    }
    read.push_back({image.rank, std::move(loaded).value()});
  }
  images_.emplace(std::move(read));
  return *images_;
}

OcrReader& SampleJudgement::ocr() { return access_.ocr != nullptr ? *access_.ocr : default_ocr(); }

const StatusOr<ClaimLedger>& SampleJudgement::multimodal_ledger() {
  if (sample_.retrieved_images.empty()) return ledger();
  if (multimodal_ledger_) return *multimodal_ledger_;
  const auto& read = images();
  if (!read.ok()) {
    multimodal_ledger_.emplace(read.status());
  } else {
    multimodal_ledger_.emplace(judge_.multimodal_claim_ledger(sample_, *read, ocr(), &multimodal_calls_));
  }
  return *multimodal_ledger_;
}

ClaimLedger ledger_with_images(const ClaimLedger& text, const std::vector<SampleImage>& images,
                               const std::vector<std::vector<VerdictCell>>& response_cells,
                               const std::vector<std::vector<VerdictCell>>& reference_cells) {
  // Where each chunk of the result comes from: a text chunk's index, or an image's (tagged).
  struct Source {
    bool image;
    std::size_t index;
  };
  std::vector<Source> order;
  std::size_t next_text = 0;
  for (std::size_t next_image = 0; next_text < text.chunks.size() || next_image < images.size();) {
    const bool image_here = next_image < images.size() &&
                            (images[next_image].rank <= order.size() || next_text == text.chunks.size());
    order.push_back(image_here ? Source{true, next_image++} : Source{false, next_text++});
  }
  ClaimLedger out;
  out.response_claims = text.response_claims;
  out.reference_claims = text.reference_claims;
  out.response_vs_reference = text.response_vs_reference;
  out.reference_vs_response = text.reference_vs_response;
  out.provenance = text.provenance;
  out.warnings = text.warnings;
  out.response_vs_chunks = VerdictTable(text.response_claims.size(), order.size());
  out.reference_vs_chunks = VerdictTable(text.reference_claims.size(), order.size());
  for (std::size_t k = 0; k < order.size(); ++k) {
    const Source& source = order[k];
    if (source.image) {
      Chunk chunk = make_chunk("");
      chunk.image = images[source.index].image.sha256;
      out.chunks.push_back(std::move(chunk));
    } else {
      out.chunks.push_back(text.chunks[source.index]);
    }
    for (std::size_t c = 0; c < text.response_claims.size(); ++c) {
      out.response_vs_chunks.at(c, k) = source.image ? response_cells[source.index][c]
                                                     : text.response_vs_chunks.at(c, source.index);
    }
    for (std::size_t c = 0; c < text.reference_claims.size(); ++c) {
      out.reference_vs_chunks.at(c, k) = source.image ? reference_cells[source.index][c]
                                                      : text.reference_vs_chunks.at(c, source.index);
    }
  }
  return out;
}

}  // namespace ragmeter
