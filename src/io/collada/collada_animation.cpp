#include "collada/collada_animation.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <tuple>

#include "common/reader_support.h"

namespace marrow::collada {

// ------------------------------------------------------------------------------------ curves

std::size_t Curve::segment(double time, bool left) const {
  const auto it = left ? std::lower_bound(times.begin(), times.end(), time)
                       : std::upper_bound(times.begin(), times.end(), time);
  const std::size_t after = static_cast<std::size_t>(it - times.begin());
  return after == 0 ? 0 : std::min(after - 1, times.size() - 2);
}

namespace {

// A cubic Bezier in 2-D (time, value): the parameter s where its time is `t` (bisection: the
// time is monotonic because the control times lie inside the segment), then its value there.
double bezier_at(double t, double p0x, double p0y, double c0x, double c0y, double c1x, double c1y,
                 double p1x, double p1y) {
  c0x = std::clamp(c0x, p0x, p1x);
  c1x = std::clamp(c1x, p0x, p1x);
  auto bez = [](double a, double b, double c, double d, double s) {
    const double u = 1 - s;
    return u * u * u * a + 3 * u * u * s * b + 3 * u * s * s * c + s * s * s * d;
  };
  double lo = 0, hi = 1;
  for (int i = 0; i < 64 && hi - lo > 1e-15; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (bez(p0x, c0x, c1x, p1x, mid) < t)
      lo = mid;
    else
      hi = mid;
  }
  return bez(p0y, c0y, c1y, p1y, 0.5 * (lo + hi));
}

}  // namespace

void Curve::evaluate(double time, bool left, float* out) const {
  const std::size_t n = times.size();
  if (n == 1 || time < times[0] || (left && time <= times[0])) {
    std::copy_n(values.begin(), dim, out);
    return;
  }
  if (time > times[n - 1] || (!left && time >= times[n - 1])) {
    std::copy_n(values.begin() + static_cast<std::ptrdiff_t>((n - 1) * dim), dim, out);
    return;
  }
  const std::size_t k = segment(time, left);
  const double t0 = times[k], t1 = times[k + 1];
  const float* v0 = &values[k * dim];
  const float* v1 = &values[(k + 1) * dim];
  if (!(t1 > t0) || interpolation[k] == CurveInterpolation::kStep) {
    std::copy_n(v0, dim, out);
    return;
  }
  const double s = std::clamp((time - t0) / (t1 - t0), 0.0, 1.0);
  if (interpolation[k] == CurveInterpolation::kLinear) {
    for (std::size_t c = 0; c < dim; ++c) out[c] = static_cast<float>(v0[c] + (v1[c] - v0[c]) * s);
    return;
  }
  const bool hermite = interpolation[k] == CurveInterpolation::kHermite;
  const double third = (t1 - t0) / 3;
  for (std::size_t c = 0; c < dim; ++c) {
    double c0x, c0y, c1x, c1y;
    if (tangent_dim == 2) {
      const float* o = &out_tangents[(k * dim + c) * 2];
      const float* i = &in_tangents[((k + 1) * dim + c) * 2];
      if (hermite) {  // tangents are derivatives: the Bezier controls are a third of them away
        c0x = t0 + o[0] / 3.0, c0y = v0[c] + o[1] / 3.0;
        c1x = t1 - i[0] / 3.0, c1y = v1[c] - i[1] / 3.0;
      } else {  // tangents are the control points themselves
        c0x = o[0], c0y = o[1], c1x = i[0], c1y = i[1];
      }
    } else {  // value-only tangents: the time runs linearly (controls at thirds)
      const float o = out_tangents[k * dim + c], i = in_tangents[(k + 1) * dim + c];
      c0x = t0 + third, c1x = t1 - third;
      c0y = hermite ? v0[c] + o / 3.0 : o;
      c1y = hermite ? v1[c] - i / 3.0 : i;
    }
    out[c] = static_cast<float>(bezier_at(time, t0, v0[c], c0x, c0y, c1x, c1y, t1, v1[c]));
  }
}

// ---------------------------------------------------------------------------- the model

AnimationModel::AnimationModel(const Document& doc, const Scene& scene,
                               const MorphInstances& morphs, const std::string& default_clip_name,
                               std::vector<std::string>& warnings)
    : doc_(doc), scene_(scene) {
  read_animations(morphs, warnings);
  read_clips(default_clip_name, warnings);
}

Curve AnimationModel::read_curve(pugi::xml_node sampler, std::vector<std::string>& warnings) const {
  Curve c;
  c.sampler = sampler;
  const Source *input = nullptr, *output = nullptr, *interp = nullptr, *in_t = nullptr,
               *out_t = nullptr;
  for (pugi::xml_node in : sampler.children("input")) {
    const std::string semantic = in.attribute("semantic").as_string();
    const Source* s = &doc_.source_at(in, in.attribute("source").as_string());
    if (semantic == "INPUT") input = s;
    if (semantic == "OUTPUT") output = s;
    if (semantic == "INTERPOLATION") interp = s;
    if (semantic == "IN_TANGENT") in_t = s;
    if (semantic == "OUT_TANGENT") out_t = s;
  }
  if (!input || !output) doc_.fail(sampler, "needs INPUT and OUTPUT inputs");
  const std::size_t keys = input->count;
  if (keys == 0 || input->floats.empty()) doc_.fail(input->element, "has no key times");
  for (std::size_t k = 0; k < keys; ++k) c.times.push_back(input->floats[k * input->stride]);
  for (std::size_t k = 1; k < keys; ++k) {
    if (c.times[k] < c.times[k - 1])
      doc_.fail(input->element, "key " + std::to_string(k) + " at " + std::to_string(c.times[k]) +
                                    " s goes back in time (key " + std::to_string(k - 1) +
                                    " is at " + std::to_string(c.times[k - 1]) + " s)");
  }
  if (output->count != keys || output->floats.empty())
    doc_.fail(output->element,
              std::to_string(output->count) + " values for " + std::to_string(keys) + " key times");
  c.dim = output->stride;
  c.values = output->floats;
  c.interpolation.assign(keys, CurveInterpolation::kLinear);
  bool curved = false, approximated = false;
  if (interp) {
    if (interp->count != keys || interp->names.empty())
      doc_.fail(interp->element, std::to_string(interp->count) + " interpolations for " +
                                     std::to_string(keys) + " keys");
    for (std::size_t k = 0; k < keys; ++k) {
      const std::string& name = interp->names[k * interp->stride];
      if (name == "STEP") {
        c.interpolation[k] = CurveInterpolation::kStep;
      } else if (name == "LINEAR") {
        c.interpolation[k] = CurveInterpolation::kLinear;
      } else if (name == "BEZIER") {
        c.interpolation[k] = CurveInterpolation::kBezier;
        curved = curved || k + 1 < keys;
      } else if (name == "HERMITE") {
        c.interpolation[k] = CurveInterpolation::kHermite;
        curved = curved || k + 1 < keys;
      } else if (name == "CARDINAL" || name == "BSPLINE") {
        approximated = true;
      } else {
        doc_.fail(interp->element, "interpolation " + io::quote_token(name) + " of key " +
                                       std::to_string(k) + " is unknown");
      }
    }
  }
  if (approximated)
    warnings.push_back(doc_.where(sampler) + ": CARDINAL and BSPLINE segments are read as LINEAR");
  if (curved) {
    if (!in_t || !out_t)
      doc_.fail(sampler, "has BEZIER or HERMITE keys but no IN_TANGENT and OUT_TANGENT");
    for (const Source* t : {in_t, out_t}) {
      if (t->count != keys)
        doc_.fail(t->element,
                  std::to_string(t->count) + " tangents for " + std::to_string(keys) + " keys");
      if (t->stride != c.dim && t->stride != 2 * c.dim)
        doc_.fail(t->element, "tangents of stride " + std::to_string(t->stride) +
                                  " for values of " + std::to_string(c.dim) + " (expected " +
                                  std::to_string(c.dim) + " or " + std::to_string(2 * c.dim) + ")");
    }
    if (in_t->stride != out_t->stride)
      doc_.fail(sampler, "IN_TANGENT and OUT_TANGENT have different strides");
    c.tangent_dim = in_t->stride / c.dim;
    c.in_tangents = in_t->floats;
    c.out_tangents = out_t->floats;
  }
  c.all_step = std::all_of(c.interpolation.begin(), c.interpolation.end(),
                           [](CurveInterpolation i) { return i == CurveInterpolation::kStep; });
  return c;
}

namespace {

// A channel target split: "id/sid/sid.member" or "id(3)" -> id, the last sid, the member.
struct Target {
  std::string id;
  std::string sid;                 // empty when the target is the id's element itself
  std::string member;              // "X", "ANGLE", ... (after '.')
  std::vector<std::size_t> index;  // "(i)" or "(i)(j)"
  bool ok = true;
};

Target parse_target(std::string_view text) {
  Target t;
  const std::size_t slash = text.find('/');
  const std::size_t last_slash = text.rfind('/');
  std::string_view last = slash == std::string_view::npos ? text : text.substr(last_slash + 1);
  t.id = std::string(slash == std::string_view::npos ? std::string_view() : text.substr(0, slash));
  const std::size_t cut = last.find_first_of(".(");
  std::string_view name = last.substr(0, cut);
  std::string_view rest = cut == std::string_view::npos ? std::string_view() : last.substr(cut);
  if (slash == std::string_view::npos)
    t.id = std::string(name);
  else
    t.sid = std::string(name);
  if (!rest.empty() && rest[0] == '.') {
    t.member = std::string(rest.substr(1));
  } else {
    while (!rest.empty()) {
      if (rest[0] != '(') {
        t.ok = false;
        break;
      }
      const std::size_t close = rest.find(')');
      if (close == std::string_view::npos || close == 1 || close > 12) {
        t.ok = false;
        break;
      }
      std::size_t v = 0;
      for (char ch : rest.substr(1, close - 1)) {
        if (ch < '0' || ch > '9') t.ok = false;
        v = v * 10 + static_cast<std::size_t>(ch - '0');
      }
      t.index.push_back(v);
      rest = rest.substr(close + 1);
    }
  }
  if (t.index.size() > 2) t.ok = false;
  return t;
}

}  // namespace

std::vector<Binding> AnimationModel::bind(pugi::xml_node channel, const Curve& curve,
                                          const MorphInstances& morphs,
                                          std::vector<std::string>& warnings) const {
  const std::string text = channel.attribute("target").as_string();
  const Target target = parse_target(text);
  if (!target.ok || target.id.empty())
    doc_.fail(channel, "target " + io::quote_token(text) + " is not an address Collada defines");
  std::vector<Binding> out;
  // Morph weights: the MORPH_WEIGHT <source> itself ("weights-id(2)"), or its morph controller.
  std::string weights_id = target.id;
  if (const auto c = morphs.weights_id_of_controller.find(target.id);
      c != morphs.weights_id_of_controller.end())
    weights_id = c->second;
  if (const auto w = morphs.by_weights_id.find(weights_id); w != morphs.by_weights_id.end()) {
    const MorphInstances::Entry& e = w->second;
    std::size_t first = 0, count = e.targets;
    if (!target.index.empty()) {
      first = target.index[0];
      count = 1;
      if (first >= e.targets)
        doc_.fail(channel, "target " + io::quote_token(text) + " names morph target " +
                               std::to_string(first) + ", but the morph has " +
                               std::to_string(e.targets));
    }
    if (curve.dim != count)
      doc_.fail(channel, "its sampler gives " + std::to_string(curve.dim) + " values per key for " +
                             std::to_string(count) + " morph weights");
    for (std::size_t node : e.nodes) out.push_back({node, 0, first, count, true, first});
    return out;
  }
  std::vector<std::size_t> nodes;
  for (auto [it, e] = scene_.by_id.equal_range(target.id); it != e; ++it)
    nodes.push_back(it->second);
  // Exporters that write names (or sids) where ids belong: the FBX COLLADA exporter targets
  // "Bip01 Footsteps/matrix" for a node whose id is "Bip01_Footsteps".
  if (nodes.empty() && !doc_.by_id(target.id)) {
    for (auto [it, e] = scene_.by_sid.equal_range(target.id); it != e; ++it)
      nodes.push_back(it->second);
    for (std::size_t n = 1; nodes.empty() && n < scene_.nodes.size(); ++n)
      if (scene_.nodes[n].name == target.id) nodes.push_back(n);
  }
  if (nodes.empty()) {
    const pugi::xml_node element = doc_.by_id(target.id);
    warnings.push_back(
        doc_.where(channel) + ": target " + io::quote_token(text) +
        (element ? " animates a <" + std::string(element.name()) + ">" : " names no element") +
        ", not a node's transform or a morph weight; dropped");
    return out;
  }
  for (const std::size_t node_index : nodes) {
    const SceneNode& node = scene_.nodes[node_index];
    const auto e = std::find_if(node.stack.begin(), node.stack.end(),
                                [&](const TransformElement& x) { return x.sid == target.sid; });
    if (target.sid.empty() || e == node.stack.end()) {
      warnings.push_back(doc_.where(channel) + ": target " + io::quote_token(text) +
                         " names no transform element of node " + io::quote_token(node.name) +
                         "; dropped");
      return {};
    }
    Binding bnd;
    bnd.node = node_index;
    bnd.element = static_cast<std::size_t>(e - node.stack.begin());
    bnd.count = e->size;
    if (!target.member.empty()) {
      static constexpr std::pair<const char*, std::size_t> kMembers[] = {
          {"X", 0}, {"Y", 1}, {"Z", 2}, {"ANGLE", 3}};
      const auto m = std::find_if(std::begin(kMembers), std::end(kMembers),
                                  [&](const auto& p) { return target.member == p.first; });
      const bool fits = m != std::end(kMembers) &&
                        (e->kind == ElementKind::kRotate ||
                         ((e->kind == ElementKind::kTranslate || e->kind == ElementKind::kScale) &&
                          m->second < 3));
      if (!fits)
        doc_.fail(channel, "member ." + target.member + " of a <" + e->element.name() +
                               "> is not one Collada defines");
      bnd.first = m->second;
      bnd.count = 1;
    } else if (target.index.size() == 2) {
      if (e->kind != ElementKind::kMatrix || target.index[0] > 3 || target.index[1] > 3)
        doc_.fail(channel, "index (" + std::to_string(target.index[0]) + ")(" +
                               std::to_string(target.index[1]) + ") is not an element of a matrix");
      bnd.matrix_element = true;
      bnd.column_i_row_j = target.index[1] * 4 + target.index[0];
      bnd.row_i_column_j = target.index[0] * 4 + target.index[1];
      bnd.first = bnd.column_i_row_j;
      bnd.count = 1;
    } else if (target.index.size() == 1) {
      if (target.index[0] >= e->size)
        doc_.fail(channel, "index (" + std::to_string(target.index[0]) + ") is past the " +
                               std::to_string(e->size) + " values of a <" + e->element.name() +
                               ">");
      bnd.first = target.index[0];
      bnd.count = 1;
    }
    if (curve.dim != bnd.count)
      doc_.fail(channel, "its sampler gives " + std::to_string(curve.dim) +
                             " values per key; target " + io::quote_token(text) + " takes " +
                             std::to_string(bnd.count));
    out.push_back(bnd);
  }
  return out;
}

void AnimationModel::read_animations(const MorphInstances& morphs,
                                     std::vector<std::string>& warnings) {
  std::map<const void*, std::size_t> curve_of_sampler;
  struct Item {
    pugi::xml_node animation;
    std::vector<const void*> ancestors;  // innermost first, itself included
  };
  std::vector<Item> stack;
  for (pugi::xml_node lib : doc_.root().children("library_animations")) {
    for (pugi::xml_node a : lib.children("animation")) stack.push_back({a, {a.internal_object()}});
  }
  std::reverse(stack.begin(), stack.end());
  std::vector<std::string> dropped;  // channels on cameras, materials...: summarized below
  while (!stack.empty()) {
    const Item item = stack.back();
    stack.pop_back();
    if (item.ancestors.size() > kMaxAnimationDepth)
      doc_.fail(item.animation,
                "animations nested deeper than " + std::to_string(kMaxAnimationDepth) + " levels");
    for (pugi::xml_node ch : item.animation.children("channel")) {
      const pugi::xml_node sampler = doc_.resolve(ch, ch.attribute("source").as_string(), "source");
      if (std::strcmp(sampler.name(), "sampler") != 0)
        doc_.fail(ch, "source names a <" + std::string(sampler.name()) + ">, not a <sampler>");
      auto it = curve_of_sampler.find(sampler.internal_object());
      if (it == curve_of_sampler.end()) {
        curves_.push_back(read_curve(sampler, warnings));
        it = curve_of_sampler.emplace(sampler.internal_object(), curves_.size() - 1).first;
      }
      Channel channel;
      channel.element = ch;
      channel.curve = it->second;
      channel.bindings = bind(ch, curves_[it->second], morphs, dropped);
      channel.animations = item.ancestors;
      if (!channel.bindings.empty()) channels_.push_back(std::move(channel));
    }
    const std::size_t first = stack.size();
    for (pugi::xml_node a : item.animation.children("animation")) {
      Item child{a, {a.internal_object()}};
      child.ancestors.insert(child.ancestors.end(), item.ancestors.begin(), item.ancestors.end());
      stack.push_back(std::move(child));
    }
    std::reverse(stack.begin() + static_cast<std::ptrdiff_t>(first), stack.end());
  }
  // Many channels of a DCC export animate cameras or materials: name a few, count the rest.
  for (std::size_t i = 0; i < dropped.size() && i < 3; ++i) warnings.push_back(dropped[i]);
  if (dropped.size() > 3)
    warnings.push_back(std::to_string(dropped.size() - 3) + " more channels dropped likewise");
  order_matrix_elements(warnings);
  matrix_keys_.resize(curves_.size());
  for (std::size_t c = 0; c < curves_.size(); ++c) {
    const Curve& curve = curves_[c];
    if (curve.dim != 16) continue;
    for (std::size_t k = 0; k < curve.times.size(); ++k) {
      DMat m;
      std::copy_n(curve.values.begin() + static_cast<std::ptrdiff_t>(k * 16), 16, m.m.begin());
      Transform t = decompose(m.to_mat4()).transform;
      // Hemisphere of the key before, so interpolation takes the short way as the file did.
      if (k > 0 && dot(t.rotation, matrix_keys_[c].back().rotation) < 0)
        t.rotation = negate(t.rotation);
      matrix_keys_[c].push_back(t);
    }
  }
}

namespace {

bool same_value(float a, float b) {
  return std::fabs(a - b) <= 1e-5f * std::max({1.0f, std::fabs(a), std::fabs(b)});
}

}  // namespace

// "(i)(j)" on a <matrix> is read as column i, row j, the way 3ds Max's ColladaMax writes these
// channels and assimp and three.js read them; the COLLADA DOM reads row i, column j. The file
// decides (docs/formats_collada.md): a channel off the diagonal whose first key equals its
// node's own <matrix> under one reading only is a vote for that reading, and the document is
// read the way most votes say. The two readings agree on the diagonal.
void AnimationModel::order_matrix_elements(std::vector<std::string>& warnings) {
  std::size_t checked = 0, column_votes = 0, row_votes = 0;
  for (const Channel& ch : channels_) {
    const Curve& curve = curves_[ch.curve];
    for (const Binding& b : ch.bindings) {
      if (!b.matrix_element || b.column_i_row_j == b.row_i_column_j || curve.values.empty())
        continue;
      ++checked;
      const std::array<float, 16>& file = scene_.nodes[b.node].stack[b.element].values;
      const bool as_column = same_value(curve.values[0], file[b.column_i_row_j]);
      const bool as_row = same_value(curve.values[0], file[b.row_i_column_j]);
      column_votes += as_column && !as_row ? 1 : 0;
      row_votes += as_row && !as_column ? 1 : 0;
    }
  }
  const bool by_row = row_votes > column_votes;
  for (Channel& ch : channels_)
    for (Binding& b : ch.bindings)
      if (b.matrix_element) b.first = by_row ? b.row_i_column_j : b.column_i_row_j;
  if (checked == 0) return;
  const std::string tally = " (the first keys of " + std::to_string(column_votes) + " of " +
                            std::to_string(checked) +
                            " channels off the diagonal equal their node's <matrix> read as "
                            "column i, row j; " +
                            std::to_string(row_votes) + " read as row i, column j)";
  if (by_row)
    warnings.push_back(
        "matrix channels \"(i)(j)\" read as row i, column j, not as column i, row j" + tally);
  else if (column_votes == 0 || row_votes > 0)
    warnings.push_back(
        "matrix channels \"(i)(j)\" read as column i, row j, as 3ds Max writes them" + tally);
}

void AnimationModel::read_clips(const std::string& default_clip_name,
                                std::vector<std::string>& warnings) {
  auto key_range = [&](const std::vector<std::size_t>& channels) {
    double lo = 0, hi = 0;
    bool any = false;
    for (std::size_t c : channels) {
      const Curve& curve = curves_[channels_[c].curve];
      lo = any ? std::min<double>(lo, curve.times.front()) : curve.times.front();
      hi = any ? std::max<double>(hi, curve.times.back()) : curve.times.back();
      any = true;
    }
    return std::pair{std::min(lo, 0.0), hi};
  };
  std::size_t index = 0;
  for (pugi::xml_node lib : doc_.root().children("library_animation_clips")) {
    for (pugi::xml_node clip : lib.children("animation_clip")) {
      ClipRange range;
      range.name = display_name(clip, "clip_" + std::to_string(index++));
      std::set<const void*> selected;
      for (pugi::xml_node inst : clip.children("instance_animation")) {
        const pugi::xml_node a = doc_.resolve(inst, inst.attribute("url").as_string(), "url");
        if (std::strcmp(a.name(), "animation") != 0)
          doc_.fail(inst, "url names a <" + std::string(a.name()) + ">, not an <animation>");
        selected.insert(a.internal_object());
      }
      for (std::size_t c = 0; c < channels_.size(); ++c) {
        for (const void* a : channels_[c].animations) {
          if (selected.count(a)) {
            range.channels.push_back(c);
            break;
          }
        }
      }
      const auto [lo, hi] = key_range(range.channels);
      range.start = clip.attribute("start").as_double(0.0);
      range.end = clip.attribute("end") ? clip.attribute("end").as_double() : hi;
      // Within ±10^7 s (115 days): clip times are floats from the start.
      if (!(std::fabs(range.start) <= 1e7) || !(std::fabs(range.end) <= 1e7) ||
          range.end < range.start)
        doc_.fail(clip, "start " + std::string(clip.attribute("start").as_string()) + " and end " +
                            clip.attribute("end").as_string() + " are not a time range");
      (void)lo;
      clips_.push_back(std::move(range));
    }
  }
  if (clips_.empty() && !channels_.empty()) {
    ClipRange all;
    all.name = default_clip_name;
    for (std::size_t c = 0; c < channels_.size(); ++c) all.channels.push_back(c);
    std::tie(all.start, all.end) = key_range(all.channels);
    if (all.start < 0)
      warnings.push_back("keys start at " + std::to_string(all.start) +
                         " s; the clip is shifted to start at 0");
    clips_.push_back(std::move(all));
  }
  bindings_of_node_.resize(clips_.size());
  for (std::size_t clip = 0; clip < clips_.size(); ++clip) {
    for (std::size_t c : clips_[clip].channels) {
      for (std::size_t b = 0; b < channels_[c].bindings.size(); ++b)
        bindings_of_node_[clip][channels_[c].bindings[b].node].emplace_back(c, b);
    }
  }
}

const std::vector<std::pair<std::size_t, std::size_t>>& AnimationModel::bindings(
    std::size_t clip, std::size_t node) const {
  static const std::vector<std::pair<std::size_t, std::size_t>> kNone;
  const auto it = bindings_of_node_[clip].find(node);
  return it == bindings_of_node_[clip].end() ? kNone : it->second;
}

DMat AnimationModel::local(std::size_t clip, std::size_t node, double time, bool left) const {
  const SceneNode& n = scene_.nodes[node];
  std::vector<std::array<float, 16>> values(n.stack.size());
  for (std::size_t e = 0; e < n.stack.size(); ++e) values[e] = n.stack[e].values;
  float v[16];
  for (const auto& [c, bi] : bindings(clip, node)) {
    const Channel& ch = channels_[c];
    const Binding& b = ch.bindings[bi];
    {
      if (b.weight) continue;
      const Curve& curve = curves_[ch.curve];
      const bool whole_matrix = b.count == 16;
      const std::size_t k = curve.times.size() > 1 ? curve.segment(time, left) : 0;
      if (whole_matrix && curve.times.size() > 1 &&
          curve.interpolation[k] == CurveInterpolation::kLinear && time > curve.times[k] &&
          time < curve.times[k + 1]) {
        const double s =
            (time - curve.times[k]) / (static_cast<double>(curve.times[k + 1]) - curve.times[k]);
        const Transform& a = matrix_keys_[ch.curve][k];
        const Transform& bk = matrix_keys_[ch.curve][k + 1];
        const auto f = static_cast<float>(s);
        const Mat4 m = to_matrix({lerp(a.translation, bk.translation, f),
                                  slerp(a.rotation, bk.rotation, f), lerp(a.scale, bk.scale, f)});
        for (int row = 0; row < 4; ++row)
          for (int col = 0; col < 4; ++col) v[row * 4 + col] = m(row, col);
      } else {
        curve.evaluate(time, left, v);
      }
      std::copy_n(v, b.count, values[b.element].begin() + static_cast<std::ptrdiff_t>(b.first));
    }
  }
  DMat m = n.fixed;
  for (std::size_t e = 0; e < n.stack.size(); ++e)
    m = m * element_matrix(n.stack[e].kind, values[e].data());
  return m;
}

float AnimationModel::weight(std::size_t clip, std::size_t node, std::size_t target, double time,
                             float default_weight, bool left) const {
  float v[64];
  for (const auto& [c, bi] : bindings(clip, node)) {
    const Channel& ch = channels_[c];
    const Binding& b = ch.bindings[bi];
    {
      if (!b.weight || target < b.first || target >= b.first + b.count) continue;
      const Curve& curve = curves_[ch.curve];
      if (curve.dim <= 64) {
        curve.evaluate(time, left, v);
        return v[target - b.first];
      }
      std::vector<float> big(curve.dim);
      curve.evaluate(time, left, big.data());
      return big[target - b.first];
    }
  }
  return default_weight;
}

}  // namespace marrow::collada
