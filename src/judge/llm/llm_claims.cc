// Claim extraction by sentence, stored by text (llm_claims.h).
#include "judge/llm/llm_claims.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "core/row_turns.h"
#include "judge/llm/llm_window.h"
#include "judge/llm/verdict_table.h"
#include "ragmeter/llm_judge.h"
#include "ragmeter/offline_judge.h"
#include "ragmeter_prompts.inc"

namespace ragmeter {
namespace {

bool has_alnum(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || (c & 0x80);
  });
}

std::string trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return "";
  const auto last = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(first, last - first + 1));
}

// Room per sentence for its label ("[S12] ") in a claims request.
constexpr std::size_t kLabelBytes = 8;

// A text as the judge is shown it: its sentences, each with its store key.
struct Passage {
  std::vector<std::string> sentences;
  std::vector<std::string> befores;  // the text before each sentence
  std::vector<std::string> keys;
};

Passage read_passage(const ClaimStore& store, std::string_view question, std::string_view text,
                     std::string_view instruction) {
  Passage passage;
  for (std::string_view sentence : split_sentences(text)) {
    if (!has_alnum(sentence)) continue;
    const std::string_view before = text.substr(0, static_cast<std::size_t>(sentence.data() - text.data()));
    passage.sentences.emplace_back(sentence);
    passage.befores.emplace_back(before);
    passage.keys.push_back(store.key(question, before, sentence, instruction));
  }
  return passage;
}

// Finishes, with an error, every key started but not finished when it goes out of scope,
// so that no other thread waits forever for them.
class StartedKeys {
 public:
  explicit StartedKeys(ClaimStore& store) : store_(store) {}
  ~StartedKeys() {
    for (const std::string& key : keys_) {
      store_.finish(key, internal_error("the claims extraction was abandoned"), false);
    }
  }
  void add(const std::string& key) { keys_.push_back(key); }
  void done(const std::string& key) { keys_.erase(std::remove(keys_.begin(), keys_.end(), key), keys_.end()); }

 private:
  ClaimStore& store_;
  std::vector<std::string> keys_;
};

// What the claims call writes, for its LANGUAGE line and its failure.
constexpr std::string_view kClaimsWhat = "every claim";

// The claims a reply gives for the asked labels (the text the language check reads).
std::vector<std::string> asked_claims(const nlohmann::json& reply, const ClaimsPrompt& prompt) {
  std::vector<std::string> out;
  for (std::size_t label : prompt.asked) {
    if (auto claims = read_llm_sentence_claims(reply, prompt, label)) {
      out.insert(out.end(), claims->begin(), claims->end());
    }
  }
  return out;
}

}  // namespace

std::vector<std::string> standalone_claims(const std::vector<std::string>& claims,
                                           std::string_view sentence, std::string_view question,
                                           std::string_view before) {
  // The words a claim of this sentence may use: the sentence's and the question's, and the
  // names (capitalised words) of the text before it, which a pronoun may stand for.
  std::set<std::string> known;
  std::size_t sentence_content = 0;
  for (const OfflineToken& token : offline_tokenize(sentence)) {
    if (token.stopword) continue;
    known.insert(token.key);
    ++sentence_content;
  }
  for (const OfflineToken& token : offline_tokenize(question)) {
    if (!token.stopword) known.insert(token.key);
  }
  for (const OfflineToken& token : offline_tokenize(before)) {
    if (!token.stopword && token.capitalized) known.insert(token.key);
  }
  // And no name (a capitalised word after the claim's first) from elsewhere: seen, the
  // prompt's example answered back with the answer's name in it ("The Wolfhounds was
  // founded by Theodore Scott").
  auto from_the_sentence = [&](std::string_view claim) {
    std::size_t content = 0, found = 0;
    const std::vector<OfflineToken> tokens = offline_tokenize(claim);
    for (std::size_t i = 0; i < tokens.size(); ++i) {
      const OfflineToken& token = tokens[i];
      if (token.stopword) continue;
      ++content;
      const bool is_known = known.count(token.key) > 0;
      if (!is_known && token.capitalized && i > 0) return false;
      found += is_known;
    }
    return 2 * found >= content;
  };
  std::vector<std::string> out;
  for (const std::string& raw : claims) {
    std::string claim = trim(raw);
    if (!has_alnum(claim) || !from_the_sentence(claim)) continue;
    // answer_premise prefixes a short verbless text with the question it is given; any
    // non-empty question shows whether the claim is such a fragment.
    if (answer_premise(claim, "?") != claim) claim = answer_premise(trim(sentence), question);
    if (std::find(out.begin(), out.end(), claim) == out.end()) out.push_back(std::move(claim));
  }
  // Nothing left of a sentence that states something (the judge's claims were dropped, or
  // it gave none, or put them under another sentence's key): the sentence is its claim.
  if (out.empty() && sentence_content >= 2 && !is_noncommittal(sentence)) {
    out.push_back(answer_premise(trim(sentence), question));
  }
  return out;
}

