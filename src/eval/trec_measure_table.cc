// trec_eval's measure table (its measures.c order, defaults and summaries) and the
// parsing of `-m` selections: "name", "name.params", or a set name.
#include "eval/trec_measure_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace ragmeter::trec {
namespace {

constexpr std::string_view kRankCutoffs = "5,10,15,20,30,100,200,500,1000";
constexpr std::string_view kRecallLevels = "0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0";

void put(std::span<double> out, double value) { out[0] = value; }

// A measure with one value per cutoff, computed by `fn(ranking, cutoff)`.
template <double (*Fn)(const TrecJudgedRanking&, long)>
void per_cutoff(const QueryContext& q, const Params& p, std::span<double> out) {
  for (std::size_t c = 0; c < p.cutoffs.size(); ++c) out[c] = Fn(q.ranking, p.cutoffs[c]);
}

template <double (*Fn)(const TrecJudgedRanking&)>
void single(const QueryContext& q, const Params&, std::span<double> out) {
  put(out, Fn(q.ranking));
}

template <double (*Fn)(const TrecJudgedRanking&, std::span<const TrecGain>)>
void with_gains(const QueryContext& q, const Params& p, std::span<double> out) {
  put(out, Fn(q.ranking, trec_gains(q.ranking, p.gains)));
}

void copy_values(const std::vector<double>& values, std::span<double> out) {
  std::copy(values.begin(), values.end(), out.begin());
}

TrecRecallCutoff recall_cutoff(const QueryContext& q) {
  return q.options.version == TrecEvalVersion::k9 ? TrecRecallCutoff::kPlusNineTenths
                                                  : TrecRecallCutoff::kRounded;
}

// rbp's persistence: the last "p=" parameter (trec_eval reads them all), else 0.9.
double persistence(const Params& p) {
  double value = 0.9;
  for (const auto& [name, number] : p.named) {
    if (name == "p") value = number;
  }
  return value;
}

// rbp's gain overrides: the parameters named by an integer level ("rbp.2=0.5").
std::vector<std::pair<long, double>> level_gains(const Params& p) {
  std::vector<std::pair<long, double>> gains;
  for (const auto& [name, number] : p.named) {
    char* end = nullptr;
    const long level = std::strtol(name.c_str(), &end, 10);
    if (!name.empty() && end == name.c_str() + name.size()) gains.emplace_back(level, number);
  }
  return gains;
}

constexpr auto kV10 = TrecEvalVersion::k10;
constexpr auto kV9 = TrecEvalVersion::k9;
constexpr auto kJg = RelInput::kQrelsJg;
constexpr auto kPref = RelInput::kPrefs;

template <long (*Fn)(const TrecPrefCounts&)>
void pref_count(const QueryContext& q, const Params&, std::span<double> out) {
  put(out, static_cast<double>(Fn(*q.prefs)));
}

template <double (*Fn)(const TrecPrefCounts&, TrecPrefScope), TrecPrefScope Scope>
void pref_ratio(const QueryContext& q, const Params&, std::span<double> out) {
  put(out, Fn(*q.prefs, Scope));
}

constexpr auto kAllPrefs = TrecPrefScope::kAll;
constexpr auto kRetPrefs = TrecPrefScope::kRetrieved;
constexpr auto kImpPrefs = TrecPrefScope::kImplied;
constexpr auto kAnyInput = RelInput::kAny;

constexpr auto kReal = TrecValueKind::kReal;
constexpr auto kCount = TrecValueKind::kCount;
constexpr auto kText = TrecValueKind::kText;

// clang-format off
constexpr std::array kMeasures = {
  MeasureDef{"runid", ParamKind::kNone, "", Summary::kRunId, false, kText,
             [](const QueryContext&, const Params&, std::span<double>) {}, kV9, true, kAnyInput},
  MeasureDef{"num_q", ParamKind::kNone, "", Summary::kQueries, false, kCount,
             [](const QueryContext&, const Params&, std::span<double> out) { put(out, 1); },
             kV9, true, kAnyInput},
  MeasureDef{"num_ret", ParamKind::kNone, "", Summary::kSum, true, kCount,
             [](const QueryContext& q, const Params&, std::span<double> out) {
               put(out, static_cast<double>(q.ranking.num_ret())); }},
  MeasureDef{"num_rel", ParamKind::kNone, "", Summary::kSum, true, kCount,
             [](const QueryContext& q, const Params&, std::span<double> out) {
               put(out, static_cast<double>(q.ranking.num_rel)); }},
  MeasureDef{"num_rel_ret", ParamKind::kNone, "", Summary::kSum, true, kCount,
             [](const QueryContext& q, const Params&, std::span<double> out) {
               put(out, static_cast<double>(q.ranking.num_rel_ret)); }},
  MeasureDef{"map", ParamKind::kNone, "", Summary::kMean, true, kReal,
             single<trec_average_precision>},
  MeasureDef{"gm_map", ParamKind::kNone, "", Summary::kGeometric, false, kReal,
             single<trec_log_average_precision>},
  MeasureDef{"Rprec", ParamKind::kNone, "", Summary::kMean, true, kReal,
             single<trec_r_precision>},
  MeasureDef{"bpref", ParamKind::kNone, "", Summary::kMean, true, kReal, single<trec_bpref>},
  MeasureDef{"recip_rank", ParamKind::kNone, "", Summary::kMean, true, kReal,
             single<trec_reciprocal_rank>},
  MeasureDef{"iprec_at_recall", ParamKind::kDoubleCutoffs, kRecallLevels, Summary::kMean, true,
             kReal, [](const QueryContext& q, const Params& p, std::span<double> out) {
               copy_values(trec_interpolated_precision(q.ranking, p.numbers, recall_cutoff(q)),
                           out); }},
  MeasureDef{"P", ParamKind::kLongCutoffs, kRankCutoffs, Summary::kMean, true, kReal,
             per_cutoff<trec_precision_at>},
  MeasureDef{"relstring", ParamKind::kDoubles, "10", Summary::kNone, true, kText,
             [](const QueryContext&, const Params&, std::span<double>) {}},
  MeasureDef{"recall", ParamKind::kLongCutoffs, kRankCutoffs, Summary::kMean, true, kReal,
             per_cutoff<trec_recall_at>},
  MeasureDef{"infAP", ParamKind::kNone, "", Summary::kMean, true, kReal,
             single<trec_inferred_ap>},
  MeasureDef{"gm_bpref", ParamKind::kNone, "", Summary::kGeometric, false, kReal,
             single<trec_log_bpref>},
  MeasureDef{"Rprec_mult", ParamKind::kDoubleCutoffs, "0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0",
             Summary::kMean, true, kReal,
             [](const QueryContext& q, const Params& p, std::span<double> out) {
               copy_values(trec_r_precision_multiples(q.ranking, p.numbers), out); }},
  MeasureDef{"utility", ParamKind::kDoubles, "1.0,-1.0,0.0,0.0", Summary::kMean, true, kReal,
             [](const QueryContext& q, const Params& p, std::span<double> out) {
               put(out, trec_utility(q.ranking, p.numbers, q.options.num_docs_in_collection)); }},
  MeasureDef{"11pt_avg", ParamKind::kDoubles, kRecallLevels, Summary::kMean, true, kReal,
             [](const QueryContext& q, const Params& p, std::span<double> out) {
               put(out, trec_11pt_average(q.ranking, p.numbers, recall_cutoff(q))); }},
  MeasureDef{"binG", ParamKind::kNone, "", Summary::kMean, true, kReal, single<trec_binary_g>},
  MeasureDef{"G", ParamKind::kGains, "", Summary::kMean, true, kReal, with_gains<trec_g>},
  MeasureDef{"ndcg", ParamKind::kGains, "", Summary::kMean, true, kReal,
             with_gains<trec_ndcg>},
  MeasureDef{"ndcg_rel", ParamKind::kGains, "", Summary::kMean, true, kReal,
             with_gains<trec_ndcg_rel>},
  MeasureDef{"Rndcg", ParamKind::kGains, "", Summary::kMean, true, kReal,
             with_gains<trec_r_ndcg>},
  MeasureDef{"ndcg_cut", ParamKind::kLongCutoffs, kRankCutoffs, Summary::kMean, true, kReal,
             per_cutoff<trec_ndcg_at>},
  MeasureDef{"map_cut", ParamKind::kLongCutoffs, kRankCutoffs, Summary::kMean, true, kReal,
             per_cutoff<trec_average_precision_at>},
  MeasureDef{"relative_P", ParamKind::kLongCutoffs, kRankCutoffs, Summary::kMean, true, kReal,
             per_cutoff<trec_relative_precision_at>},
  MeasureDef{"success", ParamKind::kLongCutoffs, "1,5,10", Summary::kMean, true, kReal,
             per_cutoff<trec_success_at>},
  MeasureDef{"set_P", ParamKind::kNone, "", Summary::kMean, true, kReal,
             single<trec_set_precision>},
  MeasureDef{"set_relative_P", ParamKind::kNone, "", Summary::kMean, true, kReal,
             single<trec_set_relative_precision>},
  MeasureDef{"set_recall", ParamKind::kNone, "", Summary::kMean, true, kReal,
             single<trec_set_recall>},
  MeasureDef{"set_map", ParamKind::kNone, "", Summary::kMean, true, kReal,
             single<trec_set_map>},
  MeasureDef{"set_F", ParamKind::kDoubles, "1.0", Summary::kMean, true, kReal,
             [](const QueryContext& q, const Params& p, std::span<double> out) {
               put(out, trec_set_f(q.ranking, p.numbers.front())); }},
  MeasureDef{"num_nonrel_judged_ret", ParamKind::kNone, "", Summary::kSum, true, kCount,
             [](const QueryContext& q, const Params&, std::span<double> out) {
               put(out, static_cast<double>(trec_num_nonrel_judged_ret(q.ranking))); }},
  MeasureDef{"prefs_num_prefs_poss", ParamKind::kNone, "", Summary::kSum, true, kCount,
             pref_count<trec_prefs_num_possible>, kV9, false, kPref},
  MeasureDef{"prefs_num_prefs_ful", ParamKind::kNone, "", Summary::kSum, true, kCount,
             pref_count<trec_prefs_num_fulfilled>, kV9, false, kPref},
  MeasureDef{"prefs_num_prefs_ful_ret", ParamKind::kNone, "", Summary::kSum, true, kCount,
             pref_count<trec_prefs_num_fulfilled_ret>, kV9, false, kPref},
  MeasureDef{"prefs_simp", ParamKind::kNone, "", Summary::kMean, true, kReal,
             pref_ratio<trec_prefs_simple, kAllPrefs>, kV9, false, kPref},
  MeasureDef{"prefs_pair", ParamKind::kNone, "", Summary::kMean, true, kReal,
             pref_ratio<trec_prefs_pair, kAllPrefs>, kV9, false, kPref},
  MeasureDef{"prefs_avgjg", ParamKind::kNone, "", Summary::kMean, true, kReal,
             pref_ratio<trec_prefs_avg_groups, kAllPrefs>, kV9, false, kPref},
  MeasureDef{"prefs_avgjg_Rnonrel", ParamKind::kNone, "", Summary::kMean, true, kReal,
             pref_ratio<trec_prefs_avg_groups_rnonrel, kAllPrefs>, kV9, false, kPref},
  MeasureDef{"prefs_simp_ret", ParamKind::kNone, "", Summary::kMean, true, kReal,
             pref_ratio<trec_prefs_simple, kRetPrefs>, kV9, false, kPref},
  MeasureDef{"prefs_pair_ret", ParamKind::kNone, "", Summary::kMean, true, kReal,
             pref_ratio<trec_prefs_pair, kRetPrefs>, kV9, false, kPref},
  MeasureDef{"prefs_avgjg_ret", ParamKind::kNone, "", Summary::kMean, true, kReal,
             pref_ratio<trec_prefs_avg_groups, kRetPrefs>, kV9, false, kPref},
  MeasureDef{"prefs_avgjg_Rnonrel_ret", ParamKind::kNone, "", Summary::kMean, true, kReal,
             pref_ratio<trec_prefs_avg_groups_rnonrel, kRetPrefs>, kV9, false, kPref},
  MeasureDef{"prefs_simp_imp", ParamKind::kNone, "", Summary::kMean, true, kReal,
             pref_ratio<trec_prefs_simple, kImpPrefs>, kV9, false, kPref},
  MeasureDef{"prefs_pair_imp", ParamKind::kNone, "", Summary::kMean, true, kReal,
             pref_ratio<trec_prefs_pair, kImpPrefs>, kV9, false, kPref},
  MeasureDef{"prefs_avgjg_imp", ParamKind::kNone, "", Summary::kMean, true, kReal,
             pref_ratio<trec_prefs_avg_groups, kImpPrefs>, kV9, false, kPref},
  MeasureDef{"map_avgjg", ParamKind::kNone, "", Summary::kMean, true, kReal,
             [](const QueryContext& q, const Params&, std::span<double> out) {
               put(out, trec_map_avgjg(q.groups)); }, kV9, false, kJg},
  MeasureDef{"P_avgjg", ParamKind::kLongCutoffs, kRankCutoffs, Summary::kMean, true, kReal,
             [](const QueryContext& q, const Params& p, std::span<double> out) {
               for (std::size_t c = 0; c < p.cutoffs.size(); ++c) {
                 out[c] = trec_precision_avgjg(q.groups, p.cutoffs[c]);
               } }, kV9, false, kJg},
  MeasureDef{"Rprec_mult_avgjg", ParamKind::kDoubleCutoffs,
             "0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0", Summary::kMean, true, kReal,
             [](const QueryContext& q, const Params& p, std::span<double> out) {
               copy_values(trec_r_precision_multiples_avgjg(q.groups, p.numbers), out); },
             kV9, false, kJg},
  MeasureDef{"yaap", ParamKind::kNone, "", Summary::kMean, true, kReal, single<trec_yaap>,
             kV9, false},
  MeasureDef{"rbp", ParamKind::kNamedValues, "", Summary::kMean, true, kReal,
             [](const QueryContext& q, const Params& p, std::span<double> out) {
               put(out, trec_rbp(q.ranking, persistence(p), level_gains(p))); }, kV10},
  MeasureDef{"rbp_resid", ParamKind::kNamedValues, "", Summary::kMean, true, kReal,
             [](const QueryContext& q, const Params& p, std::span<double> out) {
               put(out, trec_rbp_residual(q.ranking, persistence(p))); }, kV10},
  MeasureDef{"unj", ParamKind::kLongCutoffs, "5,10,20", Summary::kMean, true, kReal,
             per_cutoff<trec_unjudged_at>, kV10},
};
// clang-format on

// trec_eval's measure sets (its "nicknames"); all_trec is the whole table.
constexpr std::array<std::string_view, 12> kOfficial = {
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map",
    "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"};
constexpr std::array<std::string_view, 11> kSet = {
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility",
    "set_P", "set_recall", "set_relative_P", "set_map", "set_F"};
constexpr std::array<std::string_view, 5> kQrelsJgSet = {"runid", "num_q", "map_avgjg",
                                                         "P_avgjg", "Rprec_mult_avgjg"};
constexpr std::array<std::string_view, 16> kAllPrefsSet = {
    "runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
    "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret",
    "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp",
    "prefs_pair_imp", "prefs_avgjg_imp"};
constexpr std::array<std::string_view, 8> kPrefsSet = {
    "runid", "num_q", "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret",
    "prefs_simp", "prefs_pair", "prefs_avgjg"};

const MeasureDef* find_measure(std::string_view name, TrecEvalVersion version) {
  for (const MeasureDef& def : kMeasures) {
    if (def.name == name && measure_in(def, version)) return &def;
  }
  return nullptr;
}

std::vector<std::string_view> split_commas(std::string_view text) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    parts.push_back(text.substr(start, comma - start));
    if (comma == std::string_view::npos) return parts;
    start = comma + 1;
  }
}

