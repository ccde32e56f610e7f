// Claims are a function of the text (docs/design.md): the LLM judge reads each sentence
// once per context and stores its claims by text, so the same words get the same claims
// and the same verdicts in every metric, row and run. The judge here talks to a FAKE
// in-process client (not a model) that counts its calls and words every extraction
// differently, so a second extraction of the same sentence would show.
#include <cstdlib>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <regex>
#include <thread>

#include "judge/llm/claim_store.h"
#include "judge/llm/llm_claims.h"
#include "ragmeter/ledger_metrics.h"
#include "ragmeter/llm_judge.h"
#include "tests/unit/fake_chat_client.h"

namespace ragmeter {
namespace {

using Json = nlohmann::json;

// A FAKE judge client. Claims: each asked sentence "[Sn] ..." gets the claim
// "<sentence> (extraction N)" where N counts claims calls ("x", "xx", ...), plus the
// fragment "Theodore Scott" for a sentence that names him. Verdict tables: "Entailment"
// for passage P1, "Neutral" elsewhere, and P1 whole as every claim's evidence. Claims replies wait `delay` so that concurrent rows overlap.
class FakeJudgeClient : public FakeChatOnlyClient {
 public:
  explicit FakeJudgeClient(std::chrono::milliseconds delay = std::chrono::milliseconds(0))
      : delay_(delay) {}

  std::future<StatusOr<llm::ChatResponse>> chat(llm::ChatRequest request) override {
    Json reply = Json::object();
    const std::string& user = request.messages.back().content;
    bool is_claims = request.schema_name == "claims";
    int n = 0;
    if (is_claims) n = ++claims_calls;
    if (!is_claims) ++verdict_calls;
    for (const Json& key : request.schema["required"]) {
      const std::string k = key.get<std::string>();
      if (is_claims) {
        const std::string marker = "[" + k + "] ";
        // The sentences follow the task text, which names "[S1]" itself.
        const std::size_t at = user.find(marker, user.find("QUESTION:")) + marker.size();
        std::size_t end = std::min(user.find(" [S", at), user.find('\n', at));
        const std::string sentence = user.substr(at, end - at);
        // The count in letters: a digit would be a number no passage has (verdict_checks.h).
        const std::string count(static_cast<std::size_t>(n), 'x');
        Json claims = {sentence + " (extraction " + count + ")"};
        if (sentence.find("Theodore Scott") != std::string::npos) claims.push_back("Theodore Scott");
        const auto given = claims_for.find(sentence);
        reply[k] = given == claims_for.end() ? claims : given->second;
      } else {
        if (k.rfind("Evidence", 0) == 0) {  // P1, quoted whole, unless told otherwise
          const std::size_t at = user.find("[P1]\n") + 5;
          reply[k] = evidence ? *evidence : user.substr(at, user.find('\n', at) - at);
        } else {
          reply[k] = k.rfind("reason", 0) == 0 ? ""
                     : (k.rfind("P1:", 0) == 0 ? "Entailment" : "Neutral");
        }
      }
    }
    const auto delay = is_claims ? delay_ : std::chrono::milliseconds(0);
    return std::async(std::launch::async, [reply, delay]() -> StatusOr<llm::ChatResponse> {
      std::this_thread::sleep_for(delay);
      llm::ChatResponse response;
      llm::ChatChoice choice;
      choice.json = reply;
      choice.content = reply.dump();
      response.choices.push_back(std::move(choice));
      return response;
    });
  }

  std::atomic<int> claims_calls{0};
  std::atomic<int> verdict_calls{0};
  std::optional<std::string> evidence;  // every claim's evidence, when set
  std::map<std::string, Json> claims_for;  // a sentence's claims, when set

