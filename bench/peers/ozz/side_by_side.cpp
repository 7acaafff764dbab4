// marrow and ozz-animation 0.16 doing the same per-frame work on Soldier.glb, interleaved in one
// process (issue 13, item 5). run.sh builds it, converts Soldier.glb with ozz's own gltf2ozz and
// pins this process to one core; README.md says what each row measures.
//
//   side_by_side --soldier=Soldier.glb --ozz-data=DIR [--ozz-scaled-data=DIR] [--repetitions=N]
//                [--quick] [--only=GROUP]
//   side_by_side --soldier=Soldier.glb --print-ozz-scaled-config
//
// Every timed workload runs once per repetition, all of them one after the other (A B C A B C
// ...), so a change in the machine's load touches all alike; the tables give the minimum and the
// median of the thread's CPU time over the repetitions. --only=GROUP runs only the workloads whose
// group starts with GROUP (e.g. "c Soldier") and prints their timings alone, without the clips
// compiled at ozz's error and the memory and error tables: for profilers (README.md).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "marrow/clip/compiled_sampling.h"
#include "marrow/clip/sampling.h"
#include "marrow/math/simd.h"
#include "marrow/pose/blend.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/pose/soa_blend.h"
#include "ozz/animation/runtime/blending_job.h"
#include "ozz/animation/runtime/local_to_model_job.h"
#include "ozz/animation/runtime/sampling_job.h"
#include "ozz/base/io/archive.h"
#include "ozz/base/io/stream.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/soa_transform.h"
#include "peer_scene.h"

namespace peer {

using namespace marrow;

void fail(const std::string& message) {
  std::fprintf(stderr, "side_by_side: %s\n", message.c_str());
  std::exit(1);
}

double thread_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string fmt(const char* format, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, x);
  return buf;
}

namespace {

constexpr float kFrame = 1.0f / 60.0f;
constexpr float kBlendWeights[kClipCount] = {0.2f, 0.5f, 0.3f};

template <typename T>
void load_ozz(const std::string& path, T& object) {
  ozz::io::File file(path.c_str(), "rb");
  if (!file.opened()) fail("cannot open " + path);
  ozz::io::IArchive archive(&file);
  if (!archive.TestTag<T>()) fail(path + " does not hold the expected ozz object");
  archive >> object;
}

Mat4 from_ozz(const ozz::math::Float4x4& m) {
  Mat4 r;
  for (int c = 0; c < 4; ++c) ozz::math::StorePtrU(m.cols[c], r.m.data() + 4 * c);
  return r;
}

// The bytes of ozz's SamplingJob::Context for `tracks` tracks: the object and its allocation,
// by sampling_job.cc's Context::Resize formula (ozz has no accessor for it).
std::size_t ozz_context_bytes(int tracks) {
  const std::size_t soa = (static_cast<std::size_t>(tracks) + 3) / 4;
  const std::size_t interp_float3 = 2 * 16 + 2 * sizeof(ozz::math::SoaFloat3);
  const std::size_t interp_quat = 2 * 16 + 2 * sizeof(ozz::math::SoaQuaternion);
  return sizeof(ozz::animation::SamplingJob::Context) + soa * (2 * interp_float3 + interp_quat) +
         sizeof(std::uint32_t) * soa * 4 * 3 + 3 * ((soa + 7) / 8);
}

// Time of character c at frame f: each starts at its own offset in the clip (as
// bench/compiled_bench.cpp does).
float time_of(std::size_t c, std::size_t frame, float duration) {
  return wrap_time(static_cast<float>(c) * 0.173f + static_cast<float>(frame) * kFrame, duration,
                   WrapMode::kLoop);
}

}  // namespace