bool parse_long(std::string_view text, long& value) {
  const std::string s(text);
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  value = std::strtol(s.c_str(), &end, 10);
  return errno == 0 && end == s.c_str() + s.size();
}

// A cutoff as trec_eval's atol reads it: an integer, or a decimal truncated toward 0
// ("23.4" is 23); anything else is refused rather than read as 0.
bool parse_cutoff(std::string_view text, long& value) {
  const std::size_t dot = text.find('.');
  if (dot != std::string_view::npos) {
    const std::string_view fraction = text.substr(dot + 1);
    if (fraction.empty() || fraction.find_first_not_of("0123456789") != std::string_view::npos) {
      return false;
    }
    text = text.substr(0, dot);
  }
  return parse_long(text, value);
}

bool parse_double(std::string_view text, double& value) {
  const std::string s(text);
  if (s.empty() || std::isspace(static_cast<unsigned char>(s.front()))) return false;
  char* end = nullptr;
  value = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(value);
}

Status bad(std::string_view measure, std::string_view params, std::string_view why) {
  return invalid_argument(fmt::format("measure '{}.{}': {}", measure, params, why));
}

// Parses `text` as `def`'s parameters into `params`.
Status parse_params(const MeasureDef& def, std::string_view text, Params& params) {
  const std::vector<std::string_view> parts = split_commas(text);
  switch (def.params) {
    case ParamKind::kNone:
      return bad(def.name, text, "this measure takes no parameters");
    case ParamKind::kLongCutoffs:
      for (const std::string_view part : parts) {
        long cutoff = 0;
        if (!parse_cutoff(part, cutoff) || cutoff <= 0) {
          return bad(def.name, text, fmt::format("cutoff '{}' is not a positive integer", part));
        }
        params.cutoffs.push_back(cutoff);
      }
      std::sort(params.cutoffs.begin(), params.cutoffs.end());
      if (std::adjacent_find(params.cutoffs.begin(), params.cutoffs.end()) !=
          params.cutoffs.end()) {
        return bad(def.name, text, "a cutoff is given twice");
      }
      return ok_status();
    case ParamKind::kDoubleCutoffs:
    case ParamKind::kDoubles:
      for (const std::string_view part : parts) {
        double number = 0;
        if (!parse_double(part, number)) {
          return bad(def.name, text, fmt::format("'{}' is not a number", part));
        }
        params.numbers.push_back(number);
      }
      if (def.params == ParamKind::kDoubleCutoffs) {
        std::sort(params.numbers.begin(), params.numbers.end());
        if (std::adjacent_find(params.numbers.begin(), params.numbers.end()) !=
            params.numbers.end()) {
          return bad(def.name, text, "a cutoff is given twice");
        }
      }
      if (def.name == "utility" && params.numbers.size() != 4) {
        return bad(def.name, text, "utility takes 4 coefficients (a,b,c,d)");
      }
      return ok_status();
    case ParamKind::kGains:
      for (const std::string_view part : parts) {
        const std::size_t equals = part.find('=');
        long level = 0;
        double gain = 0;
        if (equals == std::string_view::npos || !parse_long(part.substr(0, equals), level) ||
            !parse_double(part.substr(equals + 1), gain)) {
          return bad(def.name, text,
                     fmt::format("'{}' is not level=gain (e.g. ndcg.1=1,2=3)", part));
        }
        params.gains.emplace_back(level, gain);
      }
      return ok_status();
    case ParamKind::kNamedValues:
      for (const std::string_view part : parts) {
        const std::size_t equals = part.find('=');
        double number = 0;
        if (equals == std::string_view::npos || equals == 0 ||
            !parse_double(part.substr(equals + 1), number)) {
          return bad(def.name, text, fmt::format("'{}' is not name=value (e.g. rbp.p=0.95)", part));
        }
        params.named.emplace_back(part.substr(0, equals), number);
      }
      return ok_status();
  }
  return ok_status();
}

