#include "marrow/io/pose_dump.h"
#include "io/common/float_chars.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <iomanip>
#include <numeric>

#include "marrow/pose/local_to_model.h"
#include "marrow/skin/morph.h"

namespace marrow {
namespace {

// Shortest text that reads back as the same float.
std::string number(float v) {
  if (v == 0) return "0";  // also folds -0
  char buf[32];
  auto [ptr, ec] = io::print_shortest(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, ptr) : "0";
}

void write_json_string(std::ostream& out, const std::string& s) {
  out << '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out << "\\\"";
        break;
      case '\\':
        out << "\\\\";
        break;
      case '\n':
        out << "\\n";
        break;
      case '\t':
        out << "\\t";
        break;
      case '\r':
        out << "\\r";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out << buf;
        } else {
          out << static_cast<char>(c);
        }
    }
  }
  out << '"';
}

}  // namespace

std::vector<JointIndex> joints_in_source_order(const Asset& asset) {
  std::vector<JointIndex> order(asset.skeleton.size());
  std::iota(order.begin(), order.end(), JointIndex{0});
  std::stable_sort(order.begin(), order.end(), [&](JointIndex a, JointIndex b) {
    const std::int64_t sa = a < asset.source_index.size() ? asset.source_index[a] : -1;
    const std::int64_t sb = b < asset.source_index.size() ? asset.source_index[b] : -1;
    // Joints the importer made (-1) go last.
    if ((sa < 0) != (sb < 0)) return sb < 0;
    return sa < sb;
  });
  return order;
}

PoseSamples sample_world(const Asset& asset, int clip_index, std::span<const float> times,
                         WrapMode wrap) {
  PoseSamples samples;
  samples.times.assign(times.begin(), times.end());
  const std::size_t n = asset.skeleton.size();
  std::vector<Transform> local(n);
  const Clip* clip =
      clip_index >= 0 ? &asset.clips.at(static_cast<std::size_t>(clip_index)) : nullptr;
  SamplingCursor cursor;
  if (clip) cursor.bind(*clip);
  const MorphLayout morphs = MorphLayout::build(asset.meshes);
  for (float t : times) {
    std::vector<float> weights(morphs.default_weights().begin(), morphs.default_weights().end());
    if (clip) {
      const float wrapped = wrap_time(t, clip->duration(), wrap);
      sample(*clip, asset.skeleton.rest_pose(), wrapped, cursor, local);
      if (clip->weight_count() <= weights.size())
        sample_weight_tracks(*clip, wrapped, cursor, weights);
    } else {
      std::copy(asset.skeleton.rest_pose().begin(), asset.skeleton.rest_pose().end(),
                local.begin());
    }
    std::vector<Mat4> world(n);
    local_to_model(asset.skeleton, local, world);
    samples.world.push_back(std::move(world));
    samples.weights.push_back(std::move(weights));
  }
  return samples;
}