void load_scene(Scene& s, const std::string& soldier, const std::string& ozz_dir) {
  auto loaded = load_asset(soldier);
  if (!loaded) fail(loaded.error().message);
  s.asset = std::move(loaded).value();
  s.marrow.push_back({"marrow compiled", {}});
  for (std::size_t k = 0; k < kClipCount; ++k) {
    const auto index = s.asset.find_clip(kClipNames[k]);
    if (!index) fail(soldier + " has no clip " + kClipNames[k]);
    s.exact[k] = &s.asset.clips[*index];
    auto compiled = CompiledClip::compile(*s.exact[k], s.asset.skeleton);
    if (!compiled) fail(compiled.error().message);
    s.marrow[0].clips.push_back(std::move(compiled).value());
  }
  s.extent = s.marrow[0].clips[0].report().extent;
  if (ozz_dir.empty()) return;

  load_ozz(ozz_dir + "/skeleton.ozz", s.ozz_skeleton);
  const Skeleton& skeleton = s.asset.skeleton;
  const auto names = s.ozz_skeleton.joint_names();
  const auto parents = s.ozz_skeleton.joint_parents();
  std::vector<Mat4> rest(skeleton.size());
  local_to_model(skeleton, skeleton.rest_pose(), rest);
  bool have_root = false;
  for (std::size_t o = 0; o < names.size(); ++o) {
    const auto j = skeleton.find(names[o]);
    if (!j) fail(std::string("ozz joint '") + names[o] + "' has no marrow joint of that name");
    s.joint_of_ozz.push_back(*j);
    if (parents[o] != ozz::animation::Skeleton::kNoParent) continue;
    const JointIndex above = skeleton.parent(*j);
    const Mat4 root = above == kNoParent ? Mat4::identity() : rest[above];
    if (have_root && root.m != s.ozz_root.m) fail("ozz's roots hang under different transforms");
    s.ozz_root = root;
    have_root = true;
  }
  add_ozz_clips(s, ozz_dir, "ozz");
}

void add_ozz_clips(Scene& s, const std::string& dir, const std::string& label) {
  auto clips = std::make_unique<OzzClips>();
  clips->label = label;
  for (std::size_t k = 0; k < kClipCount; ++k) {
    load_ozz(dir + "/" + kClipNames[k] + ".ozz", clips->clips[k]);
    if (std::fabs(clips->clips[k].duration() - s.exact[k]->duration()) > 1e-4f)
      fail(dir + "/" + kClipNames[k] + ".ozz: its duration differs from marrow's clip");
    if (clips->clips[k].num_tracks() != s.ozz_skeleton.num_joints())
      fail(dir + "/" + kClipNames[k] + ".ozz was not made for skeleton.ozz");
  }
  s.ozz.push_back(std::move(clips));
}

namespace {

// ---------------------------------------------------------------------------------------------
// (e) Accuracy: the virtual-vertex metric of include/marrow/clip/compiled_clip.h against marrow's
// exact sampler, over the joints ozz has.

// Every key of the exact clip, three times inside each key interval, 400 random times, both ends
// (as tests/clip/compiled/compiled_clip_test.cpp checks), thinned to at most ~3000.
std::vector<float> check_times(const Clip& clip) {
  const float d = clip.duration();
  std::vector<float> times{0.0f, d, d * (1 - 1e-5f), d * 1e-5f, d * 0.5f};
  for (const Track& track : clip.tracks()) {
    const auto ts = clip.times().subspan(track.first_key, track.key_count);
    for (std::size_t k = 0; k < ts.size(); ++k) {
      times.push_back(ts[k]);
      if (k + 1 < ts.size())
        for (float u : {0.2113249f, 0.5f, 0.7886751f})
          times.push_back(ts[k] + (ts[k + 1] - ts[k]) * u);
    }
  }
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0.0f, d);
  for (int i = 0; i < 400; ++i) times.push_back(u(rng));
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  if (times.size() > 3000) {
    std::vector<float> thinned;
    for (std::size_t i = 0; i < times.size(); i += times.size() / 3000 + 1)
      thinned.push_back(times[i]);
    thinned.push_back(d);
    times = thinned;
  }
  return times;
}

struct ErrorStats {
  float max = 0, p99 = 0, max_time = 0;
  std::string max_joint;
  std::vector<float> all;

  void add(float e, float t, const std::string& joint) {
    all.push_back(e);
    if (e > max) max = e, max_time = t, max_joint = joint;
  }
  void finish() {
    std::sort(all.begin(), all.end());
    if (!all.empty())
      p99 = all[static_cast<std::size_t>(0.99 * static_cast<double>(all.size() - 1))];
    all.clear();
    all.shrink_to_fit();
  }
};

// Model matrices of marrow's joints at a time, from the exact clip, a compiled one or ozz's.
struct Sampler {
  const Scene& s;
  std::vector<Transform> local;
  std::vector<SoaTransform> soa;
  std::vector<ozz::math::SoaTransform> ozz_local;
  std::vector<ozz::math::Float4x4> ozz_model;
  ozz::animation::SamplingJob::Context ozz_context;

  explicit Sampler(const Scene& scene)
      : s(scene),
        local(scene.asset.skeleton.size()),
        soa(soa_group_count(scene.asset.skeleton.size())),
        ozz_local(static_cast<std::size_t>(scene.ozz_skeleton.num_soa_joints())),
        ozz_model(static_cast<std::size_t>(scene.ozz_skeleton.num_joints())),
        ozz_context(scene.ozz_skeleton.num_joints()) {}