 private:
  std::chrono::milliseconds delay_;
};

std::shared_ptr<Judge> judge_over(std::shared_ptr<FakeJudgeClient> client,
                                  std::optional<llm::CacheOptions> cache = std::nullopt) {
  LlmJudgeOptions options;
  options.chat = std::move(client);
  options.model = "fake";
  options.endpoint_options.model = "fake";
  options.verdict_cache = std::move(cache);
  auto judge = make_llm_judge(std::move(options));
  EXPECT_TRUE(judge.ok()) << judge.status().message();
  return *judge;
}

const char* kQuestion = "Who founded PharmaCann?";
const char* kAnswer = "PharmaCann was founded in 2014 by Theodore Scott. It is based in Illinois.";

Sample pharmacann_row(std::string reference) {
  Sample sample;
  sample.user_input = kQuestion;
  sample.response = kAnswer;
  if (!reference.empty()) sample.set_reference(std::move(reference));
  sample.retrieved_contexts = std::vector<std::string>{
      "PharmaCann, founded in 2014 by Theodore Scott, is based in Illinois.", "An unrelated chunk."};
  return sample;
}

std::vector<std::string> texts_of(const std::vector<Claim>& claims) {
  std::vector<std::string> out;
  for (const Claim& claim : claims) out.push_back(claim.text);
  return out;
}

TEST(ClaimsByTextTest, AResponseEqualToTheReferenceIsReadOnceAndBothMetricsAgree) {
  auto client = std::make_shared<FakeJudgeClient>();
  auto judge = judge_over(client);
  auto ledger = judge->claim_ledger(pharmacann_row(kAnswer), nullptr);
  ASSERT_TRUE(ledger.ok()) << ledger.status().message();
  EXPECT_EQ(client->claims_calls, 1);
  EXPECT_EQ(texts_of(ledger->response_claims), texts_of(ledger->reference_claims));
  ASSERT_EQ(ledger->response_claims.size(), 3u);  // two sentences, one fragment replaced
  const MetricResult faithfulness = ledger_faithfulness(*ledger);
  const MetricResult recall = ledger_context_recall(*ledger);
  ASSERT_EQ(faithfulness.outcome, Outcome::kOk);
  ASSERT_EQ(recall.outcome, Outcome::kOk);
  EXPECT_EQ(faithfulness.score, recall.score);
  EXPECT_EQ(faithfulness.score, 1.0);  // the fake supports every claim with P1
}

TEST(ClaimsByTextTest, TwoRowsWithTheSameAnswerShareItsClaimsEvenAtTheSameTime) {
  auto client = std::make_shared<FakeJudgeClient>(std::chrono::milliseconds(200));
  auto judge = judge_over(client);
  // Two rows at once: the second waits for the first's extraction instead of asking.
  const Sample first = pharmacann_row("");
  Sample second = pharmacann_row("");
  second.retrieved_contexts = std::vector<std::string>{"Another chunk."};
  StatusOr<ClaimLedger> a = internal_error("not run"), b = internal_error("not run");
  std::thread one([&] { a = judge->claim_ledger(first, nullptr); });
  std::thread two([&] { b = judge->claim_ledger(second, nullptr); });
  one.join();
  two.join();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(client->claims_calls, 1);
  EXPECT_EQ(texts_of(a->response_claims), texts_of(b->response_claims));
  // A third row whose reference is the same answer reads nothing new either.
  auto c = judge->claim_ledger(pharmacann_row(kAnswer), nullptr);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(client->claims_calls, 1);
  EXPECT_EQ(texts_of(c->reference_claims), texts_of(a->response_claims));
}

TEST(ClaimsByTextTest, ARerunWithTheCacheFilePaysForNothing) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("ragmeter_claims_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const llm::CacheOptions cache{(dir / "judge.sqlite").string(), llm::CacheMode::kReadWrite};
  auto first_client = std::make_shared<FakeJudgeClient>();
  auto first = judge_over(first_client, cache)->claim_ledger(pharmacann_row("PharmaCann is in Illinois."), nullptr);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first_client->claims_calls, 1);
  EXPECT_EQ(first_client->verdict_calls, 1);
  // A new judge (a new run) on the same file: every claim and verdict comes from it.
  auto again_client = std::make_shared<FakeJudgeClient>();
  auto again = judge_over(again_client, cache)->claim_ledger(pharmacann_row("PharmaCann is in Illinois."), nullptr);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again_client->claims_calls, 0);
  EXPECT_EQ(again_client->verdict_calls, 0);
  EXPECT_EQ(texts_of(again->response_claims), texts_of(first->response_claims));
  EXPECT_EQ(claim_ledger_to_json(*again)["verdicts"], claim_ledger_to_json(*first)["verdicts"]);
  std::filesystem::remove_all(dir);
}

