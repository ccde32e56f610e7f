// The LLM judge: fills the claim ledger with an OpenAI-compatible chat model (the
// `compact` plan of docs/metrics.md).
//
// Calls per sample with K retrieved contexts, each one request through llm::Client (so
// retried, rate-limited and cached by content):
//   1   claims: the response's and the reference's claims, sentence by sentence, in one
//       call (one text when they are equal). Claims are a function of the text: each
//       sentence's claims are stored by the question, the text before it and the sentence
//       (docs/design.md), so the same words get the same claims in every metric, row and
//       run, and the call holds only the sentences not stored. Not made when both texts
//       are short answers (offline_judge.h's rule: one sentence of at most 5 words and no
//       verb): their claim is the question followed by the answer, as the offline judge
//       writes it, since small models tend to copy the fragment. A claim that is such a
//       fragment is replaced by its sentence (claims stand alone);
//   1   verdict table: every claim against every distinct premise at once (the K chunks,
//       the reference for the response's claims, the response for the reference's),
//       the reply listing per claim the passages that support it and those that
//       contradict it. When the window (context_tokens) cannot hold them all, the
//       premises are grouped into as few calls as fit, run concurrently; a premise too
//       long to share a call is judged on its own, split into pieces (see below).
// Within a call a repeated claim text is asked once; claims the reply leaves out are asked
// once more (one extra call). A call that is not needed (no claims, no premises) is not
// made.
// answer_relevancy adds one call (3 questions and a noncommittal flag) and, with an
// embedder, one embeddings request for the question and the generated questions;
// context_entity_recall one call for the reference's and the contexts' entities (one per
// text when they do not fit the window together); semantic similarity uses the embedder
// when one is configured, else the offline vectors (text_vectors.h). context_relevance
// asks once for the context sentences needed to answer the question (a copied text
// counts for the context sentence that contains it or that it contains); summary_score
// asks for the reference contexts' claims, then whether the response states each;
// aspect critics ask once per vote, rubric scores once.
//
// Verdicts are stored by content (verdict_cache below): each (claim, premise) pair once,
// however the calls were grouped, and in memory for the run; claims likewise. Two
// threads that need the same sentence's claims or the same (claim, premise) verdict at
// once make one request: the second waits for the first's answer. A rerun in which only the retriever changed asks one
// verdict call holding only the new chunks and the claims; the claims call is a cache hit.
//
// Prompts live in src/judge/prompts/*.txt, embedded at build time; every request is the
// same system message, then a user message with the task's fixed text followed by the
// sample's texts: the static part first, byte-identical across calls of a kind, so a
// server's prompt cache reuses it (docs/design.md, "Fixed text first").
// kLlmPromptVersion names the prompt set and is written into the ledger's provenance;
// the reply cache needs no version, as it keys on the prompt text itself, but stored
// verdicts carry it too: they are the model's verdicts after the checks in code
// (src/judge/llm/verdict_checks.h), so a change of the checks bumps the version; the re-ask
// of a long table's flagged claims (verdict_signs.h) did not, to keep every stored
// English verdict (docs/design.md, "Long passages").
//
// Languages: a sample in another language than English (Sample::language, else detected)
// gets one LANGUAGE line after its texts in every call whose reply writes text (claims,
// reasons, questions), asking for that language; a reply mostly in another script is
// asked again once, told so. Claims or questions still in another script fail the
// sample's claims or answer_relevancy; reasons still in another script keep their verdicts
// and the ledger (or the critic's and rubric's result) carries a warning. English samples
// get the requests of kLlmPromptVersion byte for byte. judged_languages() counts the
// samples by the language asked for (docs/judges.md, "Languages").
//
// Failures: when the claims call fails, the sample's ledger is an error (its metrics
// end `failed` with the reason). A failed verdict call leaves its cells missing, each
// with the call's error as reason; the metrics then say which claims were not judged.
// A reply with fewer verdicts than claims leaves the rest missing; verdicts for claim
// numbers that do not exist are ignored. Inputs are never truncated: a request longer
// than the model's window fails at the server and is reported as such.
//
// Thread-safe: any number of threads may ask for ledgers concurrently.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ragmeter/judge.h"
#include "ragmeter/llm.h"
#include "ragmeter/sentence_embedder.h"
#include "ragmeter/metric.h"

