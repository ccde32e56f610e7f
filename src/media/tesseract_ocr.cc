// The Tesseract OCR reader (ocr.h): one TessBaseAPI per thread at a time, kept per
// language for reuse (Init loads the language's model, a fraction of a second), results
// kept in memory and in a SQLite cache by the image's SHA-256.
#include <leptonica/allheaders.h>
#include <tesseract/baseapi.h>
#include <tesseract/resultiterator.h>

#include <map>
#include <mutex>
#include <optional>
#include <utility>

#include "core/cache_dir.h"
#include "llm/response_cache.h"
#include "media/ocr_text.h"
#include "media/pix.h"
#include "ragmeter/ocr.h"

namespace ragmeter {
namespace {

// Changes whenever what is stored for an image changes (passage cutting, line joining).
constexpr std::string_view kOcrKeyVersion = "ragmeter-ocr-v1";

class TesseractReader : public OcrReader {
 public:
  explicit TesseractReader(OcrOptions options) : options_(std::move(options)) {}

  std::string engine() const override {
    return std::string("tesseract ") + tesseract::TessBaseAPI::Version();
  }

  StatusOr<OcrResult> read(const Image& image, std::string_view language) override {
    const std::string code =
        options_.language.empty() ? tesseract_language(language) : options_.language;
    if (code.empty()) {
      return failed_precondition("OCR: no Tesseract language is known for '" +
                                 std::string(language) + "' (--ocr-language names one)");
    }
    const std::string key = cache_key(image.sha256, code);
    if (auto kept = remembered(key)) return *kept;
    if (auto stored = from_store(key, image.sha256)) return *stored;
    RAGMETER_ASSIGN_OR_RETURN(OcrResult result, recognise(image, code));
    remember(key, result);
    store(key, result);
    return result;
  }

 private:
  using Api = std::unique_ptr<tesseract::TessBaseAPI>;

  std::string cache_key(const std::string& sha256, const std::string& code) const {
    return llm::content_address(std::string(kOcrKeyVersion) + "\n" + engine() + "\n" + code + "\n" +
                                sha256);
  }

  std::optional<OcrResult> remembered(const std::string& key) {
    std::lock_guard lock(mutex_);
    auto it = results_.find(key);
    if (it == results_.end()) return std::nullopt;
    return it->second;
  }

  void remember(const std::string& key, const OcrResult& result) {
    std::lock_guard lock(mutex_);
    if (results_.size() >= 4096) results_.clear();  // images are large; their text is not
    results_[key] = result;
  }

  llm::ResponseCache* cache() {
    std::lock_guard lock(mutex_);
    if (!cache_opened_) {
      cache_opened_ = true;
      llm::CacheOptions options = options_.cache;
      if (options.path.empty()) options.path = ragmeter_cache_dir() + "/ocr.sqlite";
      auto opened = llm::open_response_cache(options);
      if (opened.ok()) cache_ = std::move(opened).value();
    }
    return cache_.get();
  }

  std::optional<OcrResult> from_store(const std::string& key, const std::string& sha256) {
    llm::ResponseCache* store = cache();
    if (store == nullptr) return std::nullopt;
    auto value = store->get(key);
    if (!value.ok() || !value->has_value()) return std::nullopt;
    auto result = ocr_result_from_json(nlohmann::ordered_json::parse(**value, nullptr, false));
    if (!result || result->image_sha256 != sha256) return std::nullopt;
    result->from_cache = true;
    remember(key, *result);
    return result;
  }

  void store(const std::string& key, const OcrResult& result) {
    if (llm::ResponseCache* store = cache()) (void)store->put(key, "ocr", result.to_json().dump());
  }

  StatusOr<Api> acquire(const std::string& code) {
    {
      std::lock_guard lock(mutex_);
      auto& idle = idle_[code];
      if (!idle.empty()) {
        Api api = std::move(idle.back());
        idle.pop_back();
        return api;
      }
    }
    Api api = std::make_unique<tesseract::TessBaseAPI>();
    // Tesseract prints warnings (an image without a resolution) to stderr unless told.
    api->SetVariable("debug_file", "/dev/null");
    const char* data = options_.tessdata.empty() ? nullptr : options_.tessdata.c_str();
    if (api->Init(data, code.c_str(), tesseract::OEM_LSTM_ONLY) != 0) {
      return failed_precondition("OCR: Tesseract has no language data for '" + code +
                                 "' (Debian: apt-get install " + tesseract_package(code) + ")");
    }
    return api;
  }

  void release(const std::string& code, Api api) {
    api->Clear();
    std::lock_guard lock(mutex_);
    idle_[code].push_back(std::move(api));
  }

  StatusOr<OcrResult> recognise(const Image& image, const std::string& code) {
    PixPtr flat = decode_on_white(image);
    if (!flat) {
      return invalid_argument(std::string("OCR: the ") + image_mime_type(image.format) +
                              " image cannot be decoded");
    }
    RAGMETER_ASSIGN_OR_RETURN(Api api, acquire(code));
    api->SetImage(flat.get());
    if (pixGetXRes(flat.get()) < 70) api->SetSourceResolution(96);  // screen images carry none
    OcrResult result;
    result.image_sha256 = image.sha256;
    result.language = code;
    result.engine = engine();
    if (api->Recognize(nullptr) == 0) result.passages = read_passages(*api, code);
    release(code, std::move(api));
    return result;
  }

  static std::vector<OcrPassage> read_passages(tesseract::TessBaseAPI& api,
                                               const std::string& code) {
    std::vector<OcrPassage> passages;
    std::unique_ptr<tesseract::ResultIterator> it(api.GetIterator());
    if (!it) return passages;
    constexpr auto kLevel = tesseract::RIL_PARA;
    do {
      std::unique_ptr<char[]> raw(it->GetUTF8Text(kLevel));
      if (!raw) continue;
      OcrPassage passage;
      passage.text = join_ocr_lines(raw.get(), code);
      if (passage.text.empty()) continue;
      int left = 0, top = 0, right = 0, bottom = 0;
      it->BoundingBox(kLevel, &left, &top, &right, &bottom);
      passage.box = {left, top, right - left, bottom - top};
      passage.confidence = it->Confidence(kLevel);
      passages.push_back(std::move(passage));
    } while (it->Next(kLevel));
    return passages;
  }

  const OcrOptions options_;
  std::mutex mutex_;
  std::map<std::string, std::vector<Api>> idle_;
  std::map<std::string, OcrResult> results_;
  bool cache_opened_ = false;
  std::unique_ptr<llm::ResponseCache> cache_;
};

}  // namespace

std::shared_ptr<OcrReader> make_tesseract_reader(const OcrOptions& options) {
  return std::make_shared<TesseractReader>(options);
}

}  // namespace ragmeter
