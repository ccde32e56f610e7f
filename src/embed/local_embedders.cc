// Choosing the local embedder by language, and loading the models a setting names
// (include/ragmeter/sentence_embedder.h: LocalEmbedders, load_local_embedders).
#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utf8.h>

#include <filesystem>

#include "embed/packed_q4_model.h"
#include "ragmeter/sentence_embedder.h"

namespace ragmeter {
namespace {

namespace fs = std::filesystem;

bool has_model(const std::string& dir) {
  std::error_code error;
  return fs::is_regular_file(fs::path(dir) / "model.safetensors", error) ||
         fs::is_regular_file(fs::path(dir) / embed::kPackedQ4ModelFile, error);
}

StatusOr<std::shared_ptr<const SentenceEmbedder>> load_model(const std::string& path, int threads) {
  SentenceEmbedderOptions options;
  options.model_path = path;
  options.threads = threads;
  return SentenceEmbedder::load(options);
}

}  // namespace

// The one place that decides "not English" for the embedders (see the header).
bool embeds_as_english(std::string_view text) {
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const auto length = static_cast<int32_t>(text.size());
  std::size_t letters = 0, accented = 0;
  for (int32_t i = 0; i < length;) {
    UChar32 c = 0;
    U8_NEXT(s, i, length, c);
    if (c < 0 || !u_isalpha(c)) continue;
    ++letters;
    if (c < 0x80) continue;
    UErrorCode error = U_ZERO_ERROR;
    if (uscript_getScript(c, &error) != USCRIPT_LATIN) return false;
    ++accented;
  }
  return accented * 10 <= letters;
}

StatusOr<std::shared_ptr<DeferredSentenceEmbedder>> DeferredSentenceEmbedder::prepare(
    const SentenceEmbedderOptions& options) {
  if (options.threads < 1) return invalid_argument("the local embedder needs at least one thread");
  RAGMETER_ASSIGN_OR_RETURN(std::string identity, SentenceEmbedder::identity_of(options.model_path));
  return std::shared_ptr<DeferredSentenceEmbedder>(new DeferredSentenceEmbedder(options, std::move(identity)));
}

DeferredSentenceEmbedder::DeferredSentenceEmbedder(SentenceEmbedderOptions options, std::string identity)
    : options_(std::move(options)), identity_(std::move(identity)) {}

StatusOr<std::shared_ptr<const SentenceEmbedder>> DeferredSentenceEmbedder::get() const {
  std::call_once(once_, [this] {
    auto model = SentenceEmbedder::load(options_);
    if (model.ok()) {
      model_ = std::move(model).value();
    } else {
      error_ = model.status();
    }
    loaded_.store(true);
  });
  if (!error_.ok()) return error_;
  return model_;
}

bool DeferredSentenceEmbedder::loaded() const { return loaded_.load(); }

StatusOr<const SentenceEmbedder*> LocalEmbedders::multilingual_model() const {
  if (multilingual != nullptr || deferred_multilingual == nullptr) return multilingual.get();
  RAGMETER_ASSIGN_OR_RETURN(auto model, deferred_multilingual->get());
  return model.get();
}

StatusOr<const SentenceEmbedder*> LocalEmbedders::choose(std::initializer_list<std::string_view> texts) const {
  if (english == nullptr) return multilingual_model();
  if (!has_multilingual()) return english.get();
  for (std::string_view text : texts) {
    if (!embeds_as_english(text)) return multilingual_model();
  }
  return english.get();
}

std::string LocalEmbedders::identity() const {
  const std::string second = multilingual              ? multilingual->identity()
                             : deferred_multilingual ? deferred_multilingual->identity()
                                                     : std::string();
  if (english && !second.empty()) return english->identity() + " + " + second + " for text that is not English";
  return english ? english->identity() : second;
}

StatusOr<std::shared_ptr<const SentenceEmbedder>> load_embedder_choice(std::string_view choice,
                                                                      const std::string& model_path,
                                                                      int threads) {
  if (choice == "local-multilingual") {
    return load_model(model_path.empty() ? default_multilingual_embedder_model_path() : model_path, threads);
  }
  if (choice != "local" && choice != "auto") return std::shared_ptr<const SentenceEmbedder>();
  const std::string path = model_path.empty() ? default_embedder_model_path() : model_path;
  if (choice == "auto" && !has_model(path)) return std::shared_ptr<const SentenceEmbedder>();
  return load_model(path, threads);
}

StatusOr<LocalEmbedders> load_local_embedders(std::string_view choice, const std::string& model_path, int threads) {
  LocalEmbedders out;
  if (choice == "local" || choice == "local-multilingual") {
    RAGMETER_ASSIGN_OR_RETURN(auto model, load_embedder_choice(choice, model_path, threads));
    (choice == "local" ? out.english : out.multilingual) = std::move(model);
    return out;
  }
  if (choice != "auto") return out;
  RAGMETER_ASSIGN_OR_RETURN(out.english, load_embedder_choice("auto", model_path, threads));
  SentenceEmbedderOptions multilingual;
  multilingual.model_path = default_multilingual_embedder_model_path();
  multilingual.threads = threads;
  if (has_model(multilingual.model_path)) {
    RAGMETER_ASSIGN_OR_RETURN(out.deferred_multilingual, DeferredSentenceEmbedder::prepare(multilingual));
  }
  return out;
}

}  // namespace ragmeter