// The model's Entailments are checked in code before the ledger (and the verdict store)
// takes them (verdict_checks.h): the fake supports every claim with P1.
TEST(ClaimsByTextTest, TheJudgesEntailmentsAreCheckedInCode) {
  Sample sample = pharmacann_row("");
  sample.retrieved_contexts = std::vector<std::string>{sample.retrieved_contexts->front()};
  // Evidence the model wrote itself, in no passage: a claim keeps its Entailment only where
  // a sentence of the passage states it (since llm-v13). The passage's one sentence states
  // the second claim; the fake's first and third claims end in "(extraction x)", two words
  // the passage does not have.
  auto client = std::make_shared<FakeJudgeClient>();
  client->evidence = "PharmaCann was founded by Theodore Scott.";
  auto ledger = judge_over(client)->claim_ledger(sample, nullptr);
  ASSERT_TRUE(ledger.ok()) << ledger.status().message();
  ASSERT_EQ(ledger->response_claims.size(), 3u);
  const std::string unquoted =
      "the judge said Entailment, but its evidence is in no passage: "
      "\"PharmaCann was founded by Theodore Scott.\"";
  EXPECT_EQ(ledger->response_claims[1].text, "PharmaCann was founded in 2014 by Theodore Scott.");
  EXPECT_EQ(ledger->response_vs_chunks.at(1, 0).verdict, Verdict::kEntailment);
  EXPECT_EQ(ledger->response_vs_chunks.at(1, 0).reason,
            unquoted + "; a sentence of this passage states the claim");
  for (std::size_t i : {0, 2}) {
    EXPECT_EQ(ledger->response_vs_chunks.at(i, 0).verdict, Verdict::kNeutral) << i;
    EXPECT_EQ(ledger->response_vs_chunks.at(i, 0).reason, unquoted) << i;
  }
  EXPECT_DOUBLE_EQ(ledger_faithfulness(*ledger).score, 1.0 / 3.0);
  // Evidence from the passage, but a year the passage does not have: that claim only.
  sample.response = "PharmaCann was founded in 2015 by Theodore Scott. It is based in Illinois.";
  auto quoted = judge_over(std::make_shared<FakeJudgeClient>())->claim_ledger(sample, nullptr);
  ASSERT_TRUE(quoted.ok()) << quoted.status().message();
  ASSERT_EQ(quoted->response_claims.size(), 3u);  // two sentences, one fragment replaced
  EXPECT_EQ(quoted->response_vs_chunks.at(0, 0).verdict, Verdict::kContradiction);
  EXPECT_EQ(quoted->response_vs_chunks.at(0, 0).reason,
            "the judge said Entailment, but the premise has '2014' where the claim has '2015'");
  EXPECT_EQ(quoted->response_vs_chunks.at(2, 0).verdict, Verdict::kEntailment);  // Illinois
}

TEST(ClaimsByTextTest, TheJudgesEntailmentGoesToThePassageItsEvidenceIsFrom) {
  // The fake says Entailment for P1 only (as the 1.5B model does, whichever passage holds
  // the answer) and quotes P2, which holds it: P2 supports every claim, and P1's
  // Entailments are taken away (its text has none of the claims' names).
  Sample sample = pharmacann_row(kAnswer);
  const std::string holder = sample.retrieved_contexts->front();
  sample.retrieved_contexts = std::vector<std::string>{"An unrelated chunk about Ohio.", holder};
  auto client = std::make_shared<FakeJudgeClient>();
  client->evidence = holder;
  auto ledger = judge_over(client)->claim_ledger(sample, nullptr);
  ASSERT_TRUE(ledger.ok()) << ledger.status().message();
  ASSERT_EQ(ledger->response_claims.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_FALSE(ledger->response_vs_chunks.at(i, 0).supports()) << i;
    EXPECT_EQ(ledger->response_vs_chunks.at(i, 1).verdict, Verdict::kEntailment) << i;
    EXPECT_EQ(ledger->response_vs_chunks.at(i, 1).reason,
              "the judge said Neutral here and Entailment for P1, quoting this passage: \"" +
                  holder + "\"")
        << i;
  }
  EXPECT_EQ(ledger_faithfulness(*ledger).score, 1.0);
  // The reference is the same text: the same cells, so the second chunk alone is useful.
  EXPECT_EQ(ledger_context_recall(*ledger).score, 1.0);
  EXPECT_EQ(ledger_context_precision(*ledger).score, 0.5);
}

