// Claim extraction by sentence, stored by text (llm_claims.h).
#include "judge/llm_claims.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "judge/llm_window.h"
#include "judge/verdict_table.h"
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

StatusOr<std::vector<std::vector<std::string>>> extract_text_claims(
    const ClaimsCallOptions& options, std::string_view question,
    const std::vector<std::string>& texts, CallLog* calls) {
  ClaimStore& store = *options.store;
  const int window = options.context_tokens;
  const std::string instruction = language_instruction(options.language, kClaimsWhat);
  // Distinct texts, each one passage when all fit together, else in pieces of its own.
  std::vector<std::string> distinct;
  std::vector<std::size_t> text_slot(texts.size());
  std::size_t total_bytes = question.size();
  for (std::size_t t = 0; t < texts.size(); ++t) {
    auto it = std::find(distinct.begin(), distinct.end(), texts[t]);
    text_slot[t] = static_cast<std::size_t>(it - distinct.begin());
    if (it == distinct.end() && !texts[t].empty()) {
      distinct.push_back(texts[t]);
      total_bytes += texts[t].size() + kLabelBytes * split_sentences(texts[t]).size();
    }
  }
  const bool together = fits_judge_window(total_bytes, prompts::k_claims.size() + instruction.size(),
                                          window, options.max_tokens);
  std::vector<Passage> passages;
  std::vector<std::vector<std::size_t>> passages_of(distinct.size());
  for (std::size_t d = 0; d < distinct.size(); ++d) {
    std::vector<std::string> pieces = {distinct[d]};
    if (!together) {
      const std::int64_t room =
          window - reply_reserve(window, options.max_tokens) -
          estimate_tokens(prompts::k_system.size() + prompts::k_claims.size() + instruction.size() +
                          64 + question.size());
      if (room < 32) {
        return invalid_argument("the judge's context window (" + std::to_string(window) +
                                " tokens) leaves no room to extract claims");
      }
      pieces = split_to_fit(distinct[d], room - room / 5);  // a fifth for the labels
    }
    for (const std::string& piece : pieces) {
      passages_of[d].push_back(passages.size());
      passages.push_back(read_passage(store, question, piece, instruction));
    }
  }

  // Labels per distinct key, in order of first appearance; where each key appears first.
  std::map<std::string, std::size_t> label_of;
  std::vector<std::string> keys;  // by label - 1
  std::vector<std::pair<std::size_t, std::size_t>> first_seen;  // (passage, sentence)
  for (std::size_t p = 0; p < passages.size(); ++p) {
    for (std::size_t s = 0; s < passages[p].keys.size(); ++s) {
      if (label_of.emplace(passages[p].keys[s], keys.size() + 1).second) {
        keys.push_back(passages[p].keys[s]);
        first_seen.emplace_back(p, s);
      }
    }
  }

  // Known, in flight elsewhere, or ours to ask.
  std::map<std::string, StoredClaims> known;
  std::map<std::string, std::shared_future<StatusOr<StoredClaims>>> waiting;
  std::vector<std::size_t> to_ask;  // labels
  StartedKeys started(store);
  auto entries = store.find_or_start_all(keys);
  for (std::size_t label = 1; label <= keys.size(); ++label) {
    const std::string& key = keys[label - 1];
    if (auto& pending = entries[label - 1]) {
      waiting.emplace(key, std::move(*pending));
    } else if (std::optional<StoredClaims> loaded = store.load(key)) {
      store.remember(key, *loaded);
      known.emplace(key, std::move(*loaded));
    } else {
      started.add(key);
      to_ask.push_back(label);
    }
  }

  // One call for every passage at once when they fit, else one per passage.
  std::vector<std::vector<std::size_t>> call_passages;
  if (together) {
    call_passages.emplace_back();
    for (std::size_t p = 0; p < passages.size(); ++p) call_passages.back().push_back(p);
  } else {
    for (std::size_t p = 0; p < passages.size(); ++p) call_passages.push_back({p});
  }
  Status failure = ok_status();
  bool asked_any = false;
  for (const std::vector<std::size_t>& group : call_passages) {
    ClaimsPrompt prompt;
    prompt.question = std::string(question);
    for (std::size_t label : to_ask) {
      if (std::find(group.begin(), group.end(), first_seen[label - 1].first) != group.end()) {
        prompt.asked.push_back(label);
      }
    }
    if (prompt.asked.empty()) continue;
    for (std::size_t p : group) {
      auto& shown = prompt.texts.emplace_back();
      for (std::size_t s = 0; s < passages[p].sentences.size(); ++s) {
        shown.emplace_back(label_of[passages[p].keys[s]], passages[p].sentences[s]);
      }
    }
    asked_any = true;
    LanguageReply answer = chat_in_language(
        *options.book, *options.client, options.language, kClaimsWhat,
        [&prompt](const std::string& line) { return llm_claims_request(prompt, line); },
        [&prompt](const nlohmann::json& reply) { return asked_claims(reply, prompt); }, "claims",
        calls);
    const std::string call = answer.call;
    StatusOr<nlohmann::json> reply = std::move(answer.reply);
    if (reply.ok() && answer.wrong) {
      reply = invalid_argument(wrong_script_message(options.language, "the claims", *answer.wrong));
    }
    std::vector<ClaimStore::Finished> finished;  // stored together (claim_store.h)
    for (std::size_t label : prompt.asked) {
      const std::string& key = keys[label - 1];
      if (!reply.ok()) {
        finished.push_back({key, reply.status(), false});
        continue;
      }
      const auto [p, s] = first_seen[label - 1];
      const std::string& sentence = passages[p].sentences[s];
      std::optional<std::vector<std::string>> got = read_llm_sentence_claims(*reply, prompt, label);
      StoredClaims claims;
      claims.call = call;
      claims.claims = got ? standalone_claims(*got, sentence, question, passages[p].befores[s])
                          : std::vector<std::string>{answer_premise(sentence, question)};
      known[key] = claims;
      finished.push_back({key, std::move(claims), got.has_value()});
    }
    for (const ClaimStore::Finished& done : finished) started.done(done.key);
    store.finish_all(std::move(finished));
    if (!reply.ok() && failure.ok()) failure = reply.status();
  }
  RAGMETER_RETURN_IF_ERROR(failure);
  for (auto& [key, pending] : waiting) {
    const StatusOr<StoredClaims>& claims = pending.get();
    if (!claims.ok()) return claims.status();
    known[key] = *claims;
  }
  if (!asked_any && !keys.empty()) {
    options.book->record_store_hit("claims");  // a call the store made unnecessary
  }

  std::vector<std::vector<std::string>> out(texts.size());
  for (std::size_t t = 0; t < texts.size(); ++t) {
    if (texts[t].empty()) continue;
    // A short answer the judge gave no claim for ("American": an empty list) is its
    // question and itself, as the offline judge reads it; decided here, by the whole
    // text, since a sentence's stored claims serve it wherever it opens a text.
    if (const std::string premise = answer_premise(texts[t], question);
        premise != texts[t] && !is_noncommittal(texts[t])) {
      bool any = false;
      for (std::size_t p : passages_of[text_slot[t]]) {
        for (const std::string& key : passages[p].keys) any = any || !known[key].claims.empty();
      }
      if (!any) out[t].push_back(premise);
    }
    for (std::size_t p : passages_of[text_slot[t]]) {
      for (const std::string& key : passages[p].keys) {
        const StoredClaims& stored = known[key];
        for (const std::string& claim : stored.claims) {
          if (std::find(out[t].begin(), out[t].end(), claim) == out[t].end()) out[t].push_back(claim);
        }
        if (calls && !stored.call.empty() &&
            std::find(calls->begin(), calls->end(), stored.call) == calls->end()) {
          calls->push_back(stored.call);
        }
      }
    }
  }
  return out;
}

}  // namespace ragmeter