void write_pose_json(std::ostream& out, const Asset& asset, int clip_index,
                     const PoseSamples& samples) {
  const std::vector<JointIndex> order = joints_in_source_order(asset);
  const Clip* clip =
      clip_index >= 0 ? &asset.clips.at(static_cast<std::size_t>(clip_index)) : nullptr;
  out << "{\"file\": ";
  write_json_string(out, std::filesystem::path(asset.source).filename().string());
  out << ", \"clip\": ";
  if (clip)
    write_json_string(out, clip->name());
  else
    out << "null";
  out << ", \"clip_index\": " << clip_index
      << ", \"duration\": " << number(clip ? clip->duration() : 0.0f);
  if (samples.compiled) {
    out << ", \"compiled\": {\"error_bound\": " << number(samples.compiled->bound)
        << ", \"distance\": " << number(samples.compiled->distance)
        << ", \"max_error\": " << number(samples.compiled->max_error) << ", \"origin\": ";
    write_json_string(out, samples.compiled->origin);
    out << "}";
  }
  out << ", \"nodes\": [";
  for (std::size_t i = 0; i < order.size(); ++i) {
    const JointIndex j = order[i];
    out << (i ? ", " : "") << "{\"index\": " << asset.source_index[j] << ", \"name\": ";
    if (asset.skeleton.name(j).empty())
      out << "null";
    else
      write_json_string(out, asset.skeleton.name(j));
    out << ", \"joint\": " << (asset.is_skin_joint(j) ? "true" : "false") << "}";
  }
  out << "]";
  const MorphLayout morphs = MorphLayout::build(asset.meshes);
  if (!morphs.slots().empty()) {
    out << ", \"morphs\": [";
    for (std::size_t i = 0; i < morphs.slots().size(); ++i) {
      const MorphSlots& slot = morphs.slots()[i];
      out << (i ? ", " : "") << "{\"node\": " << asset.source_index[slot.node] << ", \"name\": ";
      write_json_string(out, asset.skeleton.name(slot.node));
      out << ", \"targets\": [";
      for (std::uint32_t t = 0; t < slot.count; ++t) {
        out << (t ? ", " : "");
        write_json_string(out, morphs.names()[slot.first + t]);
      }
      out << "]}";
    }
    out << "]";
  }
  out << ", \"samples\": [";
  for (std::size_t s = 0; s < samples.times.size(); ++s) {
    out << (s ? ", " : "") << "{\"t\": " << number(samples.times[s]) << ", \"world\": [";
    for (std::size_t i = 0; i < order.size(); ++i) {
      const Mat4& m = samples.world[s][order[i]];
      out << (i ? ", " : "") << "[";
      for (int k = 0; k < 16; ++k) out << (k ? ", " : "") << number(m.m[k]);
      out << "]";
    }
    out << "]";
    if (!morphs.slots().empty()) {
      const std::vector<float>* w = s < samples.weights.size() ? &samples.weights[s] : nullptr;
      out << ", \"weights\": [";
      for (std::size_t i = 0; i < morphs.slots().size(); ++i) {
        const MorphSlots& slot = morphs.slots()[i];
        out << (i ? ", " : "") << "[";
        for (std::uint32_t t = 0; t < slot.count; ++t) {
          const std::size_t k = slot.first + t;
          out << (t ? ", " : "")
              << number(w && k < w->size() ? (*w)[k] : morphs.default_weights()[k]);
        }
        out << "]";
      }
      out << "]";
    }
    out << "}";
  }
  out << "]}\n";
}

void write_pose_text(std::ostream& out, const Asset& asset, int clip_index,
                     const PoseSamples& samples) {
  const std::vector<JointIndex> order = joints_in_source_order(asset);
  const Clip* clip =
      clip_index >= 0 ? &asset.clips.at(static_cast<std::size_t>(clip_index)) : nullptr;
  out << asset.source << ": ";
  if (clip)
    out << "clip " << clip_index << " '" << clip->name() << "', " << clip->duration() << " s\n";
  else
    out << "rest pose\n";
  if (samples.compiled) {
    out << "compiled clip (" << samples.compiled->origin << "), error bound "
        << samples.compiled->description << "; largest error at these times "
        << samples.compiled->max_error << " model units, measured against the exact clip\n";
  }
  out << std::fixed;
  for (std::size_t s = 0; s < samples.times.size(); ++s) {
    out << "\nt = " << std::setprecision(4) << samples.times[s] << " s\n";
    out << std::setw(6) << "node"
        << "  " << std::left << std::setw(28) << "name" << std::right << std::setw(32)
        << "position (x y z)" << std::setw(40) << "rotation (x y z w)" << std::setw(30)
        << "scale (x y z)"
        << "\n";
    for (JointIndex j : order) {
      const Decomposition d = decompose(samples.world[s][j]);
      const Transform& t = d.transform;
      std::string name = asset.skeleton.name(j).empty() ? "-" : asset.skeleton.name(j);
      if (name.size() > 27) name = name.substr(0, 26) + "~";
      out << std::setw(6) << asset.source_index[j] << "  " << std::left << std::setw(28) << name
          << std::right << std::setprecision(4) << std::setw(11) << t.translation.x << std::setw(11)
          << t.translation.y << std::setw(11) << t.translation.z << std::setw(10) << t.rotation.x
          << std::setw(10) << t.rotation.y << std::setw(10) << t.rotation.z << std::setw(10)
          << t.rotation.w << std::setw(10) << t.scale.x << std::setw(10) << t.scale.y
          << std::setw(10) << t.scale.z << "\n";
    }
    if (s < samples.weights.size() && !samples.weights[s].empty()) {
      const MorphLayout morphs = MorphLayout::build(asset.meshes);
      for (const MorphSlots& slot : morphs.slots()) {
        out << "  morph weights of '" << asset.skeleton.name(slot.node) << "':";
        for (std::uint32_t k = slot.first; k < slot.first + slot.count; ++k) {
          if (k < samples.weights[s].size()) out << " " << samples.weights[s][k];
        }
        out << "\n";
      }
    }
  }
}

}  // namespace marrow