  void exact(const Clip& clip, float t, std::vector<Mat4>& model) {
    const auto rest = s.asset.skeleton.rest_pose();
    std::copy(rest.begin(), rest.end(), local.begin());
    sample_tracks(clip, t, local);
    local_to_model(s.asset.skeleton, local, model);
  }
  void compiled(const CompiledClip& clip, float t, std::vector<Mat4>& model) {
    CompiledSamplingContext context(clip);
    CompiledSamplingJob job;
    job.clip = &clip;
    job.time = t;
    job.rest_pose = s.asset.skeleton.soa_rest_pose();
    job.context = &context;
    job.output = soa;
    if (!job.run()) fail("CompiledSamplingJob refused its arguments");
    from_soa(soa, local);
    local_to_model(s.asset.skeleton, local, model);
  }
  // ozz's model matrices, in marrow's model space, for the joints ozz has.
  void ozz(const ozz::animation::Animation& clip, float t, std::vector<Mat4>& model) {
    ozz::animation::SamplingJob sampling;
    sampling.animation = &clip;
    sampling.context = &ozz_context;
    sampling.ratio = t / clip.duration();
    sampling.output = ozz::make_span(ozz_local);
    if (!sampling.Run()) fail("ozz's SamplingJob failed");
    ozz::animation::LocalToModelJob l2m;
    l2m.skeleton = &s.ozz_skeleton;
    l2m.input = ozz::make_span(ozz_local);
    l2m.output = ozz::make_span(ozz_model);
    if (!l2m.Run()) fail("ozz's LocalToModelJob failed");
    for (std::size_t o = 0; o < ozz_model.size(); ++o)
      model[s.joint_of_ozz[o]] = mul_affine(s.ozz_root, from_ozz(ozz_model[o]));
  }
};

// Per clip: the errors of every ozz conversion, then of every marrow clip set, in scene order.
struct ClipErrors {
  std::vector<ErrorStats> ozz, marrow;
};

ClipErrors measure_errors(const Scene& s, std::size_t k, float distance) {
  const Skeleton& skeleton = s.asset.skeleton;
  std::vector<Mat4> rest(skeleton.size()), want(skeleton.size()), got(skeleton.size());
  local_to_model(skeleton, skeleton.rest_pose(), rest);
  Sampler sampler(s);
  ClipErrors r;
  r.ozz.resize(s.ozz.size());
  r.marrow.resize(s.marrow.size());
  auto measure = [&](float t, ErrorStats& stats) {
    for (JointIndex j : s.joint_of_ozz) {
      const Vec3 c0 = rest[j].column(0), c1 = rest[j].column(1), c2 = rest[j].column(2);
      const float scale = std::max({length(c0), length(c1), length(c2)});
      const float d = scale > 1e-20f ? distance / scale : distance;
      for (const Vec3 p : {Vec3{0, 0, 0}, Vec3{d, 0, 0}, Vec3{0, d, 0}, Vec3{0, 0, d}})
        stats.add(length(transform_point(want[j], p) - transform_point(got[j], p)), t,
                  skeleton.name(j));
    }
  };
  for (float t : check_times(*s.exact[k])) {
    sampler.exact(*s.exact[k], t, want);
    for (std::size_t v = 0; v < s.ozz.size(); ++v) {
      sampler.ozz(s.ozz[v]->clips[k], t, got);
      measure(t, r.ozz[v]);
    }
    for (std::size_t v = 0; v < s.marrow.size(); ++v) {
      sampler.compiled(s.marrow[v].clips[k], t, got);
      measure(t, r.marrow[v]);
    }
  }
  for (ErrorStats& e : r.ozz) e.finish();
  for (ErrorStats& e : r.marrow) e.finish();
  return r;
}

// ---------------------------------------------------------------------------------------------
// (a), (b): a crowd of characters, each owning its buffers (as bench/compiled_bench.cpp does).

struct CrowdOptions {
  std::size_t characters = 100, frames = 600;
};

struct OzzCharacter {
  std::unique_ptr<ozz::animation::SamplingJob::Context> context[kClipCount];
  std::vector<ozz::math::SoaTransform> layers[kClipCount];
  std::vector<ozz::math::SoaTransform> local;
  std::vector<ozz::math::Float4x4> model;
};

struct CompiledCharacter {
  CompiledSamplingContext context[kClipCount];
  std::vector<SoaTransform> layers[kClipCount];
  std::vector<SoaTransform> local;
  std::vector<Mat4> model;
};