TEST(ClaimsByTextTest, FragmentClaimsAreReplacedByTheSentenceTheyCameFrom) {
  const std::string sentence = "PharmaCann was founded in 2014 by Theodore Scott in Illinois.";
  EXPECT_EQ(standalone_claims({"PharmaCann was founded in 2014.", "Theodore Scott", "Illinois", "..."},
                              sentence, kQuestion, ""),
            (std::vector<std::string>{"PharmaCann was founded in 2014.", sentence}));
  // A sentence that is itself a bare answer carries the question, as the offline rule does.
  EXPECT_EQ(standalone_claims({"Theodore Scott"}, "Theodore Scott.", kQuestion, ""),
            (std::vector<std::string>{std::string(kQuestion) + " Theodore Scott."}));
  EXPECT_EQ(standalone_claims({}, sentence, kQuestion, ""), (std::vector<std::string>{sentence}));
}

TEST(ClaimsByTextTest, ClaimsThatAreNotInTheTextAreDroppedAndTheSentenceStandsForThem) {
  // Seen with the local 1.5B judge (bench/claim_fragments.sh): the prompt's worked example
  // answered for a sentence about the Nile.
  const std::string text = "The Nile is a major north-flowing river in northeastern Africa. ";  // before
  const std::string second = "It flows into the Mediterranean Sea.";
  const char* question = "Which is the longest river?";
  EXPECT_EQ(standalone_claims({"PharmaCann was founded in 2014.", "PharmaCann was founded by Theodore Scott."},
                              second, question, text),
            (std::vector<std::string>{second}));
  // A claim whose pronoun is replaced by the name from the text before it is the text's.
  EXPECT_EQ(standalone_claims({"The Nile flows into the Mediterranean Sea."}, second, question, text),
            (std::vector<std::string>{"The Nile flows into the Mediterranean Sea."}));
  // One echoed claim among good ones is dropped alone.
  EXPECT_EQ(standalone_claims({"The Nile flows into the Mediterranean Sea.", "<a claim of S1>"}, second,
                              question, text),
            (std::vector<std::string>{"The Nile flows into the Mediterranean Sea."}));
  // A sentence that states something is never left without a claim: given none, or the
  // claims of another sentence of its text (seen: a passage's claims all under S1), it is
  // its own claim.
  EXPECT_EQ(standalone_claims({}, second, question, text), (std::vector<std::string>{second}));
  const std::string first = "The Nile is a major north-flowing river in northeastern Africa.";
  EXPECT_EQ(standalone_claims({"The Nile flows into the Mediterranean Sea and empties there."}, first, question, ""),
            (std::vector<std::string>{first}));
  // The example's names answered back with a word of the question ("founded"), seen on
  // HaluEval with the local judge: a name from nowhere drops the claim.
  const char* bands = "Which band was founded first, Hole or The Wolfhounds?";
  EXPECT_EQ(standalone_claims({"The Wolfhounds was founded by Theodore Scott"}, "The Wolfhounds",
                              bands, ""),
            (std::vector<std::string>{}));
  const std::string before_hole = "The Wolfhounds was founded before Hole";
  EXPECT_EQ(standalone_claims({before_hole}, "The Wolfhounds", bands, ""),
            (std::vector<std::string>{before_hole}));
  // A sentence with nothing to claim keeps none: a refusal, a greeting.
  EXPECT_TRUE(standalone_claims({}, "I don't know.", question, "").empty());
  EXPECT_TRUE(standalone_claims({}, "Hello!", question, "").empty());
}