namespace ragmeter {

namespace llm {
class ReplyStore;  // judge_hooks.h
}  // namespace llm


inline constexpr std::string_view kLlmPromptVersion = "llm-v14";
// The version of the LANGUAGE lines (prompts/language.txt, language_insist.txt) that a
// sample in another language than English gets after the sample's texts; its ledger's
// provenance reads "llm-v14+lang-v1:zh". English requests have no such line and keep
// kLlmPromptVersion, so their cache entries and stored verdicts do not move
// (docs/design.md, "The judge writes in the sample's language").
inline constexpr std::string_view kLlmLanguagePromptVersion = "lang-v1";

struct LlmJudgeOptions {
  std::shared_ptr<llm::Client> chat;      // required
  std::string model;                      // the judge model, for provenance and reports
  std::string endpoint;                   // base URL, for reports (no key is ever in it)
  // The chat client's endpoint, to name each call by its cache key (llm::chat_cache_key).
  llm::EndpointOptions endpoint_options;
  std::shared_ptr<llm::Client> embedder;  // null: local_embedder, else offline similarity
  llm::EndpointOptions embedder_endpoint_options;
  // Similarity in-process (sentence_embedder.h: the English model, the multilingual one
  // for text that is not English) when `embedder` is null, batched across each evaluation
  // batch's rows (Judge::prepare_batch). None: the offline vectors.
  LocalEmbedders local_embedder;
  int max_tokens = 2048;                  // per reply
  // The judge model's context window in tokens; 0: unknown (nothing is split, and a
  // request too long for the model fails at the server, its metrics `failed` with the
  // server's error). When set, a verdict call whose prompt (estimated at 3 bytes per
  // token) would not fit with a reply reserve of min(max_tokens, window / 4) is split:
  // the premise into pieces between sentences, the claims into groups, every group
  // judged against every piece; a claim's verdict is Entailment when some piece entails
  // it, else Contradiction when one contradicts it, else Neutral. Nothing is truncated.
  // A claims call too long for the window becomes one call per text (response,
  // reference), each text in pieces between sentences, the claims of the pieces in order.
  int context_tokens = 0;
  // The ragas plan (--plan ragas): faithfulness, context recall/precision/utilization,
  // noise sensitivity and factual_correctness (with answer_correctness) each build their
  // own ledger with ragas's call structure instead of reading the shared one:
  //   faithfulness / context_recall   1 statements call + 1 verdict call against all
  //                                   contexts joined (ragas's NLI over the context)
  //   context_precision / _utilization  1 call per chunk: is the whole reference
  //                                   (response) supported by the chunk
  //   noise_sensitivity               2 statements calls + 2K chunk calls + 1 (vs R)
  //   factual_correctness             2 statements calls + 2 verdict calls
  // The other metrics read the compact ledger as before. Statements are the claims of
  // the claim store (one call per text, as ragas makes, unless the text's sentences are
  // stored), so the two plans read the same claims of the same words. For comparing with
  // a ragas baseline and with the compact plan; the numbers are close to ragas's, not equal.
  bool ragas_plan = false;
  // Images among the contexts (docs/images.md). true: the model sees them (OpenAI
  // image_url parts with data URIs): multimodal_faithfulness / multimodal_relevance are one
  // "vision" call per sample, and the claim-level multimodal metrics ask one
  // "image_verdicts" call per image for every claim. The model must accept images (the
  // server's error otherwise fails the metric). false (--judge-images ocr): the images'
  // text is read by OCR and judged as text, and the one-call metrics are skipped.
  bool vision = true;
  // The image_url "detail" sent: "low" (OpenAI: 85 tokens an image), "high", "auto" or ""
  // (none sent). --judge-image-detail.
  std::string image_detail = "auto";
  // The server's limits: images in one request, and bytes of one image (decoded). A
  // sample that needs more in one call fails with the reason (--judge-max-images,
  // --judge-max-image-bytes); nothing is dropped or shrunk. OpenAI: 500 images and 50 MB
  // a request; llama.cpp's server takes what its model's projector takes.
  int max_images_per_request = 16;
  std::size_t max_image_bytes = 20 * 1024 * 1024;
  // Where verdicts and claims are stored by content (verdicts: claim text, premise text,
  // model and prompt texts; claims: question, text before the sentence, sentence, model
  // and prompt texts), so that a rerun asks only for the (claim, premise) pairs and the
  // sentences it has not seen however the calls are grouped: normally the chat client's
  // cache file and mode. nullopt: stored for this run only (in memory).
  std::optional<llm::CacheOptions> verdict_cache;
  // Set with verdict_cache: verdicts and claims are kept in this store (shared with
  // other processes, judge_hooks.h) under verdict_cache's mode; its path is not opened.
  // So the workers of a cluster run share claims as they share verdicts and replies.
  std::shared_ptr<llm::ReplyStore> verdict_store;
};

// InvalidArgument when options.chat is null.
StatusOr<std::shared_ptr<Judge>> make_llm_judge(LlmJudgeOptions options);

// The offline judge (make_offline_judge) with similarities from an embeddings server:
// for a run with an embedder and no chat model. semantic_similarity, answer_relevancy's
// similarities and answer_correctness's similarity part embed through `embedder` (one
// request per similarity, counted as "embeddings" in usage_by_call); everything else is
// the offline judge's. `endpoint` is the embedder's, for cache keys and the description.
// A null `embedder` gives the plain offline judge. Thread-safe.
std::shared_ptr<Judge> make_offline_judge_with_embedder(std::shared_ptr<llm::Client> embedder,
                                                        llm::EndpointOptions endpoint);

// ---- Planning (--dry-run) --------------------------------------------------------

// The calls the LLM judge would make for one sample and the requested metrics, before
// any cache lookup, and a rough token estimate (4 bytes of prompt per token; claims as
// long as the texts they come from; ~30 completion tokens per verdict). Verdict tables
// are grouped by the window as the judge groups them (`context_tokens`, `max_tokens` as
// in LlmJudgeOptions); a premise too long for a call of its own is counted once, though
// the judge splits it into several. Follow-ups for claims a reply leaves out are not
// counted. Which calls a metric makes comes from the metric table (MetricInfo::calls).
struct PlannedCalls {
  // by kind, as usage.by_call names them: claims, verdicts, questions, entities,
  // embeddings, relevant_sentences, critic (every critic's votes), rubric
  std::map<std::string, std::int64_t> calls;
  std::int64_t prompt_tokens = 0;
  std::int64_t completion_tokens = 0;

