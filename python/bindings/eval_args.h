// The keyword arguments of ragmeter._core.evaluate as one struct, the library's
// EvalOptions they make, and the JudgeOptions of the glue's judge dict
// (evaluate_binding.cc). The Ray path (cluster_binding.cc) makes its judges and its
// summary builder's options the same way, so both agree on the judge, the metrics, the
// scoring and the bootstrap settings.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>

#include "ragmeter/evaluate.h"
#include "ragmeter/image.h"
#include "ragmeter/judge_factory.h"

namespace ragmeter::python {

struct EvalArgs {
  std::string metrics = "all";
  bool metrics_given = false;
  std::vector<std::string> critics;
  int critic_votes = 1;
  std::map<std::string, std::string> column_map;
  int threads = 1;
  std::int64_t limit = 0;
  bool strict = false;
  std::uint64_t seed = 42;
  int bootstrap_resamples = 1000;
  bool rouge_stem = false;
  std::string rouge_tokenizer = "default";
  std::string bleu_smoothing = "exp";
  std::string bleu_tokenize = "13a";
  double context_match_threshold = 0.5;
  bool keep_evidence = true;
  bool offline_score_withdrawn = false;
  int repeat = 1;                   // EvalOptions::repeat
  double repeat_temperature = 0.7;  // EvalOptions::repeat_temperature
  // Images among the contexts (image.h, ocr.h): --media-root, --allow-media-urls,
  // --max-image-bytes, --ocr-language.
  std::string media_root;
  bool allow_media_urls = false;
  std::size_t max_image_bytes = MediaOptions{}.max_bytes;
  std::string ocr_language;
  std::string language;  // every sample's language; empty or "auto": each row's, detected
};

// Checks the arguments and builds the options, without the judge (apply_judge adds it);
// raises InvalidArgumentError (a Python exception) for a bad value. Needs the GIL.
EvalOptions build_options(const EvalArgs& args);

// JudgeOptions (judge_factory.h) from the glue's dict of its field names
// (ragmeter/_judges.py: judge_options). An unknown key is a bug of the glue (raises).
// Needs the GIL.
JudgeOptions judge_options_from(const nanobind::dict& fields);

}  // namespace ragmeter::python
