// NumPy arrays over marrow's data, checked: a wrong shape or dtype raises TypeError or ValueError
// naming the argument, never reads out of bounds. Results are new arrays the C++ code writes
// into directly (no copies); data an Asset owns is exposed as read-only views that keep the
// Asset alive.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <span>
#include <string>

#include "marrow/math/mat4.h"
#include "marrow/math/transform.h"

namespace marrow::python {

namespace py = pybind11;

// A local pose is (joints, 10) float32: translation xyz, rotation xyzw, scale xyz.
static_assert(sizeof(Transform) == 10 * sizeof(float), "Transform is 10 packed floats");
static_assert(sizeof(Mat4) == 16 * sizeof(float), "Mat4 is 16 packed floats");

using FloatArray = py::array_t<float, py::array::c_style>;

// Raises TypeError unless `a` is a C-contiguous float32 array, ValueError unless its shape is
// `shape` (-1 matches any extent).
inline py::array checked(const py::handle& object, const char* name,
                         std::initializer_list<py::ssize_t> shape) {
  if (!py::isinstance<py::array>(object)) {
    throw py::type_error(std::string(name) + ": expected a numpy float32 array, got " +
                         std::string(py::str(py::type::of(object).attr("__name__"))));
  }
  py::array a = py::reinterpret_borrow<py::array>(object);
  if (!a.dtype().is(py::dtype::of<float>())) {
    throw py::type_error(std::string(name) + ": expected dtype float32, got " +
                         std::string(py::str(a.dtype())));
  }
  auto shape_text = [](auto begin, auto end) {
    std::string s = "(";
    for (auto it = begin; it != end; ++it) {
      s += (it == begin ? "" : ", ") + (*it < 0 ? std::string("any") : std::to_string(*it));
    }
    return s + (end - begin == 1 ? ",)" : ")");
  };
  bool ok = static_cast<std::size_t>(a.ndim()) == shape.size();
  for (std::size_t i = 0; ok && i < shape.size(); ++i) {
    const py::ssize_t want = shape.begin()[i];
    ok = want < 0 || a.shape(static_cast<py::ssize_t>(i)) == want;
  }
  if (!ok) {
    throw py::value_error(std::string(name) + ": expected shape " +
                          shape_text(shape.begin(), shape.end()) + ", got " +
                          shape_text(a.shape(), a.shape() + a.ndim()));
  }
  if (!(a.flags() & py::array::c_style)) {
    throw py::value_error(std::string(name) +
                          ": expected a C-contiguous array (np.ascontiguousarray)");
  }
  return a;
}

inline std::span<const Transform> pose_in(const py::handle& object, const char* name,
                                          std::size_t joints) {
  py::array a = checked(object, name, {static_cast<py::ssize_t>(joints), 10});
  return {static_cast<const Transform*>(a.data()), joints};
}

inline std::span<Transform> pose_out(py::array& a, const char* name, std::size_t joints) {
  a = checked(a, name, {static_cast<py::ssize_t>(joints), 10});
  if (!a.writeable()) throw py::value_error(std::string(name) + ": the array is read-only");
  return {static_cast<Transform*>(a.mutable_data()), joints};
}

// Model matrices as (joints, 4, 4) with [j, row, column] indexing. marrow stores them column-major,
// so the array is a strided view of the same memory (row stride 4 bytes, column stride 16).
inline py::array matrices_view(Mat4* data, std::size_t count, py::handle base, bool writeable) {
  py::array a(py::dtype::of<float>(),
              {static_cast<py::ssize_t>(count), py::ssize_t{4}, py::ssize_t{4}},
              {static_cast<py::ssize_t>(sizeof(Mat4)), py::ssize_t{4}, py::ssize_t{16}},
              data->m.data(), base);
  if (!writeable)
    py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

// New (count, 4, 4) matrices and the Mat4s to write them through.
inline std::pair<py::array, std::span<Mat4>> new_matrices(std::size_t count) {
  py::array_t<float> storage({static_cast<py::ssize_t>(count) * 16});
  Mat4* data = reinterpret_cast<Mat4*>(storage.mutable_data());
  return {matrices_view(data, count, storage, true), {data, count}};
}

// Model matrices given by the caller: (joints, 4, 4) float32 with [j, row, column] indexing.
// local_to_model's own arrays are used in place; any other layout is copied once.
struct MatricesIn {
  std::span<const Mat4> view;
  std::vector<Mat4> copy;
  py::array keep;  // holds the caller's array while `view` points into it
};

inline MatricesIn matrices_in(const py::handle& object, const char* name, std::size_t joints) {
  const std::string shape = "(" + std::to_string(joints) + ", 4, 4)";
  if (!py::isinstance<py::array>(object)) {
    throw py::type_error(std::string(name) + ": expected a numpy float32 array of shape " + shape);
  }
  MatricesIn in;
  in.keep = py::reinterpret_borrow<py::array>(object);
  const py::array& a = in.keep;
  if (!a.dtype().is(py::dtype::of<float>())) {
    throw py::type_error(std::string(name) + ": expected dtype float32, got " +
                         std::string(py::str(a.dtype())));
  }
  if (a.ndim() != 3 || a.shape(0) != static_cast<py::ssize_t>(joints) || a.shape(1) != 4 ||
      a.shape(2) != 4) {
    throw py::value_error(std::string(name) + ": expected shape " + shape);
  }
  if (a.strides(0) == 64 && a.strides(1) == 4 && a.strides(2) == 16) {
    in.view = {static_cast<const Mat4*>(a.data()), joints};
    return in;
  }
  auto v = a.unchecked<float, 3>();
  in.copy.resize(joints);
  for (std::size_t j = 0; j < joints; ++j) {
    for (int r = 0; r < 4; ++r) {
      for (int c = 0; c < 4; ++c) {
        in.copy[j].m[static_cast<std::size_t>(c * 4 + r)] = v(static_cast<py::ssize_t>(j), r, c);
      }
    }
  }
  in.view = in.copy;
  return in;
}

// A read-only view of `count` rows of `width` floats owned by `base`.
inline py::array rows_view(const float* data, std::size_t count, std::size_t width,
                           py::handle base) {
  py::array a(py::dtype::of<float>(),
              {static_cast<py::ssize_t>(count), static_cast<py::ssize_t>(width)},
              {static_cast<py::ssize_t>(width * sizeof(float)), py::ssize_t{4}}, data, base);
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

// A JSON document given as a dict (its members), as JSON text, or as a path (str or
// os.PathLike): the text, or else the path to read.
struct JsonSource {
  std::string text;
  std::string path;
};

inline JsonSource json_source(const py::object& given) {
  if (py::isinstance<py::dict>(given))
    return {py::str(py::module_::import("json").attr("dumps")(given)), {}};
  if (py::isinstance<py::str>(given)) {
    const std::string s = given.cast<std::string>();
    if (s.find('{') != std::string::npos) return {s, {}};
  }
  return {{}, py::str(py::module_::import("os").attr("fspath")(given)).cast<std::string>()};
}

// A read-only 1-D view of `values` kept alive by `base` (no copy).
template <typename T>
py::array vector_view(const std::vector<T>& values, py::handle base) {
  py::array a(py::dtype::of<T>(), {static_cast<py::ssize_t>(values.size())},
              {static_cast<py::ssize_t>(sizeof(T))}, values.data(), base);
  py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  return a;
}

}  // namespace marrow::python
