#include "archive/archive_morph.h"

#include "marrow/skin/morph.h"

namespace marrow::archive_detail {
namespace {

constexpr std::uint32_t kTargetNormals = 1, kTargetTangents = 2;
// The most weights one clip may address: far beyond any face rig, small enough that nothing
// sized by it can exhaust memory.
constexpr std::uint32_t kMaxWeightCount = 1u << 20;

}  // namespace

void write_weight_tracks(Out& out, const Clip& clip) {
  out.u32(static_cast<std::uint32_t>(clip.weight_count()));
  out.u32(static_cast<std::uint32_t>(clip.weight_tracks().size()));
  const std::span<const std::string> names = clip.weight_track_node_names();
  for (std::size_t t = 0; t < clip.weight_tracks().size(); ++t) {
    const WeightTrack& track = clip.weight_tracks()[t];
    out.u16(track.node);
    out.u8(static_cast<std::uint8_t>(track.interpolation));
    out.u8(0);
    out.u32(track.first_weight);
    out.u32(track.weight_count);
    out.u32(track.first_key);
    out.u32(track.key_count);
    out.u32(track.first_value);
    out.string(t < names.size() ? names[t] : std::string());
  }
}

void read_weight_tracks(In& in, const std::string& file, const std::string& what,
                        std::size_t joint_count, std::span<const float> times,
                        std::span<const float> values, ClipBuilder& builder) {
  const std::size_t count_at = in.pos();
  const std::uint32_t weight_count = in.u32("weight count");
  if (weight_count > kMaxWeightCount)
    in.fail(count_at, what + ": weight count " + std::to_string(weight_count) + " exceeds " +
                          std::to_string(kMaxWeightCount));
  // node 2 + interpolation 1 + reserved 1 + five u32 20 + name length 4
  const std::uint32_t n = in.count("weight track count", 28);
  for (std::uint32_t t = 0; t < n; ++t) {
    const std::size_t at = in.pos();
    const std::string where = what + " weight track " + std::to_string(t);
    WeightTrack k;
    k.node = in.u16("weight track node");
    const std::uint8_t interpolation = in.u8("weight track interpolation");
    if (interpolation > 2)
      in.fail(at + 2, where + ": interpolation " + std::to_string(interpolation) + " is unknown");
    if (in.u8("weight track reserved byte") != 0) in.fail(at + 3, where + ": reserved byte not 0");
    k.interpolation = static_cast<Interpolation>(interpolation);
    k.first_weight = in.u32("weight track first weight");
    k.weight_count = in.u32("weight track weight count");
    k.first_key = in.u32("weight track first key");
    k.key_count = in.u32("weight track key count");
    k.first_value = in.u32("weight track first value");
    const std::string node_name = in.string("weight track node name");
    if (k.node >= joint_count)
      in.fail(at, where + ": node " + std::to_string(k.node) + " is out of range (" +
                      std::to_string(joint_count) + " joints)");
    if (k.weight_count == 0 || std::uint64_t{k.first_weight} + k.weight_count > weight_count)
      in.fail(at + 4, where + ": weights [" + std::to_string(k.first_weight) + ", +" +
                          std::to_string(k.weight_count) + ") lie outside the clip's " +
                          std::to_string(weight_count));
    const std::uint64_t value_floats = std::uint64_t{k.key_count} * floats_per_key(k);
    if (k.key_count == 0 || std::uint64_t{k.first_key} + k.key_count > times.size() ||
        std::uint64_t{k.first_value} + value_floats > values.size())
      in.fail(at + 12, where + ": keys [" + std::to_string(k.first_key) + ", +" +
                           std::to_string(k.key_count) + ") or values from " +
                           std::to_string(k.first_value) + " lie outside the " +
                           std::to_string(times.size()) + " times and " +
                           std::to_string(values.size()) + " values");
    const Status st = builder.add_weight_track(
        k.node, node_name, k.first_weight, k.weight_count, k.interpolation,
        times.subspan(k.first_key, k.key_count),
        values.subspan(k.first_value, static_cast<std::size_t>(value_floats)),
        file + ": byte " + std::to_string(at) + ": " + where);
    if (!st) throw ReadError{st.error().message};
  }
  builder.set_weight_count(weight_count);
}

void write_morph_targets(Out& out, const SkinnedMesh& mesh, const std::string& what) {
  if (Status st = validate_morph_targets(mesh); !st) throw WriteError{st.error().message};
  (void)what;
  out.u32(static_cast<std::uint32_t>(mesh.morph_targets.size()));
  for (const MorphTarget& t : mesh.morph_targets) {
    out.string(t.name);
    const std::uint32_t flags = (t.normal_deltas.empty() ? 0 : kTargetNormals) |
                                (t.tangent_deltas.empty() ? 0 : kTargetTangents);
    out.u32(flags);
    out.u32(static_cast<std::uint32_t>(t.vertices.size()));
    out.array(t.vertices.data(), t.vertices.size());
    out.array(floats_of(t.position_deltas), t.position_deltas.size() * 3);
    if (flags & kTargetNormals) out.array(floats_of(t.normal_deltas), t.normal_deltas.size() * 3);
    if (flags & kTargetTangents)
      out.array(floats_of(t.tangent_deltas), t.tangent_deltas.size() * 3);
  }
  out.u32(static_cast<std::uint32_t>(mesh.default_morph_weights.size()));
  out.array(mesh.default_morph_weights.data(), mesh.default_morph_weights.size());
}

void read_morph_targets(In& in, SkinnedMesh& mesh, const std::string& what) {
  const std::size_t at = in.pos();
  // name length 4 + flags 4 + listed count 4
  const std::uint32_t n = in.count("morph target count", 12);
  mesh.morph_targets.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    MorphTarget& t = mesh.morph_targets[i];
    t.name = in.string("morph target name");
    const std::string tw = what + " morph target " + std::to_string(i);
    const std::size_t flags_at = in.pos();
    const std::uint32_t flags = in.u32("morph target flags");
    if (flags & ~(kTargetNormals | kTargetTangents)) in.fail(flags_at, tw + ": unknown flags");
    // index 4 + position delta 12 per listed vertex at least
    const std::uint32_t m = in.count("morph target vertex count", 16);
    t.vertices.resize(m);
    in.array(t.vertices.data(), m, "morph target vertices");
    auto deltas = [&](std::vector<Vec3>& v, const char* name) {
      v.resize(m);
      in.array(reinterpret_cast<float*>(v.data()), std::size_t{m} * 3, name);
    };
    deltas(t.position_deltas, "morph target position deltas");
    if (flags & kTargetNormals) deltas(t.normal_deltas, "morph target normal deltas");
    if (flags & kTargetTangents) deltas(t.tangent_deltas, "morph target tangent deltas");
  }
  const std::size_t weights_at = in.pos();
  const std::uint32_t defaults = in.count("default morph weight count", 4);
  if (defaults != 0 && defaults != n)
    in.fail(weights_at, what + ": " + std::to_string(defaults) + " default weights for " +
                            std::to_string(n) + " morph targets");
  mesh.default_morph_weights.resize(defaults);
  in.array(mesh.default_morph_weights.data(), defaults, "default morph weights");
  // Indices inside the mesh and increasing, deltas and weights finite.
  if (Status st = validate_morph_targets(mesh); !st) in.fail(at, st.error().message);
}

}  // namespace marrow::archive_detail