// A FAKE claims client (not a model): each asked sentence gets the claims scripted for
// it, an empty list for any other; `calls` counts claims calls; verdict calls fail.
class ScriptedClaimsClient : public FakeChatOnlyClient {
 public:
  explicit ScriptedClaimsClient(std::map<std::string, Json> claims) : claims_(std::move(claims)) {}

  std::future<StatusOr<llm::ChatResponse>> chat(llm::ChatRequest request) override {
    if (request.schema_name != "claims") {  // no verdict is scripted
      std::promise<StatusOr<llm::ChatResponse>> none;
      none.set_value(unavailable("the fake judges no verdicts"));
      return none.get_future();
    }
    ++calls;
    const std::string& user = request.messages.back().content;
    Json reply = Json::object();
    for (const Json& key : request.schema["required"]) {
      const std::string marker = "[" + key.get<std::string>() + "] ";
      const std::size_t at = user.find(marker, user.find("QUESTION:")) + marker.size();
      const std::size_t end = std::min(user.find(" [S", at), user.find('\n', at));
      const std::string sentence = user.substr(at, end - at);
      auto it = claims_.find(sentence);
      reply[key.get<std::string>()] = it == claims_.end() ? Json::array() : it->second;
    }
    std::promise<StatusOr<llm::ChatResponse>> done;
    llm::ChatResponse response;
    llm::ChatChoice choice;
    choice.json = reply;
    choice.content = reply.dump();
    response.choices.push_back(std::move(choice));
    done.set_value(std::move(response));
    return done.get_future();
  }

  int calls = 0;

 private:
  std::map<std::string, Json> claims_;
};

// The response's claims under the ragas plan's faithfulness, and the claims calls made.
std::vector<std::string> response_claims_of(std::map<std::string, Json> scripted,
                                            const std::string& response, int* calls) {
  auto client = std::make_shared<ScriptedClaimsClient>(std::move(scripted));
  LlmJudgeOptions options;
  options.chat = client;
  options.model = "fake";
  options.endpoint_options.model = "fake";
  options.ragas_plan = true;
  auto judge = make_llm_judge(std::move(options));
  EXPECT_TRUE(judge.ok()) << judge.status().message();
  Sample sample;
  sample.user_input = "What nationality was James Henry Miller's wife?";
  sample.response = response;
  auto ledger = (*judge)->scoped_claim_ledger(sample, "faithfulness", nullptr);
  EXPECT_TRUE(ledger.ok()) << ledger.status().to_string();
  *calls = client->calls;
  return ledger.ok() ? texts_of(ledger->response_claims) : std::vector<std::string>{};
}

TEST(ClaimsByTextTest, ClaimsThatDropASentencesNumbersOrNamesGiveWayToTheSentence) {
  // The long-passage trace (kiwi-5): the claims kept neither the figures nor the paper.
  const std::string sentence =
      "OpenSR uses ASR by exploiting the temporal alignment between audio and video, which "
      "improves lip-reading accuracy by 2.1% to 3.6%, and it was first described in the paper "
      "\"Learning from the Master\".";
  const std::vector<std::string> dropped = {
      "ASR has been used to improve lip-reading models by OpenSR",
      "OpenSR uses ASR for lip-reading accuracy improvements"};
  EXPECT_FALSE(claims_keep_facts(dropped, sentence, "en"));
  // The figures kept, the paper's name not: still a fact lost.
  std::vector<std::string> figures = dropped;
  figures.push_back("OpenSR improves lip-reading accuracy by 2.1% to 3.6%.");
  EXPECT_FALSE(claims_keep_facts(figures, sentence, "en"));
  std::vector<std::string> all = figures;
  all.push_back("OpenSR was first described in the paper \"Learning from the Master\".");
  EXPECT_TRUE(claims_keep_facts(all, sentence, "en"));
  // Nothing claimed (a sentence that states nothing), or no offline rules for the language.
  EXPECT_TRUE(claims_keep_facts({}, sentence, "en"));
  EXPECT_TRUE(claims_keep_facts({"OpenSR는 ASR을 사용한다."}, "OpenSR는 2021년에 ASR을 사용한다.", "ko"));
  // Names are read per language: a German noun is not a name, a number still is a fact.
  EXPECT_TRUE(claims_keep_facts({"Der Turm steht in Paris."}, "Der Turm steht in Paris.", "de"));
  EXPECT_FALSE(claims_keep_facts({"Der Turm ist hoch."}, "Der Turm ist 330 Meter hoch.", "de"));
}

