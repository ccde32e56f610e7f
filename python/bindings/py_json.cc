// Python values <-> JSON values (py_json.h).
#include "py_json.h"

#include <cmath>
#include <cstring>

namespace nb = nanobind;

namespace ragmeter::python {
namespace {

using Json = nlohmann::ordered_json;

// pandas' missing-value singletons, recognised by type name so pandas is not imported.
bool is_pandas_missing(PyObject* value) {
  const char* name = Py_TYPE(value)->tp_name;
  return std::strcmp(name, "NAType") == 0 || std::strcmp(name, "NaTType") == 0;
}

std::optional<std::string> string_to_json(PyObject* value, Json* out) {
  Py_ssize_t size = 0;
  const char* utf8 = PyUnicode_AsUTF8AndSize(value, &size);
  if (utf8 == nullptr) {  // a lone surrogate: not encodable as UTF-8
    PyErr_Clear();
    return std::string("a str that is not valid Unicode (a lone surrogate)");
  }
  *out = std::string(utf8, static_cast<std::size_t>(size));
  return std::nullopt;
}

std::optional<std::string> sequence_to_json(PyObject* value, Json* out) {
  PyObject* fast = PySequence_Fast(value, "not a sequence");
  if (fast == nullptr) {
    PyErr_Clear();
    return std::string("a sequence that cannot be read");
  }
  Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
  PyObject** items = PySequence_Fast_ITEMS(fast);
  *out = Json::array();
  out->get_ref<Json::array_t&>().reserve(static_cast<std::size_t>(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    Json item;
    if (auto error = to_json(items[i], &item)) {
      Py_DECREF(fast);
      return "item " + std::to_string(i) + ": " + *error;
    }
    out->push_back(std::move(item));
  }
  Py_DECREF(fast);
  return std::nullopt;
}

std::optional<std::string> mapping_to_json(PyObject* value, Json* out) {
  *out = Json::object();
  auto add = [&](PyObject* key, PyObject* item) -> std::optional<std::string> {
    if (!PyUnicode_Check(key)) {
      return std::string("a key of type '") + Py_TYPE(key)->tp_name + "' (keys must be str)";
    }
    Json name;
    if (auto error = string_to_json(key, &name)) return error;
    Json converted;
    if (auto error = to_json(item, &converted)) {
      return "key '" + name.get_ref<const std::string&>() + "': " + *error;
    }
    (*out)[name.get_ref<const std::string&>()] = std::move(converted);
    return std::nullopt;
  };
  if (PyDict_Check(value)) {
    PyObject *key, *item;
    Py_ssize_t pos = 0;
    while (PyDict_Next(value, &pos, &key, &item)) {
      if (auto error = add(key, item)) return error;
    }
    return std::nullopt;
  }
  PyObject* items = PyMapping_Items(value);
  if (items == nullptr) {
    PyErr_Clear();
    return std::string("a mapping whose items cannot be read");
  }
  std::optional<std::string> error;
  for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items) && !error; ++i) {
    PyObject* pair = PyList_GET_ITEM(items, i);
    error = add(PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1));
  }
  Py_DECREF(items);
  return error;
}

// numpy arrays and scalars: their tolist() is plain Python values.
std::optional<std::string> tolist_to_json(PyObject* value, Json* out) {
  PyObject* plain = PyObject_CallMethod(value, "tolist", nullptr);
  if (plain == nullptr) {
    PyErr_Clear();
    return std::string("a value of type '") + Py_TYPE(value)->tp_name + "' whose tolist() failed";
  }
  auto error = to_json(plain, out);
  Py_DECREF(plain);
  return error;
}

}  // namespace

std::optional<std::string> to_json(PyObject* value, Json* out) {
  if (value == Py_None) {
    *out = nullptr;
  } else if (PyUnicode_Check(value)) {
    return string_to_json(value, out);
  } else if (PyBool_Check(value)) {
    *out = value == Py_True;
  } else if (PyLong_Check(value)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (overflow != 0) return std::string("an int too large for 64 bits");
    *out = static_cast<std::int64_t>(v);
  } else if (PyFloat_Check(value)) {
    double v = PyFloat_AS_DOUBLE(value);
    if (std::isnan(v)) {
      *out = nullptr;  // pandas' missing value
    } else {
      *out = v;
    }
  } else if (PyList_Check(value) || PyTuple_Check(value)) {
    return sequence_to_json(value, out);
  } else if (PyDict_Check(value)) {
    return mapping_to_json(value, out);
  } else if (is_pandas_missing(value)) {
    *out = nullptr;
  } else if (PyObject_HasAttrString(value, "tolist")) {
    return tolist_to_json(value, out);
  } else if (PyMapping_Check(value) && PyObject_HasAttrString(value, "items")) {
    return mapping_to_json(value, out);
  } else {
    return std::string("unsupported type '") + Py_TYPE(value)->tp_name + "'";
  }
  return std::nullopt;
}

nb::object from_json(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
    case Json::value_t::discarded:
      return nb::none();
    case Json::value_t::boolean:
      return nb::bool_(value.get<bool>());
    case Json::value_t::number_integer:
      return nb::int_(value.get<std::int64_t>());
    case Json::value_t::number_unsigned:
      return nb::steal(PyLong_FromUnsignedLongLong(value.get<std::uint64_t>()));
    case Json::value_t::number_float:
      return nb::float_(value.get<double>());
    case Json::value_t::string: {
      const auto& s = value.get_ref<const std::string&>();
      return nb::steal(PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace"));
    }
    case Json::value_t::binary:
      return nb::none();
    case Json::value_t::array: {
      nb::list list;
      for (const auto& item : value) list.append(from_json(item));
      return list;
    }
    case Json::value_t::object: {
      nb::dict dict;
      for (auto it = value.begin(); it != value.end(); ++it) dict[nb::str(it.key().data(), it.key().size())] = from_json(*it);
      return dict;
    }
  }
  return nb::none();
}

}  // namespace ragmeter::python