bool claims_keep_facts(const std::vector<std::string>& claims, std::string_view sentence,
                       std::string_view language) {
  const std::string code = language.empty() ? "en" : std::string(language);
  if (claims.empty() || !offline_judge_gap(code).empty()) return true;
  std::string together;
  for (const std::string& claim : claims) together += claim + (claim.ends_with('.') ? " " : ". ");
  return !missing_number_or_name(OfflineClaim(trim(std::string(sentence)), code),
                                 OfflinePremise(together, code))
              .has_value();
}

namespace {

// The distinct non-empty texts of an extraction, and where each given text stands
// among them.
struct DistinctTexts {
  std::vector<std::string> texts;
  std::vector<std::size_t> slot_of;  // by the given text's index
  std::size_t total_bytes = 0;       // the question's and each distinct text's with its labels
};

DistinctTexts distinct_texts(std::string_view question, const std::vector<std::string>& texts) {
  DistinctTexts distinct;
  distinct.slot_of.resize(texts.size());
  distinct.total_bytes = question.size();
  for (std::size_t t = 0; t < texts.size(); ++t) {
    auto it = std::find(distinct.texts.begin(), distinct.texts.end(), texts[t]);
    distinct.slot_of[t] = static_cast<std::size_t>(it - distinct.texts.begin());
    if (it == distinct.texts.end() && !texts[t].empty()) {
      distinct.texts.push_back(texts[t]);
      distinct.total_bytes += texts[t].size() + kLabelBytes * split_sentences(texts[t]).size();
    }
  }
  return distinct;
}

// One label per distinct sentence key, in order of first appearance.
struct SentenceLabels {
  std::map<std::string, std::size_t> label_of;
  std::vector<std::string> keys;                                // by label - 1
  std::vector<std::pair<std::size_t, std::size_t>> first_seen;  // (passage, sentence), by label - 1
};

SentenceLabels label_sentences(const std::vector<Passage>& passages) {
  SentenceLabels labels;
  for (std::size_t p = 0; p < passages.size(); ++p) {
    for (std::size_t s = 0; s < passages[p].keys.size(); ++s) {
      if (labels.label_of.emplace(passages[p].keys[s], labels.keys.size() + 1).second) {
        labels.keys.push_back(passages[p].keys[s]);
        labels.first_seen.emplace_back(p, s);
      }
    }
  }
  return labels;
}

// The passages each claims call reads: every passage in one call when they fit together,
// else one call per passage.
std::vector<std::vector<std::size_t>> passages_per_call(std::size_t passages, bool together) {
  std::vector<std::vector<std::size_t>> calls;
  if (together) {
    calls.emplace_back();
    for (std::size_t p = 0; p < passages; ++p) calls.back().push_back(p);
  } else {
    for (std::size_t p = 0; p < passages; ++p) calls.push_back({p});
  }
  return calls;
}

// One extract_text_claims call (llm_claims.h), step by step.
class ClaimsExtraction {
 public:
  ClaimsExtraction(const ClaimsCallOptions& options, std::string_view question, CallLog* calls)
      : options_(options),
        store_(*options.store),
        question_(question),
        instruction_(language_instruction(options.language, kClaimsWhat)),
        calls_(calls) {}

  StatusOr<std::vector<std::vector<std::string>>> run(const std::vector<std::string>& texts);

 private:
  StatusOr<std::vector<std::string>> pieces_of(const std::string& text) const;
  Status read_passages();
  void look_up_keys(StartedKeys* started);
  Status ask_unknown(StartedKeys* started);
  ClaimsPrompt call_prompt(const std::vector<std::size_t>& group) const;
  StatusOr<nlohmann::json> ask_claims(const ClaimsPrompt& prompt, std::string* call);
  void store_reply(const ClaimsPrompt& prompt, const StatusOr<nlohmann::json>& reply,
                   const std::string& call, StartedKeys* started);
  Status await_others();
  std::vector<std::string> claims_of_text(const std::string& text, std::size_t slot);
  void log_calls_of_text(std::size_t slot);

