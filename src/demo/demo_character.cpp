#include "marrow/demo/demo_character.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string_view>

#include <stb_image_write.h>

#include "marrow/clip/clip_builder.h"
#include "marrow/pose/local_to_model.h"

namespace marrow::demo {
namespace {

constexpr float kPi = std::numbers::pi_v<float>;

// Joints, parent before child. The character's left is +X.
struct JointDef {
  const char* name;
  int parent;
  Vec3 offset;
};
constexpr JointDef kJoints[] = {
    {"hips", -1, {0, 0.95f, 0}},        {"spine", 0, {0, 0.12f, 0}},
    {"chest", 1, {0, 0.2f, 0}},         {"neck", 2, {0, 0.22f, 0}},
    {"head", 3, {0, 0.08f, 0}},         {"l_shoulder", 2, {0.07f, 0.17f, 0}},
    {"l_upper_arm", 5, {0.12f, 0, 0}},  {"l_forearm", 6, {0, -0.27f, 0}},
    {"l_hand", 7, {0, -0.25f, 0}},      {"r_shoulder", 2, {-0.07f, 0.17f, 0}},
    {"r_upper_arm", 9, {-0.12f, 0, 0}}, {"r_forearm", 10, {0, -0.27f, 0}},
    {"r_hand", 11, {0, -0.25f, 0}},     {"l_thigh", 0, {0.095f, -0.04f, 0}},
    {"l_shin", 13, {0, -0.42f, 0}},     {"l_foot", 14, {0, -0.43f, 0}},
    {"l_toe", 15, {0, -0.045f, 0.13f}}, {"r_thigh", 0, {-0.095f, -0.04f, 0}},
    {"r_shin", 17, {0, -0.42f, 0}},     {"r_foot", 18, {0, -0.43f, 0}},
    {"r_toe", 19, {0, -0.045f, 0.13f}},
};
constexpr int kJointCount = static_cast<int>(std::size(kJoints));

int joint(const char* name) {
  for (int j = 0; j < kJointCount; ++j) {
    if (std::string_view(kJoints[j].name) == name) return j;
  }
  throw std::logic_error(std::string("demo character has no joint ") + name);
}

// A capsule around the segment a -> b, owned by `owner`. Near a (the first quarter of the
// segment) the weight hands over smoothly to `parent`, near b to `child` (-1: none): half and
// half exactly at each joint, so neighbouring capsules bend together.
struct Capsule {
  const char* owner;
  const char* parent;  // nullptr: none
  const char* child;   // nullptr: none
  Vec3 a, b;           // rest positions (model space)
  float radius;
};

float smoothstep(float u) {
  u = std::clamp(u, 0.0f, 1.0f);
  return u * u * (3 - 2 * u);
}

// Clothes and skin by body part, as linear RGBA vertex colours (sRGB values in the comments).
std::array<float, 4> part_color(std::string_view owner) {
  auto has = [&](const char* part) { return owner.find(part) != std::string_view::npos; };
  if (has("head") || has("neck") || has("hand")) return {0.75f, 0.42f, 0.27f, 1};  // 224 173 142
  if (has("foot") || has("toe")) return {0.1f, 0.045f, 0.022f, 1};                 // 89 60 41
  if (has("hips") || has("thigh") || has("shin")) return {0.05f, 0.06f, 0.1f, 1};  // 63 69 89
  return {0.06f, 0.2f, 0.5f, 1};                                                   // 69 124 188
}

// The shirt (chest, spine, shoulders and arms) wears stripes from the texture; the rest samples
// its plain white half.
bool striped(std::string_view owner) {
  for (const char* part : {"chest", "spine", "shoulder", "upper_arm", "forearm"}) {
    if (owner.find(part) != std::string_view::npos) return true;
  }
  return false;
}

// The demo's texture, 16 x 16: the left half white, the right half horizontal stripes (white
// and a light grey-blue, 2 texels each) that the vertex colours tint. Encoded as PNG like a
// file's embedded image.
std::vector<std::uint8_t> stripes_png() {
  constexpr int kSide = 16;
  std::vector<std::uint8_t> rgb;
  for (int y = 0; y < kSide; ++y) {
    for (int x = 0; x < kSide; ++x) {
      const bool dark = x >= kSide / 2 && (y / 2) % 2 == 1;
      rgb.insert(rgb.end(), {static_cast<std::uint8_t>(dark ? 150 : 255),
                             static_cast<std::uint8_t>(dark ? 170 : 255), 255});
    }
  }
  std::vector<std::uint8_t> png;
  stbi_write_png_to_func(
      [](void* context, void* data, int size) {
        auto* out = static_cast<std::vector<std::uint8_t>*>(context);
        out->insert(out->end(), static_cast<std::uint8_t*>(data),
                    static_cast<std::uint8_t*>(data) + size);
      },
      &png, kSide, kSide, 3, rgb.data(), kSide * 3);
  return png;
}

void add_capsule(SkinnedMesh& mesh, const Capsule& c) {
  constexpr int kSlices = 14, kCapRings = 4, kBodyRings = 8;
  const Vec3 axis_full = c.b - c.a;
  const float len = length(axis_full);
  const Vec3 axis = len > 0 ? axis_full * (1 / len) : Vec3{0, 1, 0};
  // Two directions perpendicular to the axis.
  const Vec3 helper = std::fabs(axis.y) < 0.9f ? Vec3{0, 1, 0} : Vec3{1, 0, 0};
  Vec3 u = cross(axis, helper);
  u = u * (1 / length(u));
  const Vec3 v = cross(axis, u);
  const int owner = joint(c.owner);
  const int parent = c.parent ? joint(c.parent) : -1;
  const int child = c.child ? joint(c.child) : -1;

  // Rings from the bottom pole to the top pole: (position along the axis, ring radius scale).
  std::vector<std::pair<float, float>> rings;
  for (int i = 0; i <= kCapRings; ++i) {  // bottom hemisphere, pole first
    const float angle = -kPi / 2 + (kPi / 2) * i / kCapRings;
    rings.push_back({c.radius * std::sin(angle), std::cos(angle)});
  }
  for (int i = 1; i < kBodyRings; ++i) rings.push_back({len * i / kBodyRings, 1});
  for (int i = 0; i <= kCapRings; ++i) {  // top hemisphere, equator first
    const float angle = (kPi / 2) * i / kCapRings;
    rings.push_back({len + c.radius * std::sin(angle), std::cos(angle)});
  }
  const auto first = static_cast<std::uint32_t>(mesh.positions.size());
  for (const auto& [along, scale] : rings) {
    const float s = len > 0 ? std::clamp(along / len, 0.0f, 1.0f) : 0.5f;
    // Cap vertices lie on spheres around a and b; body vertices on the cylinder between.
    const Vec3 centre = c.a + axis * std::clamp(along, 0.0f, len);
    for (int k = 0; k < kSlices; ++k) {
      const float phi = 2 * kPi * k / kSlices;
      const Vec3 radial = u * std::cos(phi) + v * std::sin(phi);
      const float axial = along < 0 ? along : (along > len ? along - len : 0);
      Vec3 n = radial * scale + axis * (axial / c.radius);
      n = n * (1 / length(n));
      mesh.positions.push_back(centre + radial * (c.radius * scale) + axis * axial);
      mesh.normals.push_back(n);
      mesh.colors.push_back(part_color(c.owner));
      // Stripes 4 cm apart along the bone (u in the striped half); elsewhere the white half.
      if (striped(c.owner)) {
        mesh.uvs.push_back({0.75f, (along + (c.a.y > 0 ? c.a.y : 0)) / 0.08f});
      } else {
        mesh.uvs.push_back({0.25f, 0.5f});
      }
      // Weights: parent near a, child near b, the owner the rest.
      float w_parent = parent >= 0 ? 0.5f * (1 - smoothstep(s / 0.25f)) : 0;
      float w_child = child >= 0 ? 0.5f * smoothstep((s - 0.75f) / 0.25f) : 0;
      float w_owner = 1 - w_parent - w_child;
      std::pair<float, int> influences[3] = {
          {w_owner, owner}, {w_parent, parent}, {w_child, child}};
      std::sort(std::begin(influences), std::end(influences),
                [](auto x, auto y) { return x.first > y.first; });
      for (const auto& [w, j] : influences) {
        if (j < 0 || w <= 0) continue;
        mesh.influence_joints.push_back(static_cast<std::uint16_t>(j));
        mesh.influence_weights.push_back(w);
      }
      mesh.influence_offsets.push_back(static_cast<std::uint32_t>(mesh.influence_joints.size()));
    }
  }
  // Quads between neighbouring rings, wound counter-clockwise seen from outside.
  for (std::size_t r = 0; r + 1 < rings.size(); ++r) {
    for (int k = 0; k < kSlices; ++k) {
      const std::uint32_t a = first + static_cast<std::uint32_t>(r * kSlices + k);
      const std::uint32_t b = first + static_cast<std::uint32_t>(r * kSlices + (k + 1) % kSlices);
      const std::uint32_t c2 = a + kSlices, d = b + kSlices;
      mesh.indices.insert(mesh.indices.end(), {a, b, d, a, d, c2});
    }
  }
}

// Keys of a looping clip: `keys` samples of each channel over one period, plus the first again.
class LoopClip {
 public:
  LoopClip(std::string name, float period, int keys)
      : builder_(std::move(name)), period_(period), keys_(keys) {}

