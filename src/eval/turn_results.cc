// A conversation's result from its turns' (turn_results.h).
#include "eval/turn_results.h"

#include <string>
#include <utility>

#include "ragmeter/repeats.h"

namespace ragmeter {
namespace {

std::string turn_reason(const ConversationTurn& turn, const std::string& reason) {
  return "turn " + std::to_string(turn.number) + ": " + reason;
}

nlohmann::ordered_json turn_entry(const ConversationTurn& turn, const MetricResult& result) {
  nlohmann::ordered_json entry = {{"turn", turn.number},
                                  {"message", turn.message},
                                  {"status", outcome_name(result.outcome)}};
  if (result.outcome == Outcome::kOk) {
    entry["score"] = result.score;
  } else {
    entry["reason"] = result.reason;
  }
  if (!result.evidence.is_null()) entry["evidence"] = result.evidence;
  return entry;
}

// The per-repeat mean of the scored turns' repeat scores, or empty when a scored turn was
// judged once or lacks a repeat's score.
std::vector<std::optional<double>> repeat_means(const std::vector<const MetricResult*>& scored) {
  const std::size_t k = scored.front()->repeat_scores.size();
  if (k == 0) return {};
  std::vector<double> sums(k, 0.0);
  for (const MetricResult* r : scored) {
    if (r->repeat_scores.size() != k) return {};
    for (std::size_t i = 0; i < k; ++i) {
      if (!r->repeat_scores[i]) return {};
      sums[i] += *r->repeat_scores[i];
    }
  }
  std::vector<std::optional<double>> means;
  for (double sum : sums) means.push_back(sum / static_cast<double>(scored.size()));
  return means;
}

}  // namespace

MetricResult combine_turns(std::vector<MetricResult> per_turn,
                           const std::vector<ConversationTurn>& turns,
                           std::optional<double> mark, bool higher_is_better) {
  nlohmann::ordered_json entries = nlohmann::ordered_json::array();
  std::vector<const MetricResult*> scored;
  const MetricResult* first_failed = nullptr;
  std::size_t first_failed_turn = 0;
  for (std::size_t i = 0; i < per_turn.size(); ++i) {
    entries.push_back(turn_entry(turns[i], per_turn[i]));
    if (per_turn[i].outcome == Outcome::kOk) scored.push_back(&per_turn[i]);
    if (per_turn[i].outcome == Outcome::kFailed && first_failed == nullptr) {
      first_failed = &per_turn[i];
      first_failed_turn = i;
    }
  }
  const nlohmann::ordered_json evidence = {{"turns", std::move(entries)},
                                           {"scored_turns", scored.size()},
                                           {"turns_total", per_turn.size()}};
  MetricResult out;
  if (first_failed != nullptr) {
    out = MetricResult::failed(turn_reason(turns[first_failed_turn], first_failed->reason));
  } else if (scored.empty()) {
    bool same = true;
    for (const MetricResult& r : per_turn) same = same && r.reason == per_turn.front().reason;
    out = MetricResult::skipped(
        "no turn was scored: " +
        (same && per_turn.size() > 1 ? "every turn: " + per_turn.front().reason
                                     : turn_reason(turns.front(), per_turn.front().reason)));
  } else {
    double sum = 0.0;
    for (const MetricResult* r : scored) sum += r->score;
    out = MetricResult::ok(sum / static_cast<double>(scored.size()));
    for (const MetricResult* r : scored) {
      if (r->corpus_stats.empty()) continue;
      if (out.corpus_stats.empty()) out.corpus_stats.assign(r->corpus_stats.size(), 0.0);
      for (std::size_t i = 0; i < r->corpus_stats.size() && i < out.corpus_stats.size(); ++i) {
        out.corpus_stats[i] += r->corpus_stats[i];
      }
    }
    if (scored.size() < per_turn.size()) {
      out.note = kSomeTurnsSkippedNote;
    } else {
      for (const MetricResult* r : scored) {
        if (!r->note.empty()) {
          out.note = r->note;
          break;
        }
      }
    }
    out.repeat_scores = repeat_means(scored);
    if (mark && !out.repeat_scores.empty()) {
      std::vector<double> values;
      for (const auto& v : out.repeat_scores) values.push_back(*v);
      out.flaky = repeats_straddle(values, *mark, higher_is_better);
    }
  }
  out.evidence = evidence;
  return out;
}

}  // namespace ragmeter