TEST(ClaimsByTextTest, ASentenceWhoseClaimsLostAFactIsJudgedWhole) {
  // The claims of the first sentence leave out its year: the ledger reads that sentence
  // whole; the second sentence's claims keep its facts and stand.
  auto client = std::make_shared<FakeJudgeClient>();
  client->claims_for["PharmaCann was founded in 2014 by Theodore Scott."] =
      Json::array({"PharmaCann was founded by Theodore Scott."});
  auto ledger = judge_over(client)->claim_ledger(pharmacann_row(""), nullptr);
  ASSERT_TRUE(ledger.ok()) << ledger.status().message();
  EXPECT_EQ(texts_of(ledger->response_claims),
            (std::vector<std::string>{"PharmaCann was founded in 2014 by Theodore Scott.",
                                      "It is based in Illinois. (extraction x)"}));
  // Claims that keep the year stand as the judge wrote them.
  auto kept = std::make_shared<FakeJudgeClient>();
  kept->claims_for["PharmaCann was founded in 2014 by Theodore Scott."] =
      Json::array({"PharmaCann was founded in 2014.", "PharmaCann was founded by Theodore Scott."});
  auto whole = judge_over(kept)->claim_ledger(pharmacann_row(""), nullptr);
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  EXPECT_EQ(texts_of(whole->response_claims),
            (std::vector<std::string>{"PharmaCann was founded in 2014.",
                                      "PharmaCann was founded by Theodore Scott.",
                                      "It is based in Illinois. (extraction x)"}));
}

TEST(ClaimsByTextTest, TheRagasPlanStatesAShortAnswerAsASentence) {
  // ragas asks its statement call for every response, short ones too (prompts llm-v12).
  // Seen on HaluEval with the local judge (docs/judges.md): the claim "<question>
  // <answer>" carries the question's own premises ("Allie Goertz wrote a song about
  // Milhouse"), which the passages need not state, and was judged a contradiction.
  int calls = 0;
  EXPECT_EQ(response_claims_of({{"American", {"James Henry Miller's wife was American."}}},
                               "American", &calls),
            (std::vector<std::string>{"James Henry Miller's wife was American."}));
  EXPECT_EQ(calls, 1);
  // The judge copies the fragment, or gives nothing: the question and the answer.
  const std::vector<std::string> with_question = {
      "What nationality was James Henry Miller's wife? American"};
  EXPECT_EQ(response_claims_of({{"American", {"American"}}}, "American", &calls), with_question);
  EXPECT_EQ(response_claims_of({}, "American", &calls), with_question);
  // Only a whole text is a short answer: a greeting before a statement keeps no claim.
  const std::string stated = "Her nationality was American.";
  EXPECT_EQ(response_claims_of({{stated, {stated}}}, "Hello! " + stated, &calls),
            (std::vector<std::string>{stated}));
  // A noncommittal short answer has no claim.
  EXPECT_TRUE(response_claims_of({}, "Unknown", &calls).empty());
}

TEST(ClaimsByTextTest, ASentenceKeyHoldsItsContextAndIgnoresWhiteSpace) {
  ClaimStore store(nullptr, llm::EndpointOptions{}, "prompts");
  const std::string key = store.key("Q?", "Paris has a tower.", "It is tall.");
  EXPECT_EQ(key, store.key("Q?", "Paris  has a\ntower. ", "It is tall."));
  EXPECT_NE(key, store.key("Q?", "Rome has a tower.", "It is tall."));  // "it" differs
  EXPECT_NE(key, store.key("Other question?", "Paris has a tower.", "It is tall."));
  EXPECT_NE(key, store.key("Q?", "Paris has a tower.", "it is tall."));  // case is kept
  ClaimStore other(nullptr, llm::EndpointOptions{}, "other prompts");
  EXPECT_NE(key, other.key("Q?", "Paris has a tower.", "It is tall."));
}

}  // namespace
}  // namespace ragmeter
