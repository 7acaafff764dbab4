// Text signatures for inspect.signature(). pybind11 writes each function's docstring as
// "name(arg: type = default, ...) -> result\n\ndoc", which help() shows but inspect cannot read:
// CPython takes a builtin's signature only from a docstring that starts "name(...)\n--\n\n".
// After every binding is made, each function's docstring gets that first line (the same
// parameters; annotations and defaults are valid Python, which inspect parses and whose
// annotations it ignores), followed by pybind11's own text, so help() is unchanged.
#include <Python.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "handles.h"

namespace marrow::python {
namespace {

// Calls visit(index, depth) for each character of `text` from `from` outside quoted text,
// with depth counting the brackets open before it; stops early when visit returns false.
template <typename Visit>
void scan(const std::string& text, std::size_t from, Visit visit) {
  int depth = 0;
  char quote = 0;
  for (std::size_t i = from; i < text.size(); ++i) {
    const char c = text[i];
    if (quote) {
      if (c == '\\') {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      continue;
    }
    if (c == ')' || c == ']' || c == '}') --depth;
    if (!visit(i, depth)) return;
    if (c == '(' || c == '[' || c == '{') ++depth;
  }
}

// The index of the ')' closing the '(' at `open` on the same line; npos when there is none.
std::size_t closing_paren(const std::string& s, std::size_t open) {
  std::size_t found = std::string::npos;
  scan(s, open, [&](std::size_t i, int depth) {
    if (s[i] == '\n') return false;
    if (depth == 0 && i > open) {
      if (s[i] == ')') found = i;
      return false;
    }
    return true;
  });
  return found;
}

// A float32 default as its shortest decimal (0.1f reads 0.1, not 0.10000000149011612).
std::string shortest_float(const std::string& text) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || text.find_first_of(".eE") == std::string::npos)
    return text;
  const float single = static_cast<float>(value);
  if (static_cast<double>(single) != value) return text;  // a true double: leave it
  for (int digits = 1; digits <= 9; ++digits) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
    if (static_cast<float>(std::strtod(buffer, nullptr)) != single) continue;
    std::string shortest = buffer;
    if (shortest.find_first_of(".eE") == std::string::npos) shortest += ".0";
    return shortest;
  }
  return text;
}

// A default as Python would write it: float32 numbers shortest, and a fixed-size vector (a
// std::array, which pybind11 shows as a list) as a tuple, the type the bindings document.
std::string readable_default(const std::string& text) {
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return shortest_float(text);
  std::string out = "(";
  std::size_t start = 1;
  while (start < text.size() - 1) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size() - 1;
    std::string item = text.substr(start, comma - start);
    item.erase(0, item.find_first_not_of(' '));
    const std::string number = shortest_float(item);
    if (number == item && item.find_first_not_of("0123456789.-+eE") != std::string::npos)
      return text;  // not a vector of numbers
    out += (out.size() > 1 ? ", " : "") + number;
    start = comma + 1;
  }
  return out + ")";
}

std::string trim(const std::string& x) {
  const std::size_t a = x.find_first_not_of(' '), b = x.find_last_not_of(' ');
  return a == std::string::npos ? std::string() : x.substr(a, b - a + 1);
}

// One parameter without its annotation ("a: int = 1" -> "a=1").
std::string without_annotation(const std::string& param) {
  // The first top-level ':' starts the annotation, the first top-level '=' the default.
  std::size_t colon = std::string::npos, equals = std::string::npos;
  scan(param, 0, [&](std::size_t i, int depth) {
    if (depth == 0 && param[i] == ':' && colon == std::string::npos && equals == std::string::npos)
      colon = i;
    if (depth == 0 && param[i] == '=' && equals == std::string::npos) equals = i;
    return true;
  });
  std::string out = trim(param.substr(0, std::min(colon, equals)));
  if (equals != std::string::npos) out += "=" + readable_default(trim(param.substr(equals + 1)));
  return out;
}

// The parameters without their annotations ("a: int = 1, b: str" -> "a=1, b"): inspect reads
// defaults from a text signature but refuses annotations.
std::string without_annotations(const std::string& params) {
  std::string out;
  std::size_t start = 0;
  const auto take = [&](std::size_t end) {
    out += (out.empty() ? "" : ", ") + without_annotation(params.substr(start, end - start));
    start = end + 1;
  };
  scan(params, 0, [&](std::size_t i, int depth) {
    if (depth == 0 && params[i] == ',') take(i);
    return true;
  });
  if (params.find_first_not_of(' ', start) != std::string::npos) take(params.size());
  return out;
}

// "name(params) -> result\n\ndoc" -> "name(names=defaults)\n--\n\nname(params) -> result\n\ndoc".
// Overloaded functions ("name(*args, **kwargs)\nOverloaded function. ...") take the same form.
void add_text_signature(PyCFunctionObject* function) {
  PyMethodDef* def = function->m_ml;
  if (def == nullptr || def->ml_doc == nullptr || def->ml_name == nullptr) return;
  const std::string doc = def->ml_doc;
  const std::string name = def->ml_name;
  if (doc.compare(0, name.size() + 1, name + "(") != 0) return;
  if (doc.find(")\n--\n\n") != std::string::npos) return;  // already has one
  const std::size_t close = closing_paren(doc, name.size());
  if (close == std::string::npos) return;
  const std::string params = doc.substr(name.size() + 1, close - name.size() - 1);
  const std::string text = name + "(" + without_annotations(params) + ")\n--\n\n" + doc;
  // pybind11 allocates ml_doc with strdup and frees it with free() (it rewrites it itself when
  // an overload is added), so the replacement is owned the same way.
  char* copy = static_cast<char*>(std::malloc(text.size() + 1));
  if (copy == nullptr) return;
  std::memcpy(copy, text.c_str(), text.size() + 1);
  std::free(const_cast<char*>(def->ml_doc));
  def->ml_doc = copy;
}

void add_text_signature(PyObject* object) {
  if (PyInstanceMethod_Check(object)) object = PyInstanceMethod_GET_FUNCTION(object);
  if (PyObject_TypeCheck(object, &PyStaticMethod_Type)) {
    py::object function = py::reinterpret_borrow<py::object>(object).attr("__func__");
    add_text_signature(function.ptr());
    return;
  }
  if (PyCFunction_Check(object)) add_text_signature(reinterpret_cast<PyCFunctionObject*>(object));
}

}  // namespace

void add_text_signatures(py::module_& m) {
  const py::dict names = m.attr("__dict__");
  for (const auto& [name, value] : names) {
    (void)name;
    if (PyType_Check(value.ptr())) {
      const py::dict members = value.attr("__dict__");
      for (const auto& [member, attribute] : members) {
        (void)member;
        add_text_signature(attribute.ptr());
      }
    } else {
      add_text_signature(value.ptr());
    }
  }
}

}  // namespace marrow::python