  const ClaimsCallOptions& options_;
  ClaimStore& store_;
  const std::string_view question_;
  const std::string instruction_;
  CallLog* const calls_;
  DistinctTexts distinct_;
  bool together_ = false;  // every distinct text in one call
  std::vector<Passage> passages_;
  std::vector<std::vector<std::size_t>> passages_of_;  // by distinct text
  SentenceLabels labels_;
  // Each key's claims: known, in flight elsewhere, or ours to ask.
  std::map<std::string, StoredClaims> known_;
  std::map<std::string, std::shared_future<StatusOr<StoredClaims>>> waiting_;
  std::vector<std::size_t> to_ask_;  // labels
  bool asked_any_ = false;
};

StatusOr<std::vector<std::vector<std::string>>> ClaimsExtraction::run(
    const std::vector<std::string>& texts) {
  distinct_ = distinct_texts(question_, texts);
  together_ =
      fits_judge_window(distinct_.total_bytes, prompts::k_claims.size() + instruction_.size(),
                        options_.context_tokens, options_.max_tokens);
  RAGMETER_RETURN_IF_ERROR(read_passages());
  labels_ = label_sentences(passages_);
  StartedKeys started(store_);
  look_up_keys(&started);
  RAGMETER_RETURN_IF_ERROR(ask_unknown(&started));
  RAGMETER_RETURN_IF_ERROR(await_others());
  if (!asked_any_ && !labels_.keys.empty()) {
    options_.book->record_store_hit("claims");  // a call the store made unnecessary
  }
  std::vector<std::vector<std::string>> out(texts.size());
  for (std::size_t t = 0; t < texts.size(); ++t) {
    if (texts[t].empty()) continue;
    out[t] = claims_of_text(texts[t], distinct_.slot_of[t]);
    log_calls_of_text(distinct_.slot_of[t]);
  }
  return out;
}

// A distinct text whole when all fit one call, else in pieces that each fit the window.
StatusOr<std::vector<std::string>> ClaimsExtraction::pieces_of(const std::string& text) const {
  if (together_) return std::vector<std::string>{text};
  const int window = options_.context_tokens;
  const std::int64_t room = window - reply_reserve(window, options_.max_tokens) -
                            estimate_tokens(prompts::k_system.size() + prompts::k_claims.size() +
                                            instruction_.size() + 64 + question_.size());
  if (room < 32) {
    return invalid_argument("the judge's context window (" + std::to_string(window) +
                            " tokens) leaves no room to extract claims");
  }
  return split_to_fit(text, room - room / 5);  // a fifth for the labels
}

Status ClaimsExtraction::read_passages() {
  passages_of_.resize(distinct_.texts.size());
  for (std::size_t d = 0; d < distinct_.texts.size(); ++d) {
    RAGMETER_ASSIGN_OR_RETURN(const std::vector<std::string> pieces, pieces_of(distinct_.texts[d]));
    for (const std::string& piece : pieces) {
      passages_of_[d].push_back(passages_.size());
      passages_.push_back(read_passage(store_, question_, piece, instruction_));
    }
  }
  return ok_status();
}

// Each key from another thread extracting it now, from the store, or started as ours.
void ClaimsExtraction::look_up_keys(StartedKeys* started) {
  // After the rows before this one chose their sentences (core/row_turns.h), so a shared
  // sentence's claims come from the same call whatever the threads' timing.
  RowTurn turn(&store_, options_.may_share);
  auto entries = store_.find_or_start_all(labels_.keys);
  for (std::size_t label = 1; label <= labels_.keys.size(); ++label) {
    const std::string& key = labels_.keys[label - 1];
    if (auto& pending = entries[label - 1]) {
      waiting_.emplace(key, std::move(*pending));
    } else if (std::optional<StoredClaims> loaded = store_.load(key)) {
      store_.remember(key, *loaded);
      known_.emplace(key, std::move(*loaded));
    } else {
      started->add(key);
      to_ask_.push_back(label);
    }
  }
}

// The claims calls for the keys ours to ask; every call is made, the first failure returned.
Status ClaimsExtraction::ask_unknown(StartedKeys* started) {
  Status failure = ok_status();
  for (const std::vector<std::size_t>& group : passages_per_call(passages_.size(), together_)) {
    const ClaimsPrompt prompt = call_prompt(group);
    if (prompt.asked.empty()) continue;
    asked_any_ = true;
    std::string call;
    const StatusOr<nlohmann::json> reply = ask_claims(prompt, &call);
    store_reply(prompt, reply, call, started);
    if (!reply.ok() && failure.ok()) failure = reply.status();
  }
  return failure;
}

// The prompt of one call over `group`'s passages: the labels ours to ask that first appear
// there, and, when there is one, every sentence of the passages under its label.
ClaimsPrompt ClaimsExtraction::call_prompt(const std::vector<std::size_t>& group) const {
  ClaimsPrompt prompt;
  prompt.question = std::string(question_);
  for (std::size_t label : to_ask_) {
    if (std::find(group.begin(), group.end(), labels_.first_seen[label - 1].first) != group.end()) {
      prompt.asked.push_back(label);
    }
  }
  if (prompt.asked.empty()) return prompt;
  for (std::size_t p : group) {
    auto& shown = prompt.texts.emplace_back();
    for (std::size_t s = 0; s < passages_[p].sentences.size(); ++s) {
      shown.emplace_back(labels_.label_of.at(passages_[p].keys[s]), passages_[p].sentences[s]);
    }
  }
  return prompt;
}

// The judge's reply to `prompt` (`call`: the call's key); an error when the call failed
// or the claims stayed in another script than the language's.
StatusOr<nlohmann::json> ClaimsExtraction::ask_claims(const ClaimsPrompt& prompt,
                                                      std::string* call) {
  LanguageReply answer = chat_in_language(
      *options_.book, *options_.client, options_.language, kClaimsWhat,
      [&prompt](const std::string& line) { return llm_claims_request(prompt, line); },
      [&prompt](const nlohmann::json& reply) { return asked_claims(reply, prompt); }, "claims",
      calls_);
  *call = answer.call;
  StatusOr<nlohmann::json> reply = std::move(answer.reply);
  if (reply.ok() && answer.wrong) {
    reply = invalid_argument(wrong_script_message(options_.language, "the claims", *answer.wrong));
  }
  return reply;
}

// Finishes every asked key with its sentence's claims from the reply (the sentence itself
// when the reply has no claims for it), or with the reply's error; stored together
// (claim_store.h).
void ClaimsExtraction::store_reply(const ClaimsPrompt& prompt,
                                   const StatusOr<nlohmann::json>& reply, const std::string& call,
                                   StartedKeys* started) {
  std::vector<ClaimStore::Finished> finished;
  for (std::size_t label : prompt.asked) {
    const std::string& key = labels_.keys[label - 1];
    if (!reply.ok()) {
      finished.push_back({key, reply.status(), false});
      continue;
    }
    const auto [p, s] = labels_.first_seen[label - 1];
    const std::string& sentence = passages_[p].sentences[s];
    std::optional<std::vector<std::string>> got = read_llm_sentence_claims(*reply, prompt, label);
    StoredClaims claims;
    claims.call = call;
    claims.claims = got ? standalone_claims(*got, sentence, question_, passages_[p].befores[s])
                        : std::vector<std::string>{answer_premise(sentence, question_)};
    known_[key] = claims;
    finished.push_back({key, std::move(claims), got.has_value()});
  }
  for (const ClaimStore::Finished& done : finished) started->done(done.key);
  store_.finish_all(std::move(finished));
}

// The claims of the keys other threads were extracting.
Status ClaimsExtraction::await_others() {
  for (auto& [key, pending] : waiting_) {
    const StatusOr<StoredClaims>& claims = pending.get();
    if (!claims.ok()) return claims.status();
    known_[key] = *claims;
  }
  return ok_status();
}

// A text's claims: its sentences' stored claims, each once.
std::vector<std::string> ClaimsExtraction::claims_of_text(const std::string& text,
                                                          std::size_t slot) {
  std::vector<std::string> out;
  // A short answer the judge gave no claim for ("American": an empty list) is its
  // question and itself, as the offline judge reads it; decided here, by the whole
  // text, since a sentence's stored claims serve it wherever it opens a text.
  if (const std::string premise = answer_premise(text, question_);
      premise != text && !is_noncommittal(text)) {
    bool any = false;
    for (std::size_t p : passages_of_[slot]) {
      for (const std::string& key : passages_[p].keys) any = any || !known_[key].claims.empty();
    }
    if (!any) out.push_back(premise);
  }
  const std::string language = options_.language.english() ? "en" : options_.language.code;
  for (std::size_t p : passages_of_[slot]) {
    for (std::size_t s = 0; s < passages_[p].keys.size(); ++s) {
      const std::vector<std::string>& stored = known_[passages_[p].keys[s]].claims;
      const std::string& sentence = passages_[p].sentences[s];
      // Decided on reading, not stored: claims stored before this check get it too.
      const std::vector<std::string> claims =
          claims_keep_facts(stored, sentence, language)
              ? stored
              : std::vector<std::string>{answer_premise(trim(sentence), question_)};
      for (const std::string& claim : claims) {
        if (std::find(out.begin(), out.end(), claim) == out.end()) out.push_back(claim);
      }
    }
  }
  return out;
}

// The calls behind a text's claims, each once in the log.
void ClaimsExtraction::log_calls_of_text(std::size_t slot) {
  if (!calls_) return;
  for (std::size_t p : passages_of_[slot]) {
    for (const std::string& key : passages_[p].keys) {
      const std::string& call = known_[key].call;
      if (!call.empty() && std::find(calls_->begin(), calls_->end(), call) == calls_->end()) {
        calls_->push_back(call);
      }
    }
  }
}

}  // namespace

StatusOr<std::vector<std::vector<std::string>>> extract_text_claims(
    const ClaimsCallOptions& options, std::string_view question,
    const std::vector<std::string>& texts, CallLog* calls) {
  return ClaimsExtraction(options, question, calls).run(texts);
}

}  // namespace ragmeter
