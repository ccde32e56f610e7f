// The LLM judge's request building and reply reading shared by its files (the public
// ones are in include/ragmeter/llm_judge.h). Internal to src/judge/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/judge.h"
#include "ragmeter/llm.h"
#include "ragmeter/sample.h"

namespace ragmeter {

// {"type": "array", "items": {"type": "string"}}.
nlohmann::json string_array_schema();

// A chat request for a JSON reply under `schema`: the system message, then one user
// message, at temperature 0.
llm::ChatRequest json_schema_request(std::string system, std::string user, nlohmann::json schema,
                                     std::string schema_name, int max_tokens);

// The longest reply a judge request asks for unless told otherwise.
inline constexpr int kJudgeReplyTokens = 2048;

// A judge request: a system message (the short shared one unless given), then one user
// message holding `task` followed by `sample_part`; a JSON-schema reply at temperature 0.
// The fixed text comes first so that a server's prefix cache reuses it from one request of
// a kind to the next (docs/design.md, "Fixed text first"). The verdict table passes
// prompts::k_verdict_table_system (docs/design.md, "A short system message"). A LANGUAGE
// line (judge_language.h; empty for English) comes last, after one blank line.
llm::ChatRequest make_judge_request(std::string sample_part, std::string_view task,
                                    nlohmann::json schema, std::string schema_name,
                                    int max_tokens = kJudgeReplyTokens,
                                    std::string_view system = {},
                                    std::string_view instruction = {});

// The "reason" string of a reply object, as a list of one (none when it has none): what
// the language check reads of a critic's, a rubric's or a vision verdict's reply.
std::vector<std::string> reply_reason(const nlohmann::json& reply);

// "NAME:\n" + text (or "(none)") + "\n\n".
std::string judge_section(std::string_view name, std::string_view text);

// The sample's texts for critics and rubrics: the question, the contexts (numbered),
// the response and the reference, each only when present. A conversation (multi-turn
// sample): its messages numbered with their roles and tool calls (CONVERSATION), its last
// assistant text as the RESPONSE, and its reference as the DESIRED OUTCOME.
std::string judge_sample_sections(const Sample& sample);
// The CONVERSATION section alone: its messages numbered with their roles and tool calls.
std::string judge_conversation_section(const Conversation& conversation);

// answer_relevancy's call: three questions the response answers, then whether it is
// noncommittal. The flag's key sorts after "questions" (a grammar-constrained server writes
// keys in sorted order), so the model has written the questions before it judges the
// response: asked first, the 1.5B model called bare names ("Vestfold") noncommittal
// (docs/judges.md, prompts llm-v9). The request is questions_task's (judge_tasks.h), as
// Judge::ask sends it.
inline constexpr std::string_view kNoncommittalKey = "response_is_noncommittal";
llm::ChatRequest llm_questions_request(std::string_view response, int max_tokens,
                                       std::string_view instruction = {});

// The questions and the flag of that call's reply (a missing or non-boolean flag: false).
GeneratedQuestions read_llm_questions(const nlohmann::json& reply);

// The non-empty "reason i" strings of a verdict table reply for `claims` claims (the text
// the language check reads).
std::vector<std::string> read_table_reasons(const nlohmann::json& reply, std::size_t claims);

// A task completion reply {"task", "outcome", "verdict", "reason"} (llm_task_completion.cc).
// The verdict is read as DeepEval 4.3.1 reads it (pydantic's lax float): a JSON number, or a
// string holding one as Python's float() writes it (surrounding white space, a sign,
// "1e-1", ".5", "0.2_5"). InvalidArgument naming what the judge sent for a verdict that is
// missing, of another type (a boolean too, which pydantic reads as 1 or 0), not a number
// ("high") or outside [0, 1] (1.3, "nan"): never clamped.
StatusOr<TaskCompletion> read_task_completion_reply(const nlohmann::json& reply);

// The non-empty strings of a JSON array (anything else: none).
std::vector<std::string> json_strings(const nlohmann::json& value);

// Entities as normalised strings: case-folded, single spaces, each once; placeholders
// with no letter or digit ("...") dropped.
std::vector<std::string> normalised_entities(const nlohmann::json& value);

}  // namespace ragmeter