// The output names of `selected`'s values.
std::vector<std::string> value_names(const MeasureDef& def, const Params& params) {
  std::vector<std::string> names;
  switch (def.params) {
    case ParamKind::kLongCutoffs:
      for (const long cutoff : params.cutoffs) names.push_back(fmt::format("{}_{}", def.name, cutoff));
      break;
    case ParamKind::kDoubleCutoffs:
      for (const double cutoff : params.numbers) {
        names.push_back(fmt::format("{}_{:.2f}", def.name, cutoff));
      }
      break;
    default:
      // Parameters given on the command line become part of the name, as trec_eval does.
      names.push_back(params.text.empty() ? std::string(def.name)
                                          : fmt::format("{}_{}", def.name, params.text));
  }
  return names;
}

// Marks `name` (a measure or a set of `version`) in `marked`.
Status mark(std::string_view name, TrecEvalVersion version, std::vector<bool>& marked) {
  const auto mark_list = [&](auto names) {
    for (const std::string_view n : names) {
      marked[find_measure(n, version) - kMeasures.data()] = true;
    }
  };
  if (name == "official") {
    mark_list(kOfficial);
  } else if (name == "set") {
    mark_list(kSet);
  } else if (name == "qrels_jg") {
    mark_list(kQrelsJgSet);
  } else if (name == "all_prefs") {
    mark_list(kAllPrefsSet);
  } else if (name == "prefs") {
    mark_list(kPrefsSet);
  } else if (name == "all_trec") {
    for (std::size_t m = 0; m < kMeasures.size(); ++m) {
      if (kMeasures[m].all_trec && measure_in(kMeasures[m], version)) marked[m] = true;
    }
  } else if (const MeasureDef* def = find_measure(name, version)) {
    marked[def - kMeasures.data()] = true;
  } else if (find_measure(name, TrecEvalVersion::k10) != nullptr) {
    return invalid_argument(fmt::format(
        "measure '{}' is trec_eval 10's, not 9's (--trec-eval-version 10)", name));
  } else {
    return invalid_argument(fmt::format(
        "unknown measure '{}' (trec_eval's names, e.g. map, P.5,10, ndcg_cut.10; sets: "
        "official, all_trec, set, qrels_jg, all_prefs, prefs; `ragmeter ir --help` lists them)",
        name));
  }
  return ok_status();
}

}  // namespace

