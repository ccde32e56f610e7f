// Memory-mapped safetensors reader (safetensors.h).
#include "embed/safetensors.h"

#include <string_view>

#include <nlohmann/json.hpp>

namespace ragmeter::embed {
namespace {

std::size_t dtype_size(const std::string& dtype) {
  if (dtype == "F64" || dtype == "I64" || dtype == "U64") return 8;
  if (dtype == "F32" || dtype == "I32" || dtype == "U32") return 4;
  if (dtype == "F16" || dtype == "BF16" || dtype == "I16" || dtype == "U16") return 2;
  if (dtype == "I8" || dtype == "U8" || dtype == "BOOL" || dtype == "F8_E4M3" || dtype == "F8_E5M2") {
    return 1;
  }
  return 0;
}

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

}  // namespace

std::int64_t TensorView::elements() const {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

SafetensorsFile::~SafetensorsFile() = default;

StatusOr<std::shared_ptr<const SafetensorsFile>> SafetensorsFile::open(const std::string& path) {
  std::shared_ptr<SafetensorsFile> file(new SafetensorsFile());
  file->path_ = path;
  RAGMETER_ASSIGN_OR_RETURN(file->map_, MappedFile::open(path));
  if (file->map_->size() < 8) {
    return invalid_argument(path + ": not a safetensors file (shorter than its 8-byte header length)");
  }
  const std::size_t map_size = file->map_->size();
  const std::byte* bytes = file->map_->data();

  std::uint64_t header_length = 0;
  for (int i = 7; i >= 0; --i) header_length = (header_length << 8) | std::to_integer<std::uint64_t>(bytes[i]);
  if (header_length > map_size - 8) {
    return invalid_argument(path + ": header length " + std::to_string(header_length) +
                            " runs past the end of the file");
  }
  const std::string_view header(reinterpret_cast<const char*>(bytes + 8), header_length);
  const nlohmann::json doc = nlohmann::json::parse(header, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return invalid_argument(path + ": header is not a JSON object");
  const std::byte* data = bytes + 8 + header_length;
  const std::size_t data_size = map_size - 8 - header_length;
  for (const auto& [name, entry] : doc.items()) {
    if (name == "__metadata__") continue;
    auto bad = [&](const std::string& what) { return invalid_argument(path + ": tensor " + name + ": " + what); };
    if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") ||
        !entry.contains("data_offsets")) {
      return bad("needs dtype, shape and data_offsets");
    }
    TensorView view;
    try {
      view.dtype = entry["dtype"].get<std::string>();
      view.shape = entry["shape"].get<std::vector<std::int64_t>>();
      const auto offsets = entry["data_offsets"].get<std::vector<std::uint64_t>>();
      if (offsets.size() != 2 || offsets[0] > offsets[1] || offsets[1] > data_size) {
        return bad("data_offsets outside the file's data");
      }
      const std::size_t size = dtype_size(view.dtype);
      if (size == 0) return bad("unknown dtype " + view.dtype);
      for (std::int64_t d : view.shape) {
        if (d < 0) return bad("negative dimension in shape " + shape_text(view.shape));
      }
      view.data = data + offsets[0];
      view.bytes = static_cast<std::size_t>(offsets[1] - offsets[0]);
      if (static_cast<std::uint64_t>(view.elements()) * size != view.bytes) {
        return bad("shape " + shape_text(view.shape) + " of " + view.dtype + " needs " +
                   std::to_string(view.elements() * static_cast<std::int64_t>(size)) +
                   " bytes, data_offsets give " + std::to_string(view.bytes));
      }
    } catch (const nlohmann::json::exception& e) {
      return bad(e.what());
    }
    file->tensors_.emplace(name, std::move(view));
  }
  return std::shared_ptr<const SafetensorsFile>(std::move(file));
}

StatusOr<const float*> SafetensorsFile::f32(const std::string& name,
                                            const std::vector<std::int64_t>& shape) const {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) return invalid_argument(path_ + ": no tensor " + name);
  const TensorView& view = it->second;
  if (view.dtype != "F32") return invalid_argument(path_ + ": tensor " + name + " is " + view.dtype + ", not F32");
  if (view.shape != shape) {
    return invalid_argument(path_ + ": tensor " + name + " has shape " + shape_text(view.shape) +
                            ", expected " + shape_text(shape));
  }
  if (reinterpret_cast<std::uintptr_t>(view.data) % alignof(float) != 0) {
    return invalid_argument(path_ + ": tensor " + name + " is not 4-byte aligned");
  }
  return reinterpret_cast<const float*>(view.data);
}

}  // namespace ragmeter::embed