struct ExactCharacter {
  SamplingCursor cursor[kClipCount];
  std::vector<Transform> layers[kClipCount];
  std::vector<Transform> local;
  std::vector<Mat4> model;
};

std::vector<OzzCharacter> ozz_crowd(const Scene& s, std::size_t count) {
  std::vector<OzzCharacter> crowd(count);
  const auto groups = static_cast<std::size_t>(s.ozz_skeleton.num_soa_joints());
  for (OzzCharacter& c : crowd) {
    for (std::size_t k = 0; k < kClipCount; ++k) {
      c.context[k] =
          std::make_unique<ozz::animation::SamplingJob::Context>(s.ozz_skeleton.num_joints());
      c.layers[k].resize(groups);
    }
    c.local.resize(groups);
    c.model.resize(static_cast<std::size_t>(s.ozz_skeleton.num_joints()));
  }
  return crowd;
}

std::vector<CompiledCharacter> compiled_crowd(const Scene& s, const MarrowClips& clips,
                                              std::size_t count) {
  std::vector<CompiledCharacter> crowd(count);
  const std::size_t n = s.asset.skeleton.size();
  for (CompiledCharacter& c : crowd) {
    for (std::size_t k = 0; k < kClipCount; ++k) {
      c.context[k].bind(clips.clips[k]);
      c.layers[k].resize(soa_group_count(n));
    }
    c.local.resize(soa_group_count(n));
    c.model.resize(n);
  }
  return crowd;
}

std::vector<ExactCharacter> exact_crowd(const Scene& s, std::size_t count) {
  std::vector<ExactCharacter> crowd(count);
  const std::size_t n = s.asset.skeleton.size();
  for (ExactCharacter& c : crowd) {
    for (std::size_t k = 0; k < kClipCount; ++k) {
      c.cursor[k].bind(*s.exact[k]);
      c.layers[k].resize(n);
    }
    c.local.resize(n);
    c.model.resize(n);
  }
  return crowd;
}

// (a) Walk for every character over every frame, sampled (and then local-to-model).
std::size_t run_ozz(const Scene& s, const OzzClips& clips, std::vector<OzzCharacter>& crowd,
                    const CrowdOptions& o, bool model) {
  const ozz::animation::Animation& clip = clips.clips[1];
  ozz::animation::SamplingJob sampling;
  sampling.animation = &clip;
  ozz::animation::LocalToModelJob l2m;
  l2m.skeleton = &s.ozz_skeleton;
  for (std::size_t f = 0; f < o.frames; ++f) {
    for (std::size_t c = 0; c < crowd.size(); ++c) {
      OzzCharacter& ch = crowd[c];
      sampling.context = ch.context[1].get();
      sampling.ratio = time_of(c, f, clip.duration()) / clip.duration();
      sampling.output = ozz::make_span(ch.local);
      sampling.Run();
      if (model) {
        l2m.input = ozz::make_span(ch.local);
        l2m.output = ozz::make_span(ch.model);
        l2m.Run();
      }
    }
  }
  return o.frames * crowd.size();
}

std::size_t run_compiled(const Scene& s, const MarrowClips& clips,
                         std::vector<CompiledCharacter>& crowd, const CrowdOptions& o, bool model) {
  const Skeleton& skeleton = s.asset.skeleton;
  const CompiledClip& clip = clips.clips[1];
  CompiledSamplingJob sampling;
  sampling.clip = &clip;
  sampling.rest_pose = skeleton.soa_rest_pose();
  SoaLocalToModelJob l2m;
  l2m.skeleton = &skeleton;
  for (std::size_t f = 0; f < o.frames; ++f) {
    for (std::size_t c = 0; c < crowd.size(); ++c) {
      CompiledCharacter& ch = crowd[c];
      sampling.time = time_of(c, f, clip.duration());
      sampling.context = &ch.context[1];
      sampling.output = ch.local;
      sampling.run();
      if (model) {
        l2m.local = ch.local;
        l2m.model = ch.model;
        l2m.run();
      }
    }
  }
  return o.frames * crowd.size();
}

std::size_t run_exact(const Scene& s, std::vector<ExactCharacter>& crowd, const CrowdOptions& o,
                      bool model) {
  const Skeleton& skeleton = s.asset.skeleton;
  const Clip& clip = *s.exact[1];
  for (std::size_t f = 0; f < o.frames; ++f) {
    for (std::size_t c = 0; c < crowd.size(); ++c) {
      ExactCharacter& ch = crowd[c];
      sample(clip, skeleton.rest_pose(), time_of(c, f, clip.duration()), ch.cursor[1], ch.local);
      if (model) local_to_model(skeleton, ch.local, ch.model);
    }
  }
  return o.frames * crowd.size();
}

