// What the .X parser hands the assembler: plain records of the file's objects, every number
// already checked where it was read (counts against the bytes left, indices against their
// ranges, floats finite, key times increasing, rotation keys of non-zero length), each with the
// place (line or byte offset) it came from so the assembler's messages can name it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "marrow/math/mat4.h"
#include "marrow/math/vec3.h"

namespace marrow::xfile {

using D3DMatrix = std::array<float, 16>;  // row-major, row vectors (translation in _41 _42 _43)
inline constexpr D3DMatrix kIdentity = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};

// The D3D matrix as marrow's column-major, column-vector Mat4: the transpose, which has the same
// memory layout. The last row is forced to 0 0 0 1; `projective` tells whether it was not.
Mat4 to_mat4(const D3DMatrix& d, bool* projective);

struct FrameRec {
  std::string name;
  std::int64_t parent = -1;
  std::size_t place = 0;
  bool has_matrix = false;
  std::size_t matrix_place = 0;
  D3DMatrix matrix = kIdentity;
};

struct SkinWeightsRec {
  std::string frame;
  std::size_t place = 0;
  std::vector<std::uint32_t> vertices;
  std::vector<float> weights;
  D3DMatrix offset = kIdentity;
  std::size_t offset_place = 0;
};

// A Material object: its face colour (RGBA as written: display values) and texture file.
struct MaterialRec {
  std::string name;
  std::array<float, 4> color{1, 1, 1, 1};
  std::array<float, 3> emissive{0, 0, 0};  // emissiveColor, a display value
  std::string texture;                     // TextureFilename as written (may use backslashes)
};

struct MeshRec {
  std::string name;
  std::size_t place = 0;
  std::int64_t frame = -1;
  bool top_level = false;
  std::vector<Vec3> positions;
  std::vector<std::uint32_t> face_offsets{0};  // faces + 1 offsets into face_indices
  std::vector<std::uint32_t> face_indices;
  bool has_normals = false;
  std::vector<Vec3> normals;
  std::vector<std::uint32_t> normal_indices;  // one per face corner, parallel to face_indices
  bool has_uvs = false;
  std::vector<std::array<float, 2>> uvs;
  std::vector<SkinWeightsRec> skin_weights;
  // From DeclData, per vertex: tangents (w = 1 unless the element had a 4th component) and
  // binormals, from which the assembler derives the handedness.
  bool normals_from_decl = false;
  std::vector<std::array<float, 4>> tangents;
  std::vector<Vec3> binormals;
  // MeshMaterialList: the materials (nested, or top-level ones by name) and each face's.
  std::vector<MaterialRec> materials;
  std::vector<std::string> material_refs;  // parallel to materials: a name to resolve, or ""
  std::vector<std::uint32_t> face_materials;
};

// A frame's `{ MeshName }`: the top-level mesh hangs under that frame.
struct MeshRef {
  std::size_t frame = 0;
  std::string name;
  std::size_t place = 0;
};

struct KeyRec {
  std::uint32_t type = 0;  // 0 rotation, 1 scale, 2 position, 4 matrix (3 is read as 4)
  std::size_t place = 0;
  std::vector<std::uint32_t> ticks;
  std::vector<std::size_t> tick_places;
  std::vector<float> values;  // 4 (rotation w x y z), 3 (scale, position) or 16 (matrix) a key
};

struct AnimationRec {
  std::string name;
  std::size_t place = 0;
  std::string frame;
  std::size_t frame_place = 0;
  bool has_frame = false;
  std::vector<KeyRec> keys;
};

struct SetRec {
  std::string name;
  std::size_t place = 0;
  std::int64_t tps_before = -1;  // the last AnimTicksPerSecond read before the set, if any
  std::vector<AnimationRec> animations;
};

struct TicksRec {
  std::uint32_t value = 0;
  std::size_t place = 0;
};

// Everything the parser read from one file.
struct Records {
  std::vector<FrameRec> frames;
  std::vector<MeshRec> meshes;
  std::vector<MeshRef> mesh_refs;
  std::vector<SetRec> sets;
  SetRec loose;  // Animation objects outside any AnimationSet
  std::vector<TicksRec> ticks;
  std::vector<MaterialRec> named_materials;  // top-level Material objects
};

}  // namespace marrow::xfile
