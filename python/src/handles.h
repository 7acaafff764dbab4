// The handles the binding files share: an Asset held by Python, and sub-objects (skeleton,
// clip, skin, mesh) that keep their asset alive; the conversions of joints and clips given as
// names or indices.
#pragma once

#include <pybind11/pybind11.h>

#include <array>
#include <memory>

#include "marrow/io/asset.h"

namespace marrow::python {

namespace py = pybind11;

using AssetPtr = std::shared_ptr<const Asset>;

// Sub-objects of an asset hold the asset alive.
struct SkeletonRef {
  AssetPtr asset;
  const Skeleton& get() const { return asset->skeleton; }
};
struct ClipRef {
  AssetPtr asset;
  std::size_t index;
  const Clip& get() const { return asset->clips[index]; }
};
struct SkinRef {
  AssetPtr asset;
  std::size_t index;
  const Skin& get() const { return asset->skins[index]; }
};
struct MeshRef {
  AssetPtr asset;
  std::size_t index;
  const SkinnedMesh& get() const { return asset->meshes[index]; }
};

// A joint given as an index or a name; ValueError or IndexError naming `what` otherwise.
JointIndex joint_of(const Skeleton& skeleton, const py::object& joint, const char* what);

// A clip given as an index or a name; marrow.Error listing the file's clips otherwise.
std::size_t clip_index(const Asset& asset, const py::object& clip);

inline Vec3 vec3_of(const std::array<float, 3>& v) {
  return {v[0], v[1], v[2]};
}

// The IK and foot bindings (ik.cpp).
void bind_ik(py::module_& m);

// Gives every function and method of `m` a text signature for inspect.signature()
// (signatures.cpp); called last, once every binding exists.
void add_text_signatures(py::module_& m);

}  // namespace marrow::python