std::span<const MeasureDef> measure_table() { return kMeasures; }

bool measure_in(const MeasureDef& def, TrecEvalVersion version) {
  return static_cast<int>(def.since) <= static_cast<int>(version);
}

StatusOr<std::vector<Selected>> select_measures(const std::vector<std::string>& specs,
                                                TrecEvalVersion version) {
  std::vector<bool> marked(kMeasures.size(), false);
  std::vector<std::string> given_params(kMeasures.size());
  std::vector<bool> has_params(kMeasures.size(), false);
  const std::vector<std::string> official = {"official"};
  for (const std::string& spec : specs.empty() ? official : specs) {
    const std::size_t dot = spec.find('.');
    const std::string_view name = std::string_view(spec).substr(0, dot);
    RAGMETER_RETURN_IF_ERROR(mark(name, version, marked));
    if (dot == std::string::npos) continue;
    const MeasureDef* def = find_measure(name, version);
    if (def == nullptr) {
      return invalid_argument(fmt::format("measure set '{}' takes no parameters ('{}')", name, spec));
    }
    const std::size_t index = def - kMeasures.data();
    if (!has_params[index]) {  // trec_eval uses the first parameters given
      has_params[index] = true;
      given_params[index] = spec.substr(dot + 1);
      if (given_params[index].empty()) {
        return invalid_argument(fmt::format("measure '{}': empty parameters", spec));
      }
    }
  }
  std::vector<Selected> selected;
  for (std::size_t m = 0; m < kMeasures.size(); ++m) {
    if (!marked[m]) continue;
    const MeasureDef& def = kMeasures[m];
    Selected s{&def, {}, {}};
    if (has_params[m]) {
      s.params.text = given_params[m];
      RAGMETER_RETURN_IF_ERROR(parse_params(def, given_params[m], s.params));
    } else if (!def.defaults.empty()) {
      RAGMETER_RETURN_IF_ERROR(parse_params(def, def.defaults, s.params));
    }
    s.names = value_names(def, s.params);
    selected.push_back(std::move(s));
  }
  return selected;
}

}  // namespace ragmeter::trec