  // A rotation track from a function of the phase (0..1).
  template <typename F>
  void rotation(const char* joint_name, F&& at_phase) {
    std::vector<float> times, values;
    for (int k = 0; k <= keys_; ++k) {
      const float phase = static_cast<float>(k % keys_) / keys_;
      const Quat q = at_phase(phase);
      times.push_back(period_ * k / keys_);
      values.insert(values.end(), {q.x, q.y, q.z, q.w});
    }
    add(joint_name, TrackTarget::kRotation, times, values);
  }
  template <typename F>
  void translation(const char* joint_name, F&& at_phase) {
    std::vector<float> times, values;
    for (int k = 0; k <= keys_; ++k) {
      const Vec3 t = at_phase(static_cast<float>(k % keys_) / keys_);
      times.push_back(period_ * k / keys_);
      values.insert(values.end(), {t.x, t.y, t.z});
    }
    add(joint_name, TrackTarget::kTranslation, times, values);
  }
  Clip build() { return builder_.build(kJointCount, "demo").value(); }

 private:
  void add(const char* joint_name, TrackTarget target, const std::vector<float>& times,
           const std::vector<float>& values) {
    const Status s = builder_.add_track(static_cast<JointIndex>(joint(joint_name)), joint_name,
                                        target, Interpolation::kLinear, times, values, "demo");
    if (!s) throw std::logic_error(s.error().message);
  }
  ClipBuilder builder_;
  float period_;
  int keys_;
};

Quat about_x(float a) {
  return from_axis_angle({1, 0, 0}, a);
}
Quat about_y(float a) {
  return from_axis_angle({0, 1, 0}, a);
}
Quat about_z(float a) {
  return from_axis_angle({0, 0, 1}, a);
}

// A gait: walk and run differ only in their numbers. Phase 0: left foot forward, right back.
// Rotations about +X swing a hanging limb backwards (towards -Z), so a forward swing is
// negative.
struct Gait {
  const char* name;
  float period;
  float hip_swing, knee_base, knee_swing, arm_swing, elbow_base, elbow_swing;
  float lean, bob, hip_height, twist;
};

Clip make_gait(const Gait& g) {
  LoopClip clip(g.name, g.period, 16);
  const float tau = 2 * kPi;
  auto thigh = [&](float phase) { return -g.hip_swing * std::cos(tau * phase); };
  // The knee bends most in mid-swing (the leg moving forward: phase 0.5..1 for the left leg).
  auto knee = [&](float phase) {
    return g.knee_base + g.knee_swing * std::max(0.0f, std::sin(tau * (phase - 0.5f)));
  };
  for (int side = 0; side < 2; ++side) {
    const float shift = side == 0 ? 0.0f : 0.5f;  // the right leg is half a cycle later
    const char* thigh_name = side == 0 ? "l_thigh" : "r_thigh";
    const char* shin_name = side == 0 ? "l_shin" : "r_shin";
    const char* foot_name = side == 0 ? "l_foot" : "r_foot";
    const char* arm_name = side == 0 ? "l_upper_arm" : "r_upper_arm";
    const char* forearm_name = side == 0 ? "l_forearm" : "r_forearm";
    clip.rotation(thigh_name, [&](float p) { return about_x(thigh(p + shift)); });
    clip.rotation(shin_name, [&](float p) { return about_x(knee(std::fmod(p + shift, 1.0f))); });
    // The foot stays near level: it undoes most of the thigh and knee angles.
    clip.rotation(foot_name, [&](float p) {
      return about_x(-0.75f * (thigh(p + shift) + knee(std::fmod(p + shift, 1.0f))));
    });
    // Arms swing against the legs: the left arm is forward when the right leg is.
    const float out = side == 0 ? 0.08f : -0.08f;  // a little away from the body
    clip.rotation(arm_name, [&](float p) {
      return about_z(out) * about_x(g.arm_swing * std::cos(tau * (p + shift)));
    });
    clip.rotation(forearm_name, [&](float p) {
      return about_x(-g.elbow_base - g.elbow_swing * (0.5f - 0.5f * std::cos(tau * (p + shift))));
    });
  }
  clip.translation("hips", [&](float p) {
    return Vec3{0, g.hip_height - g.bob * std::cos(2 * tau * p), 0};
  });
  clip.rotation("hips", [&](float p) { return about_y(g.twist * std::cos(tau * p)); });
  clip.rotation("spine",
                [&](float p) { return about_x(g.lean) * about_y(-g.twist * std::cos(tau * p)); });
  clip.rotation("chest", [&](float p) { return about_y(-g.twist * std::cos(tau * p)); });
  clip.rotation("head",
                [&](float p) { return about_x(-g.lean * 0.7f + 0.03f * std::cos(2 * tau * p)); });
  return clip.build();
}

Clip make_wave() {
  LoopClip clip("wave", 1.0f, 16);
  const float tau = 2 * kPi;
  // The right arm (at -X) raised out and up: about -Z; the forearm waves twice a second.
  clip.rotation("r_shoulder", [](float) { return about_z(-0.25f); });
  clip.rotation("r_upper_arm", [](float) { return about_z(-2.2f) * about_x(-0.35f); });
  clip.rotation("r_forearm",
                [&](float p) { return about_z(-0.35f + 0.45f * std::sin(2 * tau * p)); });
  clip.rotation("r_hand", [&](float p) { return about_z(0.2f * std::sin(2 * tau * p + 0.8f)); });
  return clip.build();
}

}  // namespace

Asset make_demo_character() {
  Asset asset;
  asset.source = "demo character";
  std::vector<JointDesc> descs;
  for (const JointDef& j : kJoints) {
    descs.push_back({j.name, j.parent, Transform{j.offset, {}, {1, 1, 1}}});
  }
  asset.skeleton = Skeleton::build(descs, "demo").value();
  asset.source_index.assign(kJointCount, -1);

  std::vector<Mat4> rest(kJointCount);
  local_to_model(asset.skeleton, asset.skeleton.rest_pose(), rest);
  auto at = [&](const char* name) { return rest[joint(name)].translation(); };

  Skin skin;
  skin.name = "demo skin";
  for (int j = 0; j < kJointCount; ++j) {
    skin.joints.push_back(static_cast<JointIndex>(j));
    Mat4 inverse;
    invert_affine(rest[j], inverse);
    skin.inverse_bind_matrices.push_back(inverse);
  }
  asset.skins.push_back(std::move(skin));

  SkinnedMesh mesh;
  mesh.name = "demo body";
  mesh.skin = 0;
  mesh.node = 0;
  mesh.influence_offsets.push_back(0);
  const Vec3 up{0, 1, 0};
  std::vector<Capsule> capsules = {
      {"hips", nullptr, "spine", at("hips") - Vec3{0, 0.02f, 0}, at("spine"), 0.13f},
      {"hips", nullptr, nullptr, at("r_thigh"), at("l_thigh"), 0.1f},
      {"spine", "hips", "chest", at("spine"), at("chest"), 0.125f},
      {"chest", "spine", "neck", at("chest"), at("neck") - Vec3{0, 0.05f, 0}, 0.145f},
      {"chest", "spine", nullptr, at("r_shoulder"), at("l_shoulder"), 0.1f},
      {"neck", "chest", "head", at("neck"), at("head"), 0.05f},
      {"head", "neck", nullptr, at("head") + up * 0.08f, at("head") + up * 0.16f, 0.105f},
  };
  for (int side = 0; side < 2; ++side) {
    const std::string p = side == 0 ? "l_" : "r_";
    const std::string n[8] = {p + "shoulder", p + "upper_arm", p + "forearm", p + "hand",
                              p + "thigh",    p + "shin",      p + "foot",    p + "toe"};
    const char* shoulder = n[0].c_str();
    const char* upper = n[1].c_str();
    const char* fore = n[2].c_str();
    const char* hand = n[3].c_str();
    const char* thigh = n[4].c_str();
    const char* shin = n[5].c_str();
    const char* foot = n[6].c_str();
    const char* toe = n[7].c_str();
    const std::vector<Capsule> limb = {
        {shoulder, "chest", upper, at(shoulder), at(upper), 0.06f},
        {upper, shoulder, fore, at(upper), at(fore), 0.052f},
        {fore, upper, hand, at(fore), at(hand), 0.044f},
        {hand, fore, nullptr, at(hand) - up * 0.02f, at(hand) - up * 0.1f, 0.038f},
        {thigh, "hips", shin, at(thigh), at(shin), 0.075f},
        {shin, thigh, foot, at(shin), at(foot), 0.058f},
        {foot, shin, toe, at(foot) + Vec3{0, -0.01f, -0.03f}, at(toe), 0.045f},
    };
    for (const Capsule& c : limb) add_capsule(mesh, c);
  }
  for (const Capsule& c : capsules) add_capsule(mesh, c);
  Material cloth;
  cloth.name = "demo cloth";
  cloth.base_color.image = 0;
  cloth.base_color.wrap_u = TextureWrap::kClampToEdge;
  asset.materials.push_back(cloth);
  asset.images.push_back({"demo stripes", "", stripes_png(), "image/png"});
  mesh.material = 0;
  asset.meshes.push_back(std::move(mesh));

  asset.clips.push_back(make_gait(
      {"walk", 1.0f, 0.42f, 0.12f, 0.95f, 0.35f, 0.15f, 0.2f, 0.04f, 0.025f, 0.95f, 0.06f}));
  asset.clips.push_back(
      make_gait({"run", 0.7f, 0.75f, 0.35f, 1.6f, 0.7f, 1.3f, 0.3f, 0.2f, 0.05f, 0.9f, 0.1f}));
  asset.clips.push_back(make_wave());
  return asset;
}

}  // namespace marrow::demo
