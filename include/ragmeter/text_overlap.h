// Token-overlap text metrics: exact match, string presence, SQuAD EM and token F1,
// K-Precision and answer token recall.
//
// SQuAD normalisation (Rajpurkar et al., 2016, official v2.0 script): lowercase,
// remove ASCII punctuation, remove the articles a/an/the, collapse whitespace.
// K-Precision and answer token recall are the overlap metrics of Adlakha et al.
// (TACL 2024), over SQuAD-normalised tokens with multiset counts. Pure, thread-safe.
//
// SQuAD's normalisation splits on white space and removes English articles: a Chinese
// answer is one token, however much of it matches. OverlapTokens::kWords counts
// ragmeter's words instead (words.h: ICU's word break with its dictionaries for
// Chinese, Japanese, Thai, Khmer, Lao and Burmese, each word NFKC case-folded). The
// metric adapters choose kSquad for English samples, where it is the reference's
// definition, and kWords for every other language (docs/languages.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ragmeter {

// 1 when the two strings are byte-identical, else 0.
double exact_match(std::string_view response, std::string_view reference);
// 1 when `reference` occurs in `response` (case-sensitive), else 0.
double string_presence(std::string_view response, std::string_view reference);

// The SQuAD-normalised form of `text` (Unicode-aware lowercasing).
std::string squad_normalize(std::string_view text);
// SQuAD-normalised tokens.
std::vector<std::string> squad_tokens(std::string_view text);

// Both SQuAD scores take the max over the references that keep some token after
// normalisation, as the official v2.0 script does; when none does (or there is none),
// over one empty reference.
//
// 1 when the normalised response equals some normalised reference.
double squad_exact_match(std::string_view response, const std::vector<std::string>& references);
// Token F1 (multiset overlap) of the normalised texts. When either side has no tokens,
// 1 if both have none, else 0 (the official v2.0 rule).
double squad_token_f1(std::string_view response, const std::vector<std::string>& references);

// How the token-overlap metrics below make tokens.
enum class OverlapTokens {
  kSquad,  // SQuAD's normalize_answer(text).split()
  kWords,  // split_words (words.h), each word as append_word_key makes it
};

// The tokens for text in `language` (an ISO 639-1 code, language.h): kSquad for "en",
// "und" and "" (not known), where SQuAD's normalisation is the reference's definition;
// kWords for every other language.
OverlapTokens overlap_tokens_for(std::string_view language);

// squad_token_f1's rule with `tokens` (kSquad: squad_token_f1 itself).
double token_f1(std::string_view response, const std::vector<std::string>& references,
                OverlapTokens tokens);

// Share of the response's tokens (with multiplicity) found among the contexts' tokens;
// 0 when the response has no tokens.
double k_precision(std::string_view response, const std::vector<std::string>& contexts,
                   OverlapTokens tokens = OverlapTokens::kSquad);
// Share of the reference's tokens (with multiplicity) found among the response's tokens;
// 0 when the reference has no tokens.
double answer_token_recall(std::string_view response, std::string_view reference,
                           OverlapTokens tokens = OverlapTokens::kSquad);

}  // namespace ragmeter
