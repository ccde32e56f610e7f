// EvalSpec (eval_spec.h): one evaluation as a value, checked once for the CLI, Python and
// Ray; its JSON form is what the Python package hands over.
#include "ragmeter/eval_spec.h"

#include <gtest/gtest.h>

namespace ragmeter {
namespace {

using Json = nlohmann::json;

TEST(EvalSpec, DefaultsBecomeTheOptionsEveryFrontEndHad) {
  auto options = make_eval_options(EvalSpec{});
  ASSERT_TRUE(options.ok()) << options.status().message();
  EXPECT_EQ(options->bootstrap.seed, 42u);
  EXPECT_EQ(options->bootstrap.resamples, 1000);
  EXPECT_EQ(options->scoring.critic_votes, 1);
  EXPECT_EQ(options->scoring.bleu.smoothing, BleuSmoothing::kExp);
  EXPECT_DOUBLE_EQ(options->scoring.context_match_threshold, 0.5);
  EXPECT_GE(options->threads, 1);  // 0 asks for one thread per core
  EXPECT_EQ(options->repeat, 1);
  EXPECT_TRUE(options->language.empty());
}

TEST(EvalSpec, AMessageNamesTheFieldAsTheFlagOrTheKeyword) {
  EvalSpec spec;
  spec.critic_votes = 2;
  EXPECT_EQ(make_eval_options(spec).status().message(), "--critic-votes must be odd (1, 3, 5, ...) so a majority exists");
  EXPECT_EQ(make_eval_options(spec, SpecNaming::kKeywords).status().message(),
            "critic_votes must be odd (1, 3, 5, ...) so a majority exists");
  spec = EvalSpec{};
  spec.bleu_smoothing = "lots";
  EXPECT_EQ(make_eval_options(spec, SpecNaming::kKeywords).status().message(),
            "bleu_smoothing: 'lots' is not one of add-k, exp, floor, none");
  spec = EvalSpec{};
  spec.deepeval_tool_params = {"name"};
  EXPECT_EQ(make_eval_options(spec).status().message(),
            "--deepeval-tool-params: 'name' is not one of input_parameters, output");
  EXPECT_EQ(spec_field_name("critics", SpecNaming::kFlags), "--critic");
  EXPECT_EQ(spec_field_name("bootstrap_resamples", SpecNaming::kFlags), "--bootstrap-resamples");
}

TEST(EvalSpec, GatesFitTheirMetricsDirectionAndAreAmongTheMetrics) {
  EvalSpec spec;
  spec.metrics = "token_f1,ragchecker_hallucination";
  spec.metrics_given = true;
  spec.fail_under = {"token_f1=0.6"};
  spec.fail_over = {"ragchecker_hallucination=0.1"};
  spec.pass_k = "all";
  auto options = make_eval_options(spec);
  ASSERT_TRUE(options.ok());
  auto gates = make_thresholds(spec, options->metrics);
  ASSERT_TRUE(gates.ok()) << gates.status().message();
  ASSERT_EQ(gates->size(), 2u);
  EXPECT_EQ((*gates)[0].metric, "token_f1");
  EXPECT_EQ((*gates)[0].bound, GateBound::kAtLeast);
  EXPECT_EQ((*gates)[1].bound, GateBound::kAtMost);
  EXPECT_EQ((*gates)[1].pass_k, PassK::kAll);
  spec.fail_under = {"bleu=0.2"};
  EXPECT_EQ(make_thresholds(spec, options->metrics, SpecNaming::kKeywords).status().message(),
            "fail_under: metric 'bleu' is not among metrics");
  spec.fail_under = {"ragchecker_hallucination=0.2"};  // a maximum metric given a minimum
  EXPECT_FALSE(make_thresholds(spec, options->metrics).ok());
}

TEST(EvalSpec, ReadsItsJsonFormFieldByFieldAndNamesWhatDoesNotRead) {
  auto spec = eval_spec_from_json(Json{{"metrics", "bleu"},
                                       {"metrics_given", true},
                                       {"column_map", {{"q", "user_input"}}},
                                       {"seed", 7},
                                       {"judge", {{"url", "http://127.0.0.1:9/v1"}, {"cache_mode", "off"},
                                                  {"timeout_seconds", 2}}}});
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  EXPECT_EQ(spec->metrics, "bleu");
  EXPECT_EQ(spec->column_map.at("q"), "user_input");
  EXPECT_EQ(spec->seed, 7u);
  EXPECT_EQ(spec->judge.url, "http://127.0.0.1:9/v1");
  EXPECT_EQ(spec->judge.cache_mode, llm::CacheMode::kOff);
  EXPECT_EQ(spec->judge.timeout_seconds, 2.0);
  EXPECT_EQ(spec->bootstrap_resamples, 1000);  // left out: the default
  EXPECT_EQ(eval_spec_from_json(Json{{"seeds", 1}}).status().message(), "unknown evaluation field 'seeds'");
  EXPECT_EQ(eval_spec_from_json(Json{{"seed", "1"}}).status().message(),
            "evaluation field 'seed': expected a whole number, got string");
  EXPECT_EQ(eval_spec_from_json(Json{{"seed", -1}}).status().message(),
            "evaluation field 'seed': must not be negative");
  EXPECT_EQ(eval_spec_from_json(Json{{"judge", {{"urls", "x"}}}}).status().message(),
            "unknown evaluation field 'judge.urls'");
  EXPECT_EQ(eval_spec_from_json(Json{{"critics", {"a=b", 3}}}).status().message(),
            "evaluation field 'critics[]': expected a string, got number");
}

}  // namespace
}  // namespace ragmeter
