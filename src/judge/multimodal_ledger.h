// Building a multimodal claim ledger from a text one (judge.h). Internal to src/judge/.
#pragma once

#include <vector>

#include "ragmeter/claim_ledger.h"
#include "ragmeter/judge.h"

namespace ragmeter {

// `text` (a ledger over the sample's text contexts, in their order) with one chunk per
// image inserted at the image's rank (images in rank order; a rank past the end goes
// last), Chunk::image set, and the images' verdicts as their columns:
// response_cells[i][c] is image i against response claim c, reference_cells[i][c]
// against reference claim c (each as long as the ledger's claims).
ClaimLedger ledger_with_images(const ClaimLedger& text, const std::vector<SampleImage>& images,
                               const std::vector<std::vector<VerdictCell>>& response_cells,
                               const std::vector<std::vector<VerdictCell>>& reference_cells);

}  // namespace ragmeter
