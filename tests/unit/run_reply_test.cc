// Selectors, reply reading and request templates of `ragmeter run` (src/run/), on
// hand-written replies.
#include <gtest/gtest.h>

#include "ragmeter/run.h"
#include "run/json_select.h"
#include "run/request_template.h"

namespace ragmeter {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

TEST(JsonSelectTest, PointerAndDottedPathReachTheSameValue) {
  json reply = json::parse(R"({"data": {"items": [{"a/b": 1, "t~x": 2}, {"text": "second"}]}})");
  ASSERT_NE(run::select_json(reply, "/data/items/1/text"), nullptr);
  EXPECT_EQ(*run::select_json(reply, "/data/items/1/text"), "second");
  EXPECT_EQ(*run::select_json(reply, "data.items.1.text"), "second");
  EXPECT_EQ(*run::select_json(reply, "/data/items/0/a~1b"), 1);  // RFC 6901 escapes
  EXPECT_EQ(*run::select_json(reply, "/data/items/0/t~0x"), 2);
  EXPECT_EQ(run::select_json(reply, "data.items.2.text"), nullptr);   // past the end
  EXPECT_EQ(run::select_json(reply, "data.items.x"), nullptr);        // not an index
  EXPECT_EQ(run::select_json(reply, "data.missing"), nullptr);
  EXPECT_EQ(run::select_json(reply, ""), &reply);
}

TEST(JsonSelectTest, TruncationKeepsUtf8WholeAndSaysTheSize) {
  std::string text = std::string(199, 'a') + "\xC3\xA9" + "tail";  // é straddles byte 200
  std::string cut = run::truncate_for_message(text, 200);
  EXPECT_EQ(cut, std::string(199, 'a') + "... (205 bytes)");
  EXPECT_EQ(run::truncate_for_message("short"), "short");
}

TEST(AnswerFromReplyTest, DefaultsReadAnswerAndContextObjectsWithIds) {
  TargetOutcome o = answer_from_reply(
      R"({"answer": "Paris", "contexts": [{"text": "Paris is...", "id": 7}, {"text": "France"}],
          "usage": {"prompt_tokens": 30, "completion_tokens": 4}})", {});
  ASSERT_TRUE(o.ok()) << o.failure.message;
  EXPECT_EQ(o.answer->response, "Paris");
  EXPECT_EQ(*o.answer->contexts, (std::vector<std::string>{"Paris is...", "France"}));
  EXPECT_EQ(*o.answer->context_ids, (std::vector<std::string>{"7", ""}));
  EXPECT_EQ(o.answer->prompt_tokens, 30);
  EXPECT_EQ(o.answer->completion_tokens, 4);
}

TEST(AnswerFromReplyTest, RagasNamesAreTheSecondDefault) {
  TargetOutcome o = answer_from_reply(R"({"response": "r", "retrieved_contexts": ["c1", "c2"]})", {});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o.answer->response, "r");
  EXPECT_EQ(o.answer->contexts->size(), 2u);
  EXPECT_FALSE(o.answer->context_ids.has_value());
  EXPECT_FALSE(o.answer->prompt_tokens.has_value());
}

TEST(AnswerFromReplyTest, GivenSelectorsReadNestedReplies) {
  ReplySelectors s;
  s.answer = "/result/output";
  s.contexts = "result.source_nodes";
  s.context_text = "node.content";
  s.context_id = "node.doc_id";
  TargetOutcome o = answer_from_reply(
      R"({"result": {"output": "42", "source_nodes": [{"node": {"content": "c", "doc_id": "d1"}}]}})", s);
  ASSERT_TRUE(o.ok()) << o.failure.message;
  EXPECT_EQ(o.answer->response, "42");
  EXPECT_EQ(*o.answer->contexts, std::vector<std::string>{"c"});
  EXPECT_EQ(*o.answer->context_ids, std::vector<std::string>{"d1"});
}

TEST(AnswerFromReplyTest, EachBadReplyIsItsOwnKindAndShowsWhatCame) {
  EXPECT_EQ(answer_from_reply("<html>oops</html>", {}).failure.kind, "bad_reply");
  EXPECT_NE(answer_from_reply("<html>oops</html>", {}).failure.message.find("<html>oops</html>"),
            std::string::npos);
  EXPECT_EQ(answer_from_reply(R"({"text": "x"})", {}).failure.kind, "no_answer");
  EXPECT_EQ(answer_from_reply(R"({"answer": ["x"]})", {}).failure.kind, "no_answer");
  EXPECT_EQ(answer_from_reply(R"({"error": "index not loaded"})", {}).failure.kind, "target_error");
  EXPECT_EQ(answer_from_reply(R"({"answer": "a", "contexts": "one"})", {}).failure.kind, "bad_contexts");
  EXPECT_EQ(answer_from_reply(R"({"answer": "a", "contexts": [{"body": "x"}]})", {}).failure.kind,
            "bad_contexts");
  ReplySelectors s;
  s.contexts = "docs";
  TargetOutcome missing = answer_from_reply(R"({"answer": "a"})", s);
  EXPECT_EQ(missing.failure.kind, "bad_contexts");
  EXPECT_NE(missing.failure.message.find("'docs' matched nothing"), std::string::npos);
  EXPECT_FALSE(answer_from_reply("oops", {}).failure.retryable);
}

TargetRequest request_for(const char* row_json) {
  TargetRequest r;
  r.index = 2;
  r.id = "q2";
  r.question = "why?";
  r.row = std::make_shared<const ordered_json>(ordered_json::parse(row_json));
  return r;
}

TEST(RequestTemplateTest, WholeStringPlaceholdersKeepTypesAndInlineOnesBecomeText) {
  auto t = run::JsonTemplate::parse(
      R"({"q": "{{question}}", "k": "{{top_k}}", "tags": "{{ tags }}", "note": "id={{id}} n={{index}} k={{top_k}}"})");
  ASSERT_TRUE(t.ok());
  auto body = t->render(request_for(R"({"top_k": 5, "tags": ["a", "b"]})"));
  ASSERT_TRUE(body.ok()) << body.status().message();
  EXPECT_EQ(body->dump(), R"({"q":"why?","k":5,"tags":["a","b"],"note":"id=q2 n=2 k=5"})");
}

TEST(RequestTemplateTest, AMissingFieldNamesItTheRowAndTheFieldsThereAre) {
  auto t = run::JsonTemplate::parse(R"({"q": "{{question}}", "ctx": "{{category}}"})");
  ASSERT_TRUE(t.ok());
  auto body = t->render(request_for(R"({"user_input": "why?", "reference": "r"})"));
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.status().message(),
            "the request template names '{{category}}', which row 3 (id q2) does not have; its "
            "fields: user_input, reference");
  EXPECT_FALSE(run::JsonTemplate::parse("{not json").ok());
}

}  // namespace
}  // namespace ragmeter
