// ragas's topic adherence arithmetic (tool_metrics.h).
#include "ragmeter/tool_metrics.h"

namespace ragmeter {

double ragas_topic_adherence(const std::vector<bool>& answered, const std::vector<bool>& in_reference,
                             TopicAdherenceMode mode) {
  double tp = 0, fp = 0, fn = 0;
  for (std::size_t i = 0; i < answered.size() && i < in_reference.size(); ++i) {
    if (answered[i] && in_reference[i]) ++tp;
    if (answered[i] && !in_reference[i]) ++fp;
    if (!answered[i] && in_reference[i]) ++fn;
  }
  constexpr double kEps = 1e-10;  // ragas's
  const double precision = tp / (tp + fp + kEps);
  const double recall = tp / (tp + fn + kEps);
  switch (mode) {
    case TopicAdherenceMode::kPrecision: return precision;
    case TopicAdherenceMode::kRecall: return recall;
    case TopicAdherenceMode::kF1: break;
  }
  return 2 * (precision * recall) / (precision + recall + kEps);
}

}  // namespace ragmeter
