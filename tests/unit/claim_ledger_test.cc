// The claim ledger: content ids, shapes, and its JSON (round trip, short cell forms,
// errors with their paths, RAGChecker's checking output).
#include "ragmeter/claim_ledger.h"

#include <gtest/gtest.h>

#include <string>

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

// SHA-256("abc"), FIPS 180-2 appendix B.1.
constexpr const char* kSha256Abc =
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

VerdictCell cell(Verdict verdict, std::optional<double> confidence = std::nullopt,
                 std::string reason = {}) {
  return VerdictCell{verdict, confidence, std::move(reason)};
}

// Two response claims, one reference claim, two chunks; every cell form is present.
ClaimLedger sample_ledger() {
  ClaimLedger ledger =
      make_claim_ledger({"The Nile is long.", "It flows north."}, {"The Nile is 6,650 km long."},
                        {"chunk one", "chunk two"});
  ledger.chunks[1].doc_id = "doc-7";
  ledger.response_vs_chunks.at(0, 0) = cell(Verdict::kEntailment);
  ledger.response_vs_chunks.at(0, 1) = cell(Verdict::kNeutral, 0.25);
  ledger.response_vs_chunks.at(1, 0) = cell(Verdict::kContradiction, 0.9, "the chunk says south");
  ledger.reference_vs_chunks.at(0, 1) = cell(Verdict::kEntailment);
  ledger.response_vs_reference = {cell(Verdict::kEntailment),
                                  cell(Verdict::kMissing, {}, "timeout")};
  ledger.reference_vs_response = {cell(Verdict::kNeutral, {}, "no length given")};
  ledger.provenance = {"llm", "gpt-4o-mini", "ledger-v1"};
  return ledger;
}