  std::int64_t total_calls() const;
  PlannedCalls& operator+=(const PlannedCalls& other);
};

// How the judge whose calls are planned is set up.
struct CallPlanOptions {
  bool with_embedder = false;  // similarity goes to an embeddings endpoint (else offline, no call)
  int context_tokens = 0;      // the judge's context window (LlmJudgeOptions); 0: no limit
  int max_tokens = 2048;       // a reply's tokens at most (LlmJudgeOptions)
  int critic_votes = 1;        // judgements per aspect critic (--critic-votes)
  bool ragas_plan = false;     // --plan ragas: each metric its own ledger calls, as ragas
};

// The calls the LLM judge would make for `metrics` on `sample`, by kind, with estimated
// tokens. A conversation: the single-turn metrics' calls for each of its turns (as
// evaluate scores them, turn by turn) and the judged conversation metrics' calls over the
// whole of it.
PlannedCalls plan_llm_calls(const Sample& sample, const std::vector<MetricRequest>& metrics,
                            const CallPlanOptions& options);

// ---- The requests, exposed for tests --------------------------------------------

// The claims request: the question, then each text with its sentences labelled "[S1]",
// "[S2]", ... (sentences that share a store key share a label; "[S01]" ... "[S12]" when the
// largest label has two digits, so that the keys sort in order), then the keys asked, and
// a reply object with one required key per asked label: "Sn" -> the claims of that
// sentence (a list of strings). Sentences not asked are shown for their context only.
struct ClaimsPrompt {
  std::string question;
  // Each text as its sentences in order, each with its label number (1 for "S1").
  std::vector<std::vector<std::pair<std::size_t, std::string>>> texts;
  std::vector<std::size_t> asked;  // label numbers the reply must give claims for
};
// `instruction`: the LANGUAGE line asking for the sample's language (docs/judges.md,
// "Languages"), after the sample's texts; empty for English (the request is then byte for
// byte the one prompts llm-v12 sent). The same for the other requests below.
llm::ChatRequest llm_claims_request(const ClaimsPrompt& prompt, std::string_view instruction = {});
// The claims of label `label` in a reply to llm_claims_request(prompt); nullopt when the
// key is absent or not a list (non-string and empty items are skipped).
std::optional<std::vector<std::string>> read_llm_sentence_claims(const nlohmann::json& reply,
                                                                 const ClaimsPrompt& prompt,
                                                                 std::size_t label);
// The verdicts request: numbered claims (1-based) against one premise; the reply's
// "verdicts" list has exactly one entry per claim (minItems = maxItems = claims).
llm::ChatRequest llm_verdicts_request(const std::vector<std::string>& claims,
                                      std::string_view premise, std::string_view instruction = {});
// The verdict table request of the compact plan: claims numbered from 1, premises
// labelled "P1", "P2", ... (numbers zero-padded to the table's largest, "P01: claim 07",
// so that the schema's keys, serialised sorted, are in this order), and a reply object
// with "Evidence i" per claim first (the passage sentence the claim rests on, copied, or
// "none"), then one required key per asked cell, "Pj: claim i" -> "Entailment" |
// "Neutral" | "Contradiction", passage by passage, then "reason i" per claim. `pairs` are
// the (claim, premise) cells to ask, 0-based; empty: every claim against every premise.
// Only the cells a ledger needs are asked, so a claim is never asked against the text it
// came from.
llm::ChatRequest llm_verdict_table_request(
    const std::vector<std::string>& claims, const std::vector<std::string>& premises,
    const std::vector<std::pair<std::size_t, std::size_t>>& pairs = {},
    std::string_view instruction = {});

// The cells [claim][premise] of a verdict table reply: each key "Pj: claim i" with a
// verdict label fills its cell (non-entailed cells get "reason i" as reason); cells
// without a key or with another value stay missing with no reason. The evidence is not
// read here: the judge checks it against the passages (src/judge/llm/verdict_checks.h).
std::vector<std::vector<VerdictCell>> read_llm_verdict_table(const nlohmann::json& reply,
                                                             std::size_t claims,
                                                             std::size_t premises);

// Reads a verdicts reply into cells (one per claim, missing where the reply says
// nothing about a claim).
std::vector<VerdictCell> read_llm_verdicts(const nlohmann::json& reply, std::size_t claims);

}  // namespace ragmeter