// (b) Idle + Walk + Run at 0.2 / 0.5 / 0.3, blended, then local-to-model.
std::size_t blend_ozz(const Scene& s, const OzzClips& clips, std::vector<OzzCharacter>& crowd,
                      const CrowdOptions& o) {
  ozz::animation::SamplingJob sampling;
  ozz::animation::BlendingJob blend;
  blend.rest_pose = s.ozz_skeleton.joint_rest_poses();
  ozz::animation::LocalToModelJob l2m;
  l2m.skeleton = &s.ozz_skeleton;
  for (std::size_t f = 0; f < o.frames; ++f) {
    for (std::size_t c = 0; c < crowd.size(); ++c) {
      OzzCharacter& ch = crowd[c];
      ozz::animation::BlendingJob::Layer layers[kClipCount];
      for (std::size_t k = 0; k < kClipCount; ++k) {
        const ozz::animation::Animation& clip = clips.clips[k];
        sampling.animation = &clip;
        sampling.context = ch.context[k].get();
        sampling.ratio = time_of(c, f, clip.duration()) / clip.duration();
        sampling.output = ozz::make_span(ch.layers[k]);
        sampling.Run();
        layers[k].transform = ozz::make_span(ch.layers[k]);
        layers[k].weight = kBlendWeights[k];
      }
      blend.layers = layers;
      blend.output = ozz::make_span(ch.local);
      blend.Run();
      l2m.input = ozz::make_span(ch.local);
      l2m.output = ozz::make_span(ch.model);
      l2m.Run();
    }
  }
  return o.frames * crowd.size();
}

std::size_t blend_compiled(const Scene& s, const MarrowClips& clips,
                           std::vector<CompiledCharacter>& crowd, const CrowdOptions& o) {
  const Skeleton& skeleton = s.asset.skeleton;
  CompiledSamplingJob sampling;
  sampling.rest_pose = skeleton.soa_rest_pose();
  SoaBlendJob blend;
  blend.joint_count = skeleton.size();
  blend.rest_pose = skeleton.soa_rest_pose();
  SoaLocalToModelJob l2m;
  l2m.skeleton = &skeleton;
  for (std::size_t f = 0; f < o.frames; ++f) {
    for (std::size_t c = 0; c < crowd.size(); ++c) {
      CompiledCharacter& ch = crowd[c];
      SoaBlendLayer layers[kClipCount];
      for (std::size_t k = 0; k < kClipCount; ++k) {
        const CompiledClip& clip = clips.clips[k];
        sampling.clip = &clip;
        sampling.context = &ch.context[k];
        sampling.time = time_of(c, f, clip.duration());
        sampling.output = ch.layers[k];
        sampling.run();
        layers[k] = {ch.layers[k], kBlendWeights[k], {}};
      }
      blend.layers = layers;
      blend.output = ch.local;
      blend.run();
      l2m.local = ch.local;
      l2m.model = ch.model;
      l2m.run();
    }
  }
  return o.frames * crowd.size();
}

std::size_t blend_exact(const Scene& s, std::vector<ExactCharacter>& crowd, const CrowdOptions& o) {
  const Skeleton& skeleton = s.asset.skeleton;
  BlendJob blend;
  blend.rest_pose = skeleton.rest_pose();
  for (std::size_t f = 0; f < o.frames; ++f) {
    for (std::size_t c = 0; c < crowd.size(); ++c) {
      ExactCharacter& ch = crowd[c];
      BlendLayer layers[kClipCount];
      for (std::size_t k = 0; k < kClipCount; ++k) {
        const Clip& clip = *s.exact[k];
        sample(clip, skeleton.rest_pose(), time_of(c, f, clip.duration()), ch.cursor[k],
               ch.layers[k]);
        layers[k] = {ch.layers[k], kBlendWeights[k], {}};
      }
      blend.layers = layers;
      blend.output = ch.local;
      blend.run();
      local_to_model(skeleton, ch.local, ch.model);
    }
  }
  return o.frames * crowd.size();
}

// ---------------------------------------------------------------------------------------------

// memcpy of 256 MiB, bytes read plus written per second (as BM_MemcpyBandwidth in
// bench/memory_bandwidth_bench.cpp), the best of `repetitions`.
double memcpy_bandwidth(int repetitions) {
  const std::size_t bytes = std::size_t{256} << 20;
  std::vector<char> src(bytes, 1), dst(bytes, 0);
  double best = 1e30;
  for (int r = 0; r < repetitions; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    std::memcpy(dst.data(), src.data(), bytes);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, s);
    if (dst[static_cast<std::size_t>(r) * 4096] != 1) fail("memcpy copied nothing");
  }
  return 2.0 * static_cast<double>(bytes) / best;
}

