// The filters of test-set generation that need no passage (include/ragmeter/testset.h):
// answers contained in their question, closed-book answers, and what a set covers.
#include <algorithm>
#include <set>

#include "judge/llm/judge_language.h"
#include "judge/llm/llm_requests.h"
#include "ragmeter/offline_judge.h"
#include "ragmeter/language.h"
#include "ragmeter/testset.h"
#include "judge/offline/text_vectors.h"
#include "ragmeter/words.h"
#include "ragmeter_prompts.inc"

namespace ragmeter {
namespace {

// The content words of `text` (content_terms, text_vectors.h: offline_tokenize's keys,
// stemmed, numbers without separators, stop words left out; ragmeter's words in scripts
// written without spaces).
std::set<std::string> content_words(std::string_view text) {
  std::vector<std::string> terms = content_terms(text);
  return std::set<std::string>(std::make_move_iterator(terms.begin()),
                               std::make_move_iterator(terms.end()));
}

// The first two words of a question, case-folded, without punctuation: a question's
// opening ("what is", "how many"). In a script written without spaces the words are
// ragmeter's (words.h: "法国 的"), since there the byte rule below would take the
// whole clause for one word.
std::string question_opening(std::string_view question) {
  std::string opening;
  if (has_unspaced_letters(question)) {
    const std::vector<std::string_view> words = split_words(question);
    for (std::size_t i = 0; i < words.size() && i < 2; ++i) {
      if (i > 0) opening += ' ';
      append_word_key(words[i], &opening);
    }
    return opening;
  }
  int words = 0;
  bool in_word = false;
  for (char c : offline_fold_case(question)) {
    const bool word_char = std::isalnum(static_cast<unsigned char>(c)) || (c & 0x80) || c == '\'';
    if (word_char && !in_word && ++words > 2) break;
    if (word_char) {
      if (!in_word && !opening.empty()) opening += ' ';
      opening += c;
    }
    in_word = word_char;
  }
  return opening;
}

// A closed-book answer at least this much made of the reference's words gives it.
constexpr double kClosedBookMatch = 0.5;

}  // namespace

bool answer_in_question(std::string_view question, std::string_view answer) {
  const std::set<std::string> answer_words = content_words(answer);
  if (answer_words.empty()) return false;
  const std::set<std::string> question_words = content_words(question);
  return std::includes(question_words.begin(), question_words.end(), answer_words.begin(),
                       answer_words.end());
}

bool closed_book_match(std::string_view closed_book, std::string_view question,
                       std::string_view reference) {
  const std::set<std::string> question_words = content_words(question);
  const std::set<std::string> reference_words = content_words(reference);
  std::size_t added = 0, found = 0;
  for (const std::string& word : content_words(closed_book)) {
    if (question_words.contains(word) || word == "unknown") continue;
    ++added;
    if (reference_words.contains(word)) ++found;
  }
  return added > 0 && static_cast<double>(found) >= kClosedBookMatch * static_cast<double>(added);
}

llm::ChatRequest testset_closed_book_request(std::string_view question, int max_tokens,
                                             std::string_view instruction) {
  return json_schema_request(std::string(prompts::k_gen_closed_book),
                             with_instruction("QUESTION:\n" + std::string(question) + "\n", instruction),
                             {{"type", "object"},
                              {"properties", {{"answer", {{"type", "string"}}}}},
                              {"required", {"answer"}}},
                             "answer", max_tokens);
}

TestsetCoverage testset_coverage(const std::vector<TestsetRow>& rows) {
  TestsetCoverage out;
  out.rows = rows.size();
  for (QuestionType type : {QuestionType::kSimple, QuestionType::kReasoning,
                            QuestionType::kMultiContext, QuestionType::kConditional}) {
    out.type_share[question_type_name(type)] = 0.0;
  }
  if (rows.empty()) return out;
  const double n = static_cast<double>(rows.size());
  std::set<std::string> openings;
  std::size_t multi = 0;
  for (const TestsetRow& row : rows) {
    out.type_share[question_type_name(row.type)] += 1.0 / n;
    if (row.reference_contexts.size() >= 2) ++multi;
    openings.insert(question_opening(row.user_input));
  }
  out.multi_context_share = static_cast<double>(multi) / n;
  out.distinct_openings = openings.size();
  out.distinct_opening_share = static_cast<double>(openings.size()) / n;
  return out;
}

nlohmann::ordered_json testset_coverage_json(const TestsetCoverage& coverage) {
  nlohmann::ordered_json out;
  out["rows"] = coverage.rows;
  out["type_share"] = coverage.type_share;
  out["multi_context_share"] = coverage.multi_context_share;
  out["distinct_openings"] = coverage.distinct_openings;
  out["distinct_opening_share"] = coverage.distinct_opening_share;
  return out;
}

}  // namespace ragmeter