TEST(ContentIdTest, IsLowercaseHexSha256OfTheNormalisedText) {
  EXPECT_EQ(content_id("abc"), kSha256Abc);
  EXPECT_EQ(content_id(" \t abc\n"), kSha256Abc);
  EXPECT_EQ(content_id(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(ContentIdTest, WhiteSpaceRunsAndNonBreakingSpacesDoNotChangeTheId) {
  EXPECT_EQ(content_id("The Nile  is\tlong"), content_id("The Nile is long"));
  EXPECT_EQ(content_id("The\u00a0Nile\u2003is long"), content_id("The Nile is long"));
}

TEST(ContentIdTest, CaseAndPunctuationChangeTheId) {
  EXPECT_NE(content_id("The US is large"), content_id("The us is large"));
  EXPECT_NE(content_id("It is."), content_id("It is"));
}

TEST(ContentIdTest, CanonicallyEquivalentTextsShareTheId) {
  EXPECT_EQ(normalize_content_text("Cafe\u0301"), "Caf\u00e9");
  EXPECT_EQ(content_id("Cafe\u0301"), content_id("Caf\u00e9"));
}

TEST(ContentIdTest, NormalisationTrimsAndCollapsesWhiteSpace) {
  EXPECT_EQ(normalize_content_text("  a \n\n b  "), "a b");
  EXPECT_EQ(normalize_content_text(" \t "), "");
}

TEST(MakeClaimLedgerTest, SizesEveryTableAndLeavesEveryCellMissing) {
  ClaimLedger ledger = make_claim_ledger({"a1", "a2", "a3"}, {"r1"}, {"c1", "c2"});
  EXPECT_EQ(ledger.response_vs_chunks.rows(), 3u);
  EXPECT_EQ(ledger.response_vs_chunks.cols(), 2u);
  EXPECT_EQ(ledger.reference_vs_chunks.rows(), 1u);
  EXPECT_EQ(ledger.response_vs_reference.size(), 3u);
  EXPECT_EQ(ledger.reference_vs_response.size(), 1u);
  EXPECT_FALSE(ledger.response_vs_chunks.at(2, 1).judged());
  EXPECT_EQ(ledger.response_claims[0].id, content_id("a1"));
  EXPECT_EQ(ledger.chunks[1].id, content_id("c2"));
  EXPECT_TRUE(validate_claim_ledger(ledger).ok());
}

TEST(VerdictTableTest, RowsAreContiguousAndWritable) {
  VerdictTable table(2, 3);
  table.row(1)[2].verdict = Verdict::kEntailment;
  EXPECT_TRUE(table.at(1, 2).supports());
  EXPECT_EQ(table.row(0).size(), 3u);
}

TEST(ValidateClaimLedgerTest, RejectsATableWhoseShapeDoesNotMatchTheClaims) {
  ClaimLedger ledger = make_claim_ledger({"a1"}, {"r1"}, {"c1"});
  ledger.reference_vs_chunks = VerdictTable(2, 1);
  Status status = validate_claim_ledger(ledger);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("reference_vs_chunks"), std::string::npos) << status.message();
}

TEST(ValidateClaimLedgerTest, RejectsAConfidenceOutsideTheUnitInterval) {
  ClaimLedger ledger = make_claim_ledger({"a1"}, {}, {});
  ledger.response_vs_reference[0] = cell(Verdict::kNeutral, 1.5);
  EXPECT_EQ(validate_claim_ledger(ledger).code(), StatusCode::kInvalidArgument);
}

TEST(VerdictTest, NamesAreRagcheckerLabelsAndParseBack) {
  for (Verdict v : {Verdict::kEntailment, Verdict::kNeutral, Verdict::kContradiction}) {
    EXPECT_EQ(parse_verdict(verdict_name(v)), v);
  }
  EXPECT_STREQ(verdict_name(Verdict::kMissing), "Missing");
  EXPECT_EQ(parse_verdict("Missing"), std::nullopt);
  EXPECT_EQ(parse_verdict("entailment"), std::nullopt);
}

TEST(VerdictCellJsonTest, UsesTheShortestFormThatKeepsEverything) {
  EXPECT_EQ(verdict_cell_to_json(cell(Verdict::kMissing)), Json(nullptr));
  EXPECT_EQ(verdict_cell_to_json(cell(Verdict::kNeutral)), Json("Neutral"));
  EXPECT_EQ(verdict_cell_to_json(cell(Verdict::kEntailment, 0.5)),
            Json({{"verdict", "Entailment"}, {"confidence", 0.5}}));
  EXPECT_EQ(verdict_cell_to_json(cell(Verdict::kMissing, {}, "timeout")),
            Json({{"verdict", nullptr}, {"reason", "timeout"}}));
}

TEST(ClaimLedgerJsonTest, RoundTripsEveryField) {
  const ClaimLedger ledger = sample_ledger();
  StatusOr<ClaimLedger> parsed = claim_ledger_from_json(claim_ledger_to_json(ledger));
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  EXPECT_EQ(*parsed, ledger);
}

TEST(ClaimLedgerJsonTest, RoundTripsTheJsonTextUnchanged) {
  const Json json = claim_ledger_to_json(sample_ledger());
  StatusOr<ClaimLedger> parsed = claim_ledger_from_json(Json::parse(json.dump()));
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  EXPECT_EQ(claim_ledger_to_json(*parsed).dump(), json.dump());
}

TEST(ClaimLedgerJsonTest, WritesTheDocumentedLayout) {
  const Json json = claim_ledger_to_json(sample_ledger());
  EXPECT_EQ(json["version"], 1);
  EXPECT_EQ(json["id_scheme"], "sha256-nfc-ws");
  EXPECT_EQ(json["provenance"]["prompt_version"], "ledger-v1");
  EXPECT_EQ(json["response_claims"][1]["id"], content_id("It flows north."));
  EXPECT_FALSE(json["chunks"][0].contains("doc_id"));
  EXPECT_EQ(json["chunks"][1]["doc_id"], "doc-7");
  EXPECT_EQ(json["verdicts"]["response_vs_chunks"][0][0], "Entailment");
  EXPECT_EQ(json["verdicts"]["response_vs_chunks"][1][1], nullptr);
  EXPECT_EQ(json["verdicts"]["response_vs_chunks"][1][0]["reason"], "the chunk says south");
  EXPECT_EQ(json["verdicts"]["reference_vs_response"][0]["verdict"], "Neutral");
}

TEST(ClaimLedgerJsonTest, RecomputesStoredIdsFromTheText) {
  Json json = claim_ledger_to_json(sample_ledger());
  json["response_claims"][0]["id"] = "stale";
  StatusOr<ClaimLedger> parsed = claim_ledger_from_json(json);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->response_claims[0].id, content_id("The Nile is long."));
}

TEST(ClaimLedgerJsonTest, AbsentVerdictsLeaveEveryCellMissing) {
  StatusOr<ClaimLedger> parsed =
      claim_ledger_from_json({{"response_claims", {"a1", "a2"}}, {"chunks", {"c1"}}});
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  EXPECT_EQ(parsed->response_vs_chunks.rows(), 2u);
  EXPECT_FALSE(parsed->response_vs_chunks.at(1, 0).judged());
  EXPECT_EQ(parsed->response_vs_reference.size(), 2u);
  EXPECT_TRUE(parsed->reference_claims.empty());
}

void expect_error_at(const Json& json, const std::string& path) {
  StatusOr<ClaimLedger> parsed = claim_ledger_from_json(json);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(parsed.status().message().rfind(path, 0), 0u) << parsed.status().message();
}

TEST(ClaimLedgerJsonTest, NamesThePathOfAnUnknownLabel) {
  Json json = claim_ledger_to_json(sample_ledger());
  json["verdicts"]["response_vs_chunks"][1][0] = "Maybe";
  expect_error_at(json, "verdicts.response_vs_chunks[1][0]");
}

TEST(ClaimLedgerJsonTest, RejectsARowWithMoreVerdictsThanChunks) {
  Json json = claim_ledger_to_json(sample_ledger());
  json["verdicts"]["reference_vs_chunks"][0].push_back("Neutral");
  expect_error_at(json, "verdicts.reference_vs_chunks[0]");
}

TEST(ClaimLedgerJsonTest, RejectsATableWithFewerRowsThanClaims) {
  Json json = claim_ledger_to_json(sample_ledger());
  json["verdicts"]["response_vs_reference"].erase(1);
  expect_error_at(json, "verdicts.response_vs_reference");
}

TEST(ClaimLedgerJsonTest, RejectsAConfidenceOutsideTheUnitInterval) {
  Json json = claim_ledger_to_json(sample_ledger());
  json["verdicts"]["response_vs_chunks"][0][1] = {{"verdict", "Neutral"}, {"confidence", -0.1}};
  expect_error_at(json, "verdicts.response_vs_chunks[0][1].confidence");
}

TEST(ClaimLedgerJsonTest, RejectsWrongTypesAndVersions) {
  expect_error_at(Json::array(), "ledger");
  expect_error_at({{"version", 2}}, "version");
  expect_error_at({{"response_claims", "one claim"}}, "response_claims");
  expect_error_at({{"chunks", {{{"doc_id", "d"}}}}}, "chunks[0].text");
  expect_error_at({{"chunks", {{{"text", "t"}, {"doc_id", 1.5}}}}}, "chunks[0].doc_id");
  expect_error_at({{"provenance", {{"model", 3}}}}, "provenance.model");
}

TEST(ClaimLedgerJsonTest, AcceptsIntegerDocIds) {
  StatusOr<ClaimLedger> parsed =
      claim_ledger_from_json({{"chunks", {{{"text", "t"}, {"doc_id", 12}}}}});
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  EXPECT_EQ(parsed->chunks[0].doc_id, "12");
}

TEST(ClaimLedgerFromRagcheckerTest, ReadsTripletClaimsChunksAndCheckingArrays) {
  const Json result = Json::parse(R"({
    "query_id": "0", "query": "q", "gt_answer": "g", "response": "r",
    "retrieved_context": [{"doc_id": "000", "text": "c0"}, {"doc_id": "001", "text": "c1"}],
    "response_claims": [["Nile", "is", "longest river"], ["Nile", "flows", "north"]],
    "gt_answer_claims": ["The Nile is long"],
    "answer2response": ["Entailment", "Contradiction"],
    "response2answer": ["Neutral"],
    "retrieved2response": [["Neutral", "Entailment"], ["Neutral", "Neutral"]],
    "retrieved2answer": null
  })");
  StatusOr<ClaimLedger> parsed = claim_ledger_from_ragchecker(result);
  ASSERT_TRUE(parsed.ok()) << parsed.status().to_string();
  const ClaimLedger& ledger = *parsed;
  EXPECT_EQ(ledger.response_claims[0].text, "Nile is longest river");
  EXPECT_EQ(ledger.reference_claims[0].text, "The Nile is long");
  EXPECT_EQ(ledger.chunks[1].doc_id, "001");
  // answer2response: response claims against the reference answer.
  EXPECT_EQ(ledger.response_vs_reference[1].verdict, Verdict::kContradiction);
  EXPECT_EQ(ledger.reference_vs_response[0].verdict, Verdict::kNeutral);
  EXPECT_EQ(ledger.response_vs_chunks.at(0, 1).verdict, Verdict::kEntailment);
  EXPECT_EQ(ledger.reference_vs_chunks.rows(), 1u);
  EXPECT_FALSE(ledger.reference_vs_chunks.at(0, 0).judged());
  EXPECT_EQ(ledger.provenance.judge, "ragchecker");
}

TEST(ClaimLedgerFromRagcheckerTest, NamesTheFieldOfAShapeMismatch) {
  const Json result = {{"response_claims", {"a"}}, {"answer2response", {"Entailment", "Neutral"}}};
  StatusOr<ClaimLedger> parsed = claim_ledger_from_ragchecker(result);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().message().rfind("answer2response", 0), 0u) << parsed.status().message();
}

}  // namespace
}  // namespace ragmeter