std::string first_line(const std::string& path, const std::string& key = "") {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (key.empty()) return line;
    if (line.rfind(key, 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "?";
}

// ozz's default optimization settings (1 mm at 10 cm, absolute: the file's units read as metres)
// scaled to this character as if it were 1.8 m tall, as gltf2ozz's --config.
void print_scaled_config(const Scene& s) {
  const double f = s.extent / 1.8;
  std::printf("{\"animations\":[");
  for (std::size_t k = 0; k < kClipCount; ++k) {
    std::printf(
        "%s{\"clip\":\"%s\",\"optimization_settings\":{\"tolerance\":%.9g,"
        "\"distance\":%.9g}}",
        k ? "," : "", kClipNames[k], 0.001 * f, 0.1 * f);
  }
  std::printf("]}\n");
}

}  // namespace
}  // namespace peer

int main(int argc, char** argv) {
  using namespace peer;
  std::string soldier, ozz_dir, scaled_dir, only;
  int repetitions = 7;
  bool quick = false, print_config = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const std::size_t eq = a.find('=');
    const std::string key = a.substr(0, eq),
                      value = eq == std::string::npos ? "" : a.substr(eq + 1);
    if (key == "--soldier") {
      soldier = value;
    } else if (key == "--ozz-data") {
      ozz_dir = value;
    } else if (key == "--ozz-scaled-data") {
      scaled_dir = value;
    } else if (key == "--repetitions") {
      repetitions = std::atoi(value.c_str());
    } else if (key == "--only") {
      only = value;
    } else if (a == "--quick") {
      quick = true;
    } else if (a == "--print-ozz-scaled-config") {
      print_config = true;
    } else {
      fail("unknown argument " + a + " (see run.sh)");
    }
  }
  if (soldier.empty() || (ozz_dir.empty() && !print_config))
    fail("--soldier=FILE and --ozz-data=DIR are required");
  if (repetitions < 1) fail("--repetitions must be at least 1");

  Scene s;
  load_scene(s, soldier, print_config ? "" : ozz_dir);
  if (print_config) {
    print_scaled_config(s);
    return 0;
  }
  if (!scaled_dir.empty()) add_ozz_clips(s, scaled_dir, "ozz scaled to 1.8 m");
  const Skeleton& skeleton = s.asset.skeleton;
  const std::size_t n = skeleton.size();
  const int ozz_joints = s.ozz_skeleton.num_joints();

  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M %Z", std::localtime(&now));
  std::printf("# marrow vs ozz-animation 0.16, side by side\n\n");
  std::printf("- %s; %s, %u logical CPUs; load average at the start: %s\n", date,
              first_line("/proc/cpuinfo", "model name").c_str(),
              std::thread::hardware_concurrency(), first_line("/proc/loadavg").c_str());
  std::printf("- marrow's SIMD level: %s; skeleton: marrow %zu joints, ozz %d (matched by name)\n",
              std::string(to_string(active_simd_level())).c_str(), n, ozz_joints);

  // (e) first: marrow's "at ozz's error" clips are compiled with ozz's measured error as bound.
  const float distance = s.marrow[0].clips[0].report().distance;
  std::vector<ClipErrors> errors;
  if (only.empty()) {
    for (std::size_t k = 0; k < kClipCount; ++k) errors.push_back(measure_errors(s, k, distance));
  }
  for (std::size_t v = 0; !errors.empty() && v < s.ozz.size(); ++v) {
    MarrowClips at{"marrow at " + s.ozz[v]->label + "'s error", {}};
    for (std::size_t k = 0; k < kClipCount; ++k) {
      CompileOptions options;
      options.absolute = true;
      options.error = errors[k].ozz[v].max;
      options.distance = distance;
      auto c = CompiledClip::compile(*s.exact[k], skeleton, options);
      if (!c) fail(c.error().message);
      at.clips.push_back(std::move(c).value());
    }
    s.marrow.push_back(std::move(at));
  }
  for (std::size_t k = 0; k < errors.size(); ++k) errors[k] = measure_errors(s, k, distance);

  const double bandwidth_before = memcpy_bandwidth(quick ? 2 : 5);

  CrowdOptions o;
  if (quick) o.frames = 60;
  std::vector<std::vector<OzzCharacter>> ozz_state;
  for (std::size_t v = 0; v < s.ozz.size(); ++v) ozz_state.push_back(ozz_crowd(s, o.characters));
  std::vector<std::vector<CompiledCharacter>> compiled_state;
  for (const MarrowClips& m : s.marrow)
    compiled_state.push_back(compiled_crowd(s, m, o.characters));
  std::vector<ExactCharacter> exact_state = exact_crowd(s, o.characters);

  std::vector<Workload> w;
  for (bool model : {false, true}) {
    const std::string what = model ? "sample + local-to-model, " : "sample, ";
    for (std::size_t v = 0; v < s.ozz.size(); ++v)
      w.push_back({"a", what + s.ozz[v]->label,
                   [&, v, model] { return run_ozz(s, *s.ozz[v], ozz_state[v], o, model); }});
    for (std::size_t v = 0; v < s.marrow.size(); ++v)
      w.push_back({"a", what + s.marrow[v].label, [&, v, model] {
                     return run_compiled(s, s.marrow[v], compiled_state[v], o, model);
                   }});
    w.push_back(
        {"a", what + "marrow exact", [&, model] { return run_exact(s, exact_state, o, model); }});
  }
  const std::string three = "3 clips + blend + local-to-model, ";
  for (std::size_t v = 0; v < s.ozz.size(); ++v)
    w.push_back({"b", three + s.ozz[v]->label,
                 [&, v] { return blend_ozz(s, *s.ozz[v], ozz_state[v], o); }});
  for (std::size_t v = 0; v < s.marrow.size(); ++v)
    w.push_back({"b", three + s.marrow[v].label,
                 [&, v] { return blend_compiled(s, s.marrow[v], compiled_state[v], o); }});
  w.push_back({"b", three + "marrow exact", [&] { return blend_exact(s, exact_state, o); }});
  add_skinning_workloads(s, quick ? 20 : 200, w);
  std::erase_if(w, [&](const Workload& x) { return x.group.rfind(only, 0) != 0; });
  if (w.empty()) fail("no workload's group starts with '" + only + "'");

  // A warm-up round, then the interleaved repetitions.
  for (Workload& x : w) x.items = x.run();
  for (int r = 0; r < repetitions; ++r) {
    for (Workload& x : w) {
      const double t0 = thread_seconds();
      x.items = x.run();
      x.seconds.push_back(thread_seconds() - t0);
    }
  }
  const double bandwidth_after = memcpy_bandwidth(quick ? 2 : 5);
  std::printf(
      "- %d repetitions of every workload, interleaved; thread CPU time; load average at "
      "the end: %s\n",
      repetitions, first_line("/proc/loadavg").c_str());
  std::printf(
      "- memcpy bandwidth (256 MiB, bytes read + written): %.1f GB/s before the timings, "
      "%.1f GB/s after\n\n",
      bandwidth_before * 1e-9, bandwidth_after * 1e-9);

  // Timings. Ratios against ozz's row of the same work (for skinning, its first, faster row):
  // times as marrow / ozz (below 1: marrow takes less time), rates as marrow / ozz (above 1:
  // marrow skins more vertices per second).
  std::printf("| work | best | median | ratio to ozz (medians) |\n|---|---|---|---|\n");
  std::map<std::string, double> ozz_median;
  for (const Workload& x : w) {
    const bool rate = x.group[0] == 'c';
    auto value = [&](double seconds) {
      return rate ? static_cast<double>(x.items) / seconds * 1e-6
                  : seconds / static_cast<double>(x.items) * 1e6;
    };
    const double best = value(*std::min_element(x.seconds.begin(), x.seconds.end()));
    const double md = value(median(x.seconds));
    const std::string key =
        x.group + (x.name.find("local-to-model") != std::string::npos ? " model" : "");
    const bool reference = !ozz_median.count(key);
    if (reference) ozz_median[key] = md;
    const char* number = rate ? "%.0f" : "%.3f";
    const char* unit = rate ? " M vertices/s" : " µs";
    std::printf("| (%s) %s | %s%s | %s%s | %s |\n", x.group.c_str(), x.name.c_str(),
                fmt(number, best).c_str(), unit, fmt(number, md).c_str(), unit,
                reference ? "1" : fmt("%.2f", md / ozz_median[key]).c_str());
  }
  std::printf(
      "\n(a), (b): µs per character-frame, %zu characters × %zu frames at 60 Hz per "
      "repetition (Walk for (a)). (c): million vertices per second, one thread, "
      "positions + normals, in cache; synthetic: 4 influences, Soldier: 1 to 4.\n\n",
      o.characters, o.frames);
  if (!only.empty()) return 0;

  // (d) Memory.
  const auto ozz_groups = static_cast<std::size_t>(s.ozz_skeleton.num_soa_joints());
  const std::size_t ozz_pose = ozz_groups * sizeof(ozz::math::SoaTransform);
  const std::size_t ozz_one = ozz_context_bytes(ozz_joints) + ozz_pose +
                              static_cast<std::size_t>(ozz_joints) * sizeof(ozz::math::Float4x4);
  const std::size_t ozz_three = ozz_one + 2 * ozz_context_bytes(ozz_joints) + 3 * ozz_pose;
  CompiledCharacter& cc = compiled_state[0][0];
  auto context_bytes = [&](std::size_t k) {
    return cc.context[k].hints().empty() ? std::size_t{0} : cc.context[k].size_bytes();
  };
  const std::size_t pose = soa_group_count(n) * sizeof(SoaTransform);
  const std::size_t marrow_one = context_bytes(1) + pose + n * sizeof(Mat4);
  const std::size_t marrow_three =
      marrow_one + context_bytes(0) + context_bytes(2) + kClipCount * pose;
  const std::size_t exact_one = sizeof(SamplingCursor) +
                                exact_state[0].cursor[1].keys().size() * sizeof(std::uint32_t) +
                                n * (sizeof(Transform) + sizeof(Mat4));
  std::printf(
      "| bytes per character (d) | ozz | marrow compiled | marrow / ozz | marrow exact "
      "|\n|---|---|---|---|---|\n");
  std::printf(
      "| one clip: context or cursor + local pose + model pose | %zu | %zu | %.2f | %zu |\n",
      ozz_one, marrow_one, static_cast<double>(marrow_one) / static_cast<double>(ozz_one),
      exact_one);
  std::printf(
      "| three clips blended (b): three contexts and layer poses more | %zu | %zu | %.2f | |\n\n",
      ozz_three, marrow_three, static_cast<double>(marrow_three) / static_cast<double>(ozz_three));

  std::printf("| bytes per clip (d) |");
  for (const auto& z : s.ozz) std::printf(" %s |", z->label.c_str());
  for (const MarrowClips& m : s.marrow) std::printf(" %s |", m.label.c_str());
  std::printf(" marrow exact |\n|---|");
  for (std::size_t i = 0; i < s.ozz.size() + s.marrow.size() + 1; ++i) std::printf("---|");
  std::printf("\n");
  for (std::size_t k = 0; k < kClipCount; ++k) {
    std::printf("| %s |", kClipNames[k]);
    for (const auto& z : s.ozz) std::printf(" %zu |", z->clips[k].size());
    for (const MarrowClips& m : s.marrow) std::printf(" %zu |", m.clips[k].size_bytes());
    std::printf(" %zu |\n", s.marrow[0].clips[k].report().exact_bytes);
  }

  // (e) Accuracy, as a fraction of the character's height (Soldier.glb's character is about 0.2
  // model units tall, not 1.8).
  std::printf(
      "\n| error against marrow's exact sampler (e), max / p99, %% of the character's "
      "height |");
  for (const auto& z : s.ozz) std::printf(" %s |", z->label.c_str());
  for (const MarrowClips& m : s.marrow) std::printf(" %s |", m.label.c_str());
  std::printf("\n|---|");
  for (std::size_t i = 0; i < s.ozz.size() + s.marrow.size(); ++i) std::printf("---|");
  std::printf("\n");
  auto pct = [&](float e) { return fmt("%.4f", 100.0 * e / s.extent); };
  for (std::size_t k = 0; k < kClipCount; ++k) {
    std::printf("| %s |", kClipNames[k]);
    for (const ErrorStats& e : errors[k].ozz)
      std::printf(" %s / %s (%s, %.3f s) |", pct(e.max).c_str(), pct(e.p99).c_str(),
                  e.max_joint.c_str(), e.max_time);
    for (const ErrorStats& e : errors[k].marrow)
      std::printf(" %s / %s |", pct(e.max).c_str(), pct(e.p99).c_str());
    std::printf("\n");
  }
  std::printf(
      "\nThe character is %.4f model units tall (its rest-pose joints' extent); virtual "
      "vertices sit %.3g units (%.2f %% of that) from each joint, marrow's default; "
      "marrow's default bound is %.3g units (%.4f %%). In mm for a 1.8 m character: "
      "%% × 18.\n",
      s.extent, distance, 100.0 * distance / s.extent, s.marrow[0].clips[1].report().bound,
      100.0 * s.marrow[0].clips[1].report().bound / s.extent);
  return 0;
}
