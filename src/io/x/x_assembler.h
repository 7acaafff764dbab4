// The .X assembler: Records into an Asset. Frames become the skeleton (file order, which is
// parent-before-child), meshes become SkinnedMeshes (normals split per corner, faces fanned,
// SkinWeights bound to frames by name), AnimationSets become clips. The values were checked by
// the parser; what is checked here is how records refer to each other (frame names, mesh
// references, one track per joint channel) and what the document may cost (mesh copies, keys).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/budget.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/io/asset.h"
#include "x_records.h"
#include "x_tokenizer.h"

namespace marrow::xfile {

class Assembler {
 public:
  // `places` names the file and the places of the records in messages.
  Assembler(Records& records, const XTokenizer& places, Asset& asset, const std::string& file,
            io::DocumentBudget& budget, const LoadOptions& options)
      : r_(records), tk_(places), asset_(asset), file_(file), budget_(budget), options_(options) {}

  void run();

 private:
  void warn(std::size_t place, const std::string& what);

  // Skeleton and meshes (x_assemble_mesh.cpp).
  void build_skeleton();
  void resolve_mesh_refs();
  void build_mesh(const MeshRec& m);
  int build_material(const MeshRec& m);
  void build_skin(const MeshRec& m, const std::vector<std::uint32_t>& origin, SkinnedMesh& mesh);

  // Clips (x_assemble_clips.cpp).
  void check_ticks();
  double ticks_per_second(const SetRec& s, RateSource& source) const;
  void warn_if_frame_numbers(const SetRec& s, const std::string& name);
  void build_clip(const SetRec& s, std::size_t index);
  void add_key_tracks(ClipBuilder& builder, JointIndex joint, const AnimationRec& a,
                      const KeyRec& k, double tps);

  Records& r_;
  const XTokenizer& tk_;
  Asset& asset_;
  const std::string& file_;
  io::DocumentBudget& budget_;
  const LoadOptions& options_;
  std::vector<JointIndex> joint_of_frame_;
  // Where each joint channel of the clip being built got its track.
  std::unordered_map<std::uint32_t, std::size_t> channel_place_;
  // Top-level materials by lower-cased name, the first of equals (built on first use): a lookup
  // per mesh, so that many meshes and materials do not cost their product.
  std::unordered_map<std::string, std::size_t> material_by_name_;
  bool materials_indexed_ = false;
};

}  // namespace marrow::xfile
