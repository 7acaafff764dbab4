#include "script_character.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz_target.h"
#include "marrow/io/bvh.h"
#include "marrow/io/script_runner.h"

namespace marrow::fuzz {
namespace {

struct Bone {
  const char* name;
  int parent;  // index in kBones, -1 for the root
  float x, y, z;
  bool end;  // has an End Site
};

// Hips at 100 cm; legs 90 cm; arms out to the sides.
constexpr Bone kBones[] = {
    {"mixamorig:Hips", -1, 0, 100, 0, false},
    {"mixamorig:Spine", 0, 0, 10, 0, false},
    {"mixamorig:Neck", 1, 0, 30, 0, false},
    {"mixamorig:Head", 2, 0, 10, 0, true},
    {"mixamorig:LeftShoulder", 1, 5, 25, 0, false},
    {"mixamorig:LeftArm", 4, 10, 0, 0, false},
    {"mixamorig:LeftForeArm", 5, 25, 0, 0, false},
    {"mixamorig:LeftHand", 6, 25, 0, 0, true},
    {"mixamorig:RightShoulder", 1, -5, 25, 0, false},
    {"mixamorig:RightArm", 8, -10, 0, 0, false},
    {"mixamorig:RightForeArm", 9, -25, 0, 0, false},
    {"mixamorig:RightHand", 10, -25, 0, 0, true},
    {"mixamorig:LeftUpLeg", 0, 10, 0, 0, false},
    {"mixamorig:LeftLeg", 12, 0, -45, 0, false},
    {"mixamorig:LeftFoot", 13, 0, -45, 0, false},
    {"mixamorig:LeftToeBase", 14, 0, -5, 12, true},
    {"mixamorig:RightUpLeg", 0, -10, 0, 0, false},
    {"mixamorig:RightLeg", 16, 0, -45, 0, false},
    {"mixamorig:RightFoot", 17, 0, -45, 0, false},
    {"mixamorig:RightToeBase", 18, 0, -5, 12, true},
};
constexpr int kBoneCount = sizeof(kBones) / sizeof(kBones[0]);

void hierarchy(std::string& out, int bone, int depth) {
  const std::string pad(static_cast<std::size_t>(depth) * 2, ' ');
  const Bone& b = kBones[bone];
  char line[160];
  out += pad + (bone == 0 ? "ROOT " : "JOINT ") + b.name + "\n" + pad + "{\n";
  std::snprintf(line, sizeof line, "%s  OFFSET %g %g %g\n", pad.c_str(), b.x, b.y, b.z);
  out += line;
  out += pad + (bone == 0 ? "  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation "
                            "Yrotation\n"
                          : "  CHANNELS 3 Zrotation Xrotation Yrotation\n");
  for (int c = 0; c < kBoneCount; ++c)
    if (kBones[c].parent == bone) hierarchy(out, c, depth + 1);
  if (b.end)
    out += pad + "  End Site\n" + pad + "  {\n" + pad + "    OFFSET 0 5 0\n" + pad + "  }\n";
  out += pad + "}\n";
}

// A gait: legs swinging in opposite phase with the knee bent on the way forward, arms swinging
// against the legs, the hips bobbing twice a cycle and moving forward at `speed` cm/s (root
// motion). `swing` 0 stands still (an idle breathes a little instead).
std::string gait_bvh(float period, float swing, float speed, int frames) {
  std::string out = "HIERARCHY\n";
  hierarchy(out, 0, 0);
  const float dt = 1.0f / 30.0f;
  char number[32];
  out += "MOTION\nFrames: " + std::to_string(frames) + "\nFrame Time: 0.0333333\n";
  for (int f = 0; f < frames; ++f) {
    const float t = static_cast<float>(f) * dt;
    const float phase = 6.2831853f * t / period;
    for (int b = 0; b < kBoneCount; ++b) {
      float channels[6] = {0, 0, 0, 0, 0, 0};  // root: x y z, then Z X Y rotations
      float* rot = b == 0 ? channels + 3 : channels;
      const std::string name = kBones[b].name;
      const float side = name.find("Left") != std::string::npos ? 1.0f : -1.0f;
      if (b == 0) {
        channels[0] = kBones[0].x;
        channels[1] = kBones[0].y - 3.0f * swing * (1 - std::cos(2 * phase)) * 0.5f +
                      (swing == 0 ? 0.5f * std::sin(phase) : 0.0f);
        channels[2] = speed * t;
      } else if (name.find("UpLeg") != std::string::npos) {
        rot[1] = -30.0f * swing * side * std::sin(phase);
      } else if (name.find("Leg") != std::string::npos) {
        rot[1] = 40.0f * swing * std::max(0.0f, side * std::cos(phase));
      } else if (name.find("Arm") != std::string::npos && name.find("Fore") == std::string::npos) {
        rot[1] = 25.0f * swing * side * std::sin(phase);
        rot[0] = side * -70.0f;  // arms down from the T
      } else if (name.find("Spine") != std::string::npos) {
        rot[2] = 5.0f * swing * std::sin(phase);
      }
      for (int c = 0; c < (b == 0 ? 6 : 3); ++c) {
        std::snprintf(number, sizeof number, "%.4f ", static_cast<double>(channels[c]));
        out += number;
      }
    }
    out += "\n";
  }
  return out;
}

Asset make_character() {
  struct ClipSpec {
    const char* file;
    float period, swing, speed;
    int frames;
  };
  const ClipSpec clips[] = {{"Idle.bvh", 2.0f, 0.0f, 0.0f, 61},
                            {"Walk.bvh", 1.0f, 1.0f, 140.0f, 31},
                            {"Run.bvh", 0.6f, 1.6f, 350.0f, 19},
                            {"TPose.bvh", 1.0f, 0.0f, 0.0f, 1}};
  Asset character;
  for (const ClipSpec& c : clips) {
    Result<Asset> part = read_bvh(gait_bvh(c.period, c.swing, c.speed, c.frames), c.file);
    if (!part || part->clips.size() != 1) {
      std::fprintf(stderr, "fuzz: the script character's %s does not load: %s\n", c.file,
                   part ? "no single clip" : part.error().message.c_str());
      std::abort();
    }
    if (character.clips.empty()) {
      character = std::move(part).value();
    } else {
      character.clips.push_back(std::move(part->clips.front()));
    }
  }
  return character;
}

}  // namespace

int run_script(const AnimationScript& script, const std::string& where) {
  Result<ScriptRunner> runner = ScriptRunner::create(script_character(), script);
  if (!runner) {
    expect_documented_error(runner.error(), where);
    return 0;
  }
  ScriptFrame frame;
  const int frames = std::min(runner->frame_count(), kMaxScriptFrames);
  for (int f = 0; f < frames; ++f) {
    if (Status s = runner->next(frame); !s) {
      expect_documented_error(s.error(), where);
      return 0;
    }
    for (const Mat4& m : frame.model)
      for (float v : m.m) MARROW_FUZZ_CHECK(std::isfinite(v), "a script frame's pose is finite");
  }
  return 0;
}

const Asset& script_character() {
  static const Asset character = make_character();
  return character;
}

}  // namespace marrow::fuzz
