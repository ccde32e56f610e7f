// The SentencePiece tokenizer of a build without libsentencepiece
// (RAGMETER_WITH_SENTENCEPIECE=OFF; docs/library.md, "Building without a dependency"):
// loading one fails with the reason, so the multilingual local model is not loaded and
// `--embedder local-multilingual` is refused saying why; the English model (WordPiece)
// is unaffected. No tokenizer is ever made, so the other members are never reached.
#include "embed/sentencepiece_tokenizer.h"

namespace ragmeter {

struct SentencePieceTokenizer::Impl {};

SentencePieceTokenizer::SentencePieceTokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SentencePieceTokenizer::SentencePieceTokenizer(SentencePieceTokenizer&&) noexcept = default;
SentencePieceTokenizer& SentencePieceTokenizer::operator=(SentencePieceTokenizer&&) noexcept = default;
SentencePieceTokenizer::~SentencePieceTokenizer() = default;

StatusOr<SentencePieceTokenizer> SentencePieceTokenizer::load(const std::string& path) {
  return parse({}, path);
}

StatusOr<SentencePieceTokenizer> SentencePieceTokenizer::parse(std::string_view, const std::string& name) {
  return failed_precondition(name + ": a SentencePiece tokenizer needs libsentencepiece, which this "
                             "ragmeter was built without (RAGMETER_WITH_SENTENCEPIECE=OFF)");
}

std::vector<std::int32_t> SentencePieceTokenizer::encode(std::string_view, std::size_t) const { return {}; }
std::int32_t SentencePieceTokenizer::bos_id() const { return 0; }
std::int32_t SentencePieceTokenizer::eos_id() const { return 0; }
std::int32_t SentencePieceTokenizer::unknown_id() const { return 0; }
std::size_t SentencePieceTokenizer::vocabulary_size() const { return 0; }

}  // namespace ragmeter
