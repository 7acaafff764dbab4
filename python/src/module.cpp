// marrow's Python module (`import marrow`): bindings only, no logic of its own. Files load
// into an Asset; poses are NumPy arrays the C++ code writes into directly: local poses
// (joints, 10) float32 (translation xyz, rotation xyzw, scale xyz), model poses
// (joints, 4, 4) float32. Errors from marrow raise marrow.Error with marrow's message; wrong
// array shapes or dtypes raise ValueError or TypeError naming the argument.
#include <pybind11/functional.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <cmath>
#include <cstring>
#include <memory>
#include <optional>

#include "arrays.h"
#include "errors.h"
#include "handles.h"
#include "marrow/clip/binding.h"
#include "marrow/clip/sampling.h"
#include "marrow/io/asset.h"
#include "marrow/io/asset_info.h"
#include "marrow/io/retarget_asset.h"
#include "marrow/io/save.h"
#include "marrow/pose/additive.h"
#include "marrow/pose/blend.h"
#include "marrow/pose/force.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/pose/mask.h"
#include "marrow/render/output.h"
#include "marrow/render/scene.h"
#include "marrow/skin/autoskin.h"
#include "marrow/skin/morph.h"
#include "marrow/skin/skinning.h"
#include "marrow/version.h"

namespace py = pybind11;

namespace marrow::python {
namespace {

SkinningMethod parse_method(const std::string& method) {
  if (method == "linear") return SkinningMethod::kLinear;
  if (method == "dq") return SkinningMethod::kDualQuaternion;
  throw py::value_error("method: expected 'linear' or 'dq', got '" + method + "'");
}

py::array new_pose(std::size_t joints) {
  return py::array_t<float>({static_cast<py::ssize_t>(joints), py::ssize_t{10}});
}

py::array pose_or_new(const py::object& out, std::size_t joints) {
  if (out.is_none()) return new_pose(joints);
  return checked(out, "out", {static_cast<py::ssize_t>(joints), 10});
}

// A sampler: one clip of one asset and its cursor (forward playback is O(1) per track).
class Sampler {
 public:
  Sampler(AssetPtr asset, const py::object& clip)
      : asset_(std::move(asset)), clip_(clip_index(*asset_, clip)) {
    cursor_.bind(asset_->clips[clip_]);
  }
  py::array sample(float time, const std::string& wrap, const py::object& out) {
    if (!std::isfinite(time)) throw py::value_error("time: expected a finite number of seconds");
    const Clip& c = asset_->clips[clip_];
    const std::size_t n = asset_->skeleton.size();
    py::array result = pose_or_new(out, n);
    std::span<Transform> pose = pose_out(result, "out", n);
    const float t = wrap_time(time, c.duration(), parse_wrap(wrap));
    if (!marrow::sample(c, asset_->skeleton.rest_pose(), t, cursor_, pose))
      raise(asset_->source + ": cannot sample clip '" + c.name() + "'");
    return result;
  }
  // One pose per time of a 1-D array: (times, joints, 10), in one call.
  py::array sample_many(const py::array& times, const std::string& wrap) {
    py::array_t<float, py::array::c_style | py::array::forcecast> t = times;
    if (t.ndim() != 1) throw py::value_error("time: expected a number or a 1-D array of times");
    const Clip& c = asset_->clips[clip_];
    const std::size_t n = asset_->skeleton.size();
    const auto count = static_cast<std::size_t>(t.shape(0));
    const WrapMode mode = parse_wrap(wrap);
    for (std::size_t k = 0; k < count; ++k) {
      if (!std::isfinite(t.data()[k]))
        throw py::value_error("time[" + std::to_string(k) + "]: expected a finite number");
    }
    py::array_t<float> result(
        {static_cast<py::ssize_t>(count), static_cast<py::ssize_t>(n), py::ssize_t{10}});
    auto* poses = reinterpret_cast<Transform*>(result.mutable_data());
    {
      py::gil_scoped_release unlocked;
      for (std::size_t k = 0; k < count; ++k) {
        const float at = wrap_time(t.data()[k], c.duration(), mode);
        (void)marrow::sample(c, asset_->skeleton.rest_pose(), at, cursor_, {poses + k * n, n});
      }
    }
    return result;
  }
  std::size_t clip() const { return clip_; }
  const std::string& clip_name() const { return asset_->clips[clip_].name(); }

 private:
  AssetPtr asset_;
  std::size_t clip_;
  SamplingCursor cursor_;
};

struct Layer {
  py::object pose;
  float weight = 1;
  py::object mask;  // None or (joints,) float32
};

std::vector<BlendLayer> blend_layers(const std::vector<Layer>& layers, std::size_t joints,
                                     const char* kind) {
  std::vector<BlendLayer> out;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const std::string name = std::string(kind) + "[" + std::to_string(i) + "]";
    const Layer& l = layers[i];
    if (!std::isfinite(l.weight) || l.weight < 0) {
      throw py::value_error(name + ".weight: expected a finite weight >= 0, got " +
                            std::to_string(l.weight));
    }
    BlendLayer b;
    b.pose = pose_in(l.pose, (name + ".pose").c_str(), joints);
    b.weight = l.weight;
    if (!l.mask.is_none()) {
      py::array m = checked(l.mask, (name + ".mask").c_str(), {static_cast<py::ssize_t>(joints)});
      b.mask = {static_cast<const float*>(m.data()), joints};
      for (float w : b.mask) {
        if (!(w >= 0 && w <= 1)) throw py::value_error(name + ".mask: weights must be in [0, 1]");
      }
    }
    out.push_back(b);
  }
  return out;
}

// Mesh `mesh`'s share of a character's morph-weight array (None: no morphing, an empty vector).
std::vector<float> mesh_morph_weights(const Asset& asset, const SkinnedMesh& mesh,
                                      const py::object& weights) {
  if (weights.is_none() || mesh.morph_targets.empty()) return {};
  const MorphLayout layout = MorphLayout::build(asset.meshes);
  py::array all =
      checked(weights, "morph_weights", {static_cast<py::ssize_t>(layout.weight_count())});
  const std::span<const float> full(static_cast<const float*>(all.data()), layout.weight_count());
  const std::span<const float> mine = layout.weights_of(mesh, full);
  return {mine.begin(), mine.end()};
}

py::array to_numpy(std::vector<float> values) {
  py::array_t<float> a(static_cast<py::ssize_t>(values.size()));
  std::copy(values.begin(), values.end(), a.mutable_data());
  return a;
}

}  // namespace

std::size_t clip_index(const Asset& asset, const py::object& clip) {
  std::optional<std::size_t> index;
  if (py::isinstance<py::int_>(clip)) {
    const long i = clip.cast<long>();
    if (i >= 0 && static_cast<std::size_t>(i) < asset.clips.size()) index = i;
  } else if (py::isinstance<py::str>(clip)) {
    index = asset.find_clip(clip.cast<std::string>());
  } else {
    throw py::type_error("clip: expected a clip name or index");
  }
  if (!index) {
    std::string names;
    for (const Clip& c : asset.clips) names += (names.empty() ? "'" : ", '") + c.name() + "'";
    raise(asset.source + ": no clip " + std::string(py::repr(clip)) + " (the file has " +
          (names.empty() ? std::string("no clips") : names) + ")");
  }
  return *index;
}

}  // namespace marrow::python

PYBIND11_MODULE(_marrow, m) {
  using namespace marrow;
  using namespace marrow::python;
  m.doc() = "marrow: skeletal animation (load, sample, blend, skin, bind, convert, render)";
  m.attr("__version__") = std::string(kVersion);
  static py::exception<std::runtime_error> error(m, "Error", PyExc_RuntimeError);
  error_type() = error.ptr();

  py::class_<SkeletonRef>(m, "Skeleton", "Joints parent-before-child, names and the rest pose")
      .def(
          "__len__", [](const SkeletonRef& s) { return s.get().size(); }, "The joint count")
      .def("__repr__",
           [](const SkeletonRef& s) {
             return "<marrow.Skeleton " + std::to_string(s.get().size()) + " joints, root '" +
                    (s.get().empty() ? std::string() : s.get().name(0)) + "'>";
           })
      .def_property_readonly(
          "names",
          [](const SkeletonRef& s) {
            std::vector<std::string> names;
            for (std::size_t j = 0; j < s.get().size(); ++j) names.push_back(s.get().name(j));
            return names;
          },
          "Every joint's name, in joint order")
      .def_property_readonly(
          "parents",
          [](const SkeletonRef& s) {
            py::array_t<std::int32_t> p(static_cast<py::ssize_t>(s.get().size()));
            for (std::size_t j = 0; j < s.get().size(); ++j) {
              const JointIndex parent = s.get().parent(j);
              p.mutable_data()[j] = parent == kNoParent ? -1 : parent;
            }
            return p;
          },
          "Each joint's parent (int32), -1 for a root; parents come before children")
      .def_property_readonly(
          "rest_pose",
          [](py::object self) {
            const SkeletonRef& s = self.cast<const SkeletonRef&>();
            return rows_view(reinterpret_cast<const float*>(s.get().rest_pose().data()),
                             s.get().size(), 10, self);
          },
          "(joints, 10) float32, read-only: translation xyz, rotation xyzw, scale xyz")
      .def(
          "find",
          [](const SkeletonRef& s, const std::string& name) -> std::optional<int> {
            if (auto j = s.get().find(name)) return static_cast<int>(*j);
            return std::nullopt;
          },
          py::arg("name"), "The joint's index, or None");

  py::class_<ClipRef>(m, "Clip", "A clip: tracks of keys, shared by every sampler")
      .def("__repr__",
           [](const ClipRef& c) {
             return "<marrow.Clip " + std::string(py::repr(py::str(c.get().name()))) + ", " +
                    std::string(py::repr(py::float_(c.get().duration()))) + " s, " +
                    std::to_string(c.get().tracks().size()) + " tracks>";
           })
      .def_property_readonly(
          "name", [](const ClipRef& c) { return c.get().name(); }, "The clip's name")
      .def_property_readonly(
          "duration", [](const ClipRef& c) { return c.get().duration(); }, "Seconds")
      .def_property_readonly(
          "track_count", [](const ClipRef& c) { return c.get().tracks().size(); },
          "How many joint tracks the clip has")
      .def_property_readonly(
          "events",
          [](const ClipRef& c) {
            std::vector<std::pair<float, std::string>> events;
            for (const ClipEvent& e : c.get().events()) events.emplace_back(e.time, e.name);
            return events;
          },
          "The clip's events from the file, as (time, name) tuples");

  py::class_<SkinRef>(m, "Skin", "The joints a mesh is bound to and their inverse bind matrices")
      .def("__repr__",
           [](const SkinRef& s) {
             return "<marrow.Skin " + std::string(py::repr(py::str(s.get().name))) + ", " +
                    std::to_string(s.get().joints.size()) + " joints>";
           })
      .def_property_readonly(
          "name", [](const SkinRef& s) { return s.get().name; }, "The skin's name")
      .def_property_readonly(
          "joints",
          [](const SkinRef& s) {
            py::array_t<std::int32_t> a(static_cast<py::ssize_t>(s.get().joints.size()));
            for (std::size_t i = 0; i < s.get().joints.size(); ++i)
              a.mutable_data()[i] = s.get().joints[i];
            return a;
          },
          "The skeleton joint of each skin joint (int32), in the skin's order")
      .def_property_readonly(
          "inverse_bind_matrices",
          [](py::object self) {
            const SkinRef& s = self.cast<const SkinRef&>();
            return matrices_view(const_cast<Mat4*>(s.get().inverse_bind_matrices.data()),
                                 s.get().inverse_bind_matrices.size(), self, false);
          },
          "(joints, 4, 4) float32, read-only: each joint's inverse bind matrix");

  py::class_<MeshRef>(
      m, "Mesh",
      "A mesh as imported: bind-pose vertices, triangles, skin weights and morph targets. The "
      "arrays are read-only views of the asset's memory (no copy), valid while the mesh is.")
      .def("__repr__",
           [](const MeshRef& r) {
             const SkinnedMesh& mesh = r.get();
             return "<marrow.Mesh " + std::string(py::repr(py::str(mesh.name))) + ", " +
                    std::to_string(mesh.vertex_count()) + " vertices, " +
                    std::to_string(mesh.indices.size() / 3) + " triangles" +
                    (mesh.skin >= 0 ? ", skin " + std::to_string(mesh.skin) : ", rigid") +
                    (mesh.morph_targets.empty()
                         ? std::string()
                         : ", " + std::to_string(mesh.morph_targets.size()) + " morph targets") +
                    ">";
           })
      .def_property_readonly(
          "name", [](const MeshRef& r) { return r.get().name; }, "The mesh's name")
      .def_property_readonly(
          "tangents",
          [](py::object self) {
            const SkinnedMesh& mesh = self.cast<const MeshRef&>().get();
            return rows_view(mesh.tangents.empty() ? nullptr : mesh.tangents[0].data(),
                             mesh.tangents.size(), 4, self);
          },
          "(vertices, 4) float32: xyz and handedness w; empty when the file has none")
      .def_property_readonly(
          "colors",
          [](py::object self) {
            const SkinnedMesh& mesh = self.cast<const MeshRef&>().get();
            return rows_view(mesh.colors.empty() ? nullptr : mesh.colors[0].data(),
                             mesh.colors.size(), 4, self);
          },
          "(vertices, 4) float32 linear RGBA; empty when the file has none")
      .def_property_readonly(
          "influence_offsets",
          [](py::object self) {
            return vector_view(self.cast<const MeshRef&>().get().influence_offsets, self);
          },
          "(vertices + 1,) uint32: vertex v's influences are [offsets[v], offsets[v + 1]) of "
          "influence_joints and influence_weights (empty for a rigid mesh)")
      .def_property_readonly(
          "influence_joints",
          [](py::object self) {
            return vector_view(self.cast<const MeshRef&>().get().influence_joints, self);
          },
          "uint16 indices into the mesh's skin's joints")
      .def_property_readonly(
          "influence_weights",
          [](py::object self) {
            return vector_view(self.cast<const MeshRef&>().get().influence_weights, self);
          },
          "float32 weights, each vertex's summing to 1")
      .def(
          "dense_weights",
          [](const MeshRef& r) {
            const SkinnedMesh& mesh = r.get();
            const std::size_t v = mesh.vertex_count();
            const std::size_t k =
                mesh.skin >= 0 ? std::max<std::size_t>(1, mesh.max_influences()) : 0;
            py::array_t<std::uint16_t> joints({v, k});
            py::array_t<float> weights({v, k});
            std::fill_n(joints.mutable_data(), v * k, std::uint16_t{0});
            std::fill_n(weights.mutable_data(), v * k, 0.0f);
            for (std::size_t i = 0; k > 0 && i < v; ++i) {
              const std::uint32_t first = mesh.influence_offsets[i];
              const std::uint32_t count = mesh.influence_offsets[i + 1] - first;
              for (std::uint32_t c = 0; c < count && c < k; ++c) {
                joints.mutable_data()[i * k + c] = mesh.influence_joints[first + c];
                weights.mutable_data()[i * k + c] = mesh.influence_weights[first + c];
              }
            }
            return py::make_tuple(joints, weights);
          },
          "(joints (vertices, K) uint16, weights (vertices, K) float32), K the most influences "
          "of any vertex, padded with weight 0: a copy in the shape GPU skinning takes")
      .def_property_readonly(
          "morph_targets",
          [](py::object self) {
            const SkinnedMesh& mesh = self.cast<const MeshRef&>().get();
            py::list targets;
            for (std::size_t t = 0; t < mesh.morph_targets.size(); ++t) {
              const MorphTarget& target = mesh.morph_targets[t];
              py::dict d;
              d["name"] = target.name;
              d["vertices"] = vector_view(target.vertices, self);
              d["position_deltas"] =
                  rows_view(target.position_deltas.empty() ? nullptr : &target.position_deltas[0].x,
                            target.position_deltas.size(), 3, self);
              d["normal_deltas"] =
                  rows_view(target.normal_deltas.empty() ? nullptr : &target.normal_deltas[0].x,
                            target.normal_deltas.size(), 3, self);
              d["tangent_deltas"] =
                  rows_view(target.tangent_deltas.empty() ? nullptr : &target.tangent_deltas[0].x,
                            target.tangent_deltas.size(), 3, self);
              d["default_weight"] =
                  t < mesh.default_morph_weights.size() ? mesh.default_morph_weights[t] : 0.0f;
              targets.append(d);
            }
            return targets;
          },
          "One dict per target: name, vertices (uint32, the vertices it moves), position_deltas, "
          "normal_deltas and tangent_deltas ((moved vertices, 3) float32; empty when absent), "
          "default_weight")
      .def_property_readonly(
          "skin", [](const MeshRef& r) { return r.get().skin; },
          "The index of the skin the mesh is bound to (Asset.skins), or -1")
      .def_property_readonly(
          "material", [](const MeshRef& r) { return r.get().material; },
          "The index of the mesh's material, or -1")
      .def_property_readonly(
          "vertex_count", [](const MeshRef& r) { return r.get().vertex_count(); },
          "How many vertices the mesh has")
      .def_property_readonly(
          "positions",
          [](py::object self) {
            const SkinnedMesh& mesh = self.cast<const MeshRef&>().get();
            return rows_view(&mesh.positions.data()->x, mesh.positions.size(), 3, self);
          },
          "(vertices, 3) float32, read-only view")
      .def_property_readonly(
          "normals",
          [](py::object self) {
            const SkinnedMesh& mesh = self.cast<const MeshRef&>().get();
            return rows_view(&mesh.normals.data()->x, mesh.normals.size(), 3, self);
          },
          "(vertices, 3) float32, read-only view")
      .def_property_readonly(
          "uvs",
          [](py::object self) {
            const SkinnedMesh& mesh = self.cast<const MeshRef&>().get();
            return rows_view(mesh.uvs.empty() ? nullptr : mesh.uvs[0].data(), mesh.uvs.size(), 2,
                             self);
          },
          "(vertices, 2) float32, read-only view of the first UV set")
      .def_property_readonly(
          "triangles",
          [](py::object self) {
            const SkinnedMesh& mesh = self.cast<const MeshRef&>().get();
            py::array a(py::dtype::of<std::uint32_t>(),
                        {static_cast<py::ssize_t>(mesh.indices.size() / 3), py::ssize_t{3}},
                        {py::ssize_t{12}, py::ssize_t{4}}, mesh.indices.data(), self);
            py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
            return a;
          },
          "(triangles, 3) uint32, read-only view of vertex indices");

  py::class_<Asset, std::shared_ptr<Asset>>(m, "Asset",
                                            "What a file holds: skeleton, clips, skins, meshes")
      .def("__repr__",
           [](const Asset& a) {
             return "<marrow.Asset " + std::string(py::repr(py::str(a.source))) + ": " +
                    std::to_string(a.skeleton.size()) + " nodes, " +
                    std::to_string(a.clips.size()) + " clips, " + std::to_string(a.meshes.size()) +
                    " meshes>";
           })
      .def(
          "info",
          [](const Asset& a, bool clips_only) {
            const std::string text = asset_info_json(
                a, clips_only ? AssetInfoParts::kClipsOnly : AssetInfoParts::kAll, -1);
            return py::module_::import("json").attr("loads")(text);
          },
          py::arg("clips_only") = false,
          "What `marrow info --format json` prints, as a dict (docs/info_json.md)")
      .def_property_readonly(
          "source", [](const Asset& a) { return a.source; }, "The file the asset was read from")
      .def_property_readonly(
          "warnings", [](const Asset& a) { return a.warnings; },
          "What the reader noticed (the notes every command prints)")
      .def_property_readonly(
          "source_index",
          [](const Asset& a) {
            py::array_t<std::int64_t> s(static_cast<py::ssize_t>(a.source_index.size()));
            std::copy(a.source_index.begin(), a.source_index.end(), s.mutable_data());
            return s;
          },
          "Per joint: its node index in the source file (-1 for a joint the importer made)")
      .def_property_readonly(
          "skeleton", [](std::shared_ptr<Asset> a) { return SkeletonRef{std::move(a)}; },
          "The skeleton: every node of the file, parent before child")
      .def_property_readonly(
          "clips",
          [](std::shared_ptr<Asset> a) {
            std::vector<ClipRef> c;
            for (std::size_t i = 0; i < a->clips.size(); ++i) c.push_back({a, i});
            return c;
          },
          "The clips, in file order")
      .def_property_readonly(
          "skins",
          [](std::shared_ptr<Asset> a) {
            std::vector<SkinRef> s;
            for (std::size_t i = 0; i < a->skins.size(); ++i) s.push_back({a, i});
            return s;
          },
          "The skins, in file order")
      .def_property_readonly(
          "meshes",
          [](std::shared_ptr<Asset> a) {
            std::vector<MeshRef> s;
            for (std::size_t i = 0; i < a->meshes.size(); ++i) s.push_back({a, i});
            return s;
          },
          "The meshes, in file order")
      .def(
          "find_clip",
          [](const Asset& a, const std::string& name) -> std::optional<std::size_t> {
            return a.find_clip(name);
          },
          py::arg("name"), "A clip's index by name (or index written as a number), or None")
      .def(
          "save",
          [](const Asset& a, const std::filesystem::path& path) {
            std::vector<std::string> notes;
            if (Status s = save_asset(a, path.string(), &notes); !s) raise(s.error().message);
            return notes;
          },
          py::arg("path"), "Writes .glb, .gltf or .marrow by the extension; returns the notes");

  m.def(
      "load",
      [](const std::filesystem::path& path) {
        // Reading a large file takes a while: other Python threads run meanwhile.
        Result<Asset> a = [&] {
          py::gil_scoped_release unlocked;
          return load_asset(path.string());
        }();
        if (!a) raise(a.error().message);
        return std::make_shared<Asset>(std::move(a).value());
      },
      py::arg("path"),
      "Reads any file marrow reads (.gltf .glb .x .bvh .fbx .dae .md5mesh .smd .obj .marrow)");

  m.def(
      "compile",
      [](std::shared_ptr<Asset> asset, const std::vector<std::string>& clips, float error_mm,
         float distance_cm, bool pack) {
        if (!(error_mm > 0) || !std::isfinite(error_mm))
          throw py::value_error("error_mm: expected a bound above 0 millimetres");
        if (!(distance_cm >= 0) || !std::isfinite(distance_cm))
          throw py::value_error("distance_cm: expected a distance of 0 centimetres or more");
        const std::vector<std::size_t> chosen = value_or_raise(asset->require_clips(clips));
        // Relative to a character 1.8 m tall, as `marrow compile` takes them.
        CompileOptions options;
        options.error = error_mm / 1800.0f;
        options.distance = distance_cm * 10.0f / 1800.0f;
        options.pack = pack;
        std::vector<std::optional<CompiledClip>> made(chosen.size());
        std::optional<Error> failed;
        {
          py::gil_scoped_release unlocked;  // seconds per long clip: other threads run
          for (std::size_t i = 0; i < chosen.size() && !failed; ++i) {
            Result<CompiledClip> c =
                CompiledClip::compile(asset->clips[chosen[i]], asset->skeleton, options);
            if (c)
              made[i] = std::move(c).value();
            else
              failed = c.error();
          }
        }
        if (failed) raise(asset->source + ": " + failed->message);
        asset->compiled_clips.resize(asset->clips.size());
        py::list reports;
        for (std::size_t i = 0; i < chosen.size(); ++i) {
          const CompiledClipReport& r = made[i]->report();
          py::dict d;
          d["clip"] = asset->clips[chosen[i]].name();
          const std::size_t raw = raw_sample_bytes(asset->clips[chosen[i]], asset->skeleton.size());
          d["raw_bytes"] = raw;
          d["exact_bytes"] = r.exact_bytes;
          d["compiled_bytes"] = made[i]->size_bytes();
          d["raw_ratio"] = static_cast<double>(raw) / static_cast<double>(made[i]->size_bytes());
          d["ratio"] =
              static_cast<double>(r.exact_bytes) / static_cast<double>(made[i]->size_bytes());
          d["error_bound"] = r.bound;
          d["max_error"] = r.max_error;
          d["p99_error"] = r.p99_error;
          d["max_error_time"] = r.max_error_time;
          d["max_error_joint"] = asset->skeleton.name(r.max_error_joint);
          d["measured_times"] = r.measured_times;
          d["distance"] = r.distance;
          d["extent"] = r.extent;
          asset->compiled_clips[chosen[i]] = std::move(made[i]);
          reports.append(d);
        }
        return reports;
      },
      py::arg("asset"), py::arg("clips") = std::vector<std::string>(), py::arg("error_mm") = 0.1f,
      py::arg("distance_cm") = 10.0f, py::arg("pack") = true,
      "Compiles the clips named (all by default) into the runtime's compact form under the error "
      "bound (mm and cm on the character scaled to 1.8 m, as `marrow compile`), keeps them in "
      "the asset (Asset.save to a .marrow writes them) and returns one report per clip: sizes, "
      "ratio, and the error the compiler measured against the exact clip (model units). "
      "pack=False keeps every group of 8 joints at 8 or 16 bits (`--no-pack`)");

  m.def(
      "check",
      [](const SkeletonRef& skeleton, std::shared_ptr<Asset> clips, const py::object& clip,
         bool strict) {
        std::vector<std::size_t> chosen;
        if (clip.is_none()) {
          for (std::size_t c = 0; c < clips->clips.size(); ++c) chosen.push_back(c);
        } else {
          chosen.push_back(clip_index(*clips, clip));
        }
        if (chosen.empty()) raise(clips->source + ": has no clips to check");
        py::list reports;
        for (std::size_t c : chosen) {
          const ClipBindingReport r = check_binding(clips->clips[c], skeleton.get());
          reports.append(py::dict(
              py::arg("clip") = clips->clips[c].name(), py::arg("bound_tracks") = r.bound_tracks,
              py::arg("total_tracks") = r.total_tracks,
              py::arg("missing_joints") = r.missing_joints,
              py::arg("unanimated_joints") = r.unanimated_joints,
              py::arg("compatible") = r.complete() && (!strict || r.unanimated_joints.empty())));
        }
        return reports;
      },
      py::arg("skeleton"), py::arg("clips"), py::arg("clip") = py::none(),
      py::arg("strict") = false,
      "Whether the clips of `clips` (an Asset) fit `skeleton` by joint name, as `marrow check`: "
      "one dict per clip (clip, bound_tracks, total_tracks, missing_joints, unanimated_joints, "
      "compatible; `strict` also requires every joint animated)");

  m.def(
      "retarget",
      [](std::shared_ptr<Asset> source, std::shared_ptr<Asset> target,
         const std::vector<std::string>& clips, const py::object& map,
         const std::string& source_pose, const std::string& target_pose, const std::string& method,
         const py::object& root_scale, bool keep_target_clips) {
        AssetRetargetOptions options;
        options.clips = clips;
        options.source_pose = source_pose;
        options.target_pose = target_pose;
        options.keep_target_clips = keep_target_clips;
        if (!map.is_none()) {
          const JsonSource source = json_source(map);
          options.map = value_or_raise(source.path.empty() ? parse_retarget_map(source.text, "map")
                                                           : read_retarget_map(source.path));
          options.map_where = source.path;
        }
        if (method == "copy-local")
          options.retarget.method = RetargetMethod::kCopyLocal;
        else if (method != "rest-relative")
          throw py::value_error("method: expected 'rest-relative' or 'copy-local'");
        if (py::isinstance<py::str>(root_scale)) {
          const std::string how = root_scale.cast<std::string>();
          if (how == "leg-length")
            options.retarget.root_scale = RootScale::kLegLength;
          else if (how != "hip-height")
            throw py::value_error("root_scale: 'hip-height', 'leg-length' or a factor above 0");
        } else {
          const float factor = root_scale.cast<float>();
          if (!(factor > 0) || !std::isfinite(factor))
            throw py::value_error("root_scale: a factor must be a finite number above 0");
          options.retarget.root_scale_factor = factor;
        }
        Result<AssetRetargetResult> done = [&] {
          py::gil_scoped_release unlocked;
          return retarget_asset(*source, *target, options);
        }();
        if (!done) raise(done.error().message);
        return std::make_shared<Asset>(std::move(done->asset));
      },
      py::arg("source"), py::arg("target"), py::arg("clips") = std::vector<std::string>(),
      py::arg("map") = py::none(), py::arg("source_pose") = "auto", py::arg("target_pose") = "auto",
      py::arg("method") = "rest-relative", py::arg("root_scale") = py::str("hip-height"),
      py::arg("keep_target_clips") = false,
      "Plays `source`'s clips (all, or those named) on `target`'s skeleton and returns the "
      "target asset with them, as `marrow retarget`: humanoid parts matched by name and shape "
      "(or a map: a dict of the JSON map's members, or its file), rotations transferred "
      "relative to each side's reference pose ('auto', 'rest' or a clip), the root scaled by "
      "hip height ('leg-length' or a factor instead)");

  m.def(
      "convert",
      [](const std::filesystem::path& input, const std::filesystem::path& output) {
        Result<Asset> a = Error{};
        std::vector<std::string> notes;
        Status saved;
        {
          py::gil_scoped_release unlocked;
          a = load_asset(input.string());
          if (a) saved = save_asset(*a, output.string(), &notes);
        }
        if (!a) raise(a.error().message);
        if (!saved) raise(saved.error().message);
        return notes;
      },
      py::arg("input"), py::arg("output"),
      "Reads `input` and writes `output` (.glb, .gltf or .marrow); returns the notes");

  py::class_<Sampler>(m, "Sampler", "Samples one clip of an asset, keeping a cursor between calls")
      .def("__repr__",
           [](const Sampler& s) {
             return "<marrow.Sampler of " + std::string(py::repr(py::str(s.clip_name()))) + ">";
           })
      .def(py::init([](std::shared_ptr<Asset> asset, const py::object& clip) {
             return Sampler(std::move(asset), clip);
           }),
           py::arg("asset"), py::arg("clip"), "A sampler of `clip` (a name or an index) of `asset`")
      .def("sample", &Sampler::sample, py::arg("time"), py::arg("wrap") = "clamp",
           py::arg("out") = py::none(),
           "The local pose at `time` seconds: (joints, 10) float32 (written into `out` if given)")
      .def("sample", &Sampler::sample_many, py::arg("time"), py::arg("wrap") = "clamp",
           "The local poses at each of an array of times: (times, joints, 10) float32")
      .def_property_readonly("clip", &Sampler::clip, "The name of the clip sampled");

  m.def(
      "sample",
      [](std::shared_ptr<Asset> asset, const py::object& clip, const py::object& time,
         const std::string& wrap, const py::object& out) -> py::array {
        Sampler sampler(std::move(asset), clip);
        if (py::isinstance<py::array>(time) || py::isinstance<py::list>(time) ||
            py::isinstance<py::tuple>(time)) {
          if (!out.is_none()) throw py::value_error("out: only for one time");
          return sampler.sample_many(py::array::ensure(time), wrap);
        }
        return sampler.sample(time.cast<float>(), wrap, out);
      },
      py::arg("asset"), py::arg("clip"), py::arg("time"), py::arg("wrap") = "clamp",
      py::arg("out") = py::none(),
      "One clip's local pose at `time`: (joints, 10) float32; at each of an array of times: "
      "(times, joints, 10)");

  m.def(
      "local_to_model",
      [](const SkeletonRef& skeleton, const py::object& local, const py::object& out) {
        const std::size_t n = skeleton.get().size();
        if (py::isinstance<py::array>(local) &&
            py::reinterpret_borrow<py::array>(local).ndim() == 3) {
          // (times, joints, 10) -> (times, joints, 4, 4), every frame in one call.
          if (!out.is_none()) throw py::value_error("out: only for one pose");
          py::array_t<float, py::array::c_style | py::array::forcecast> poses = local;
          if (poses.shape(1) != static_cast<py::ssize_t>(n) || poses.shape(2) != 10)
            throw py::value_error("local: expected shape (times, " + std::to_string(n) + ", 10)");
          const auto frames = static_cast<std::size_t>(poses.shape(0));
          py::array_t<float> storage({static_cast<py::ssize_t>(frames * n * 16)});
          Mat4* data = reinterpret_cast<Mat4*>(storage.mutable_data());
          const auto* in = reinterpret_cast<const Transform*>(poses.data());
          LocalToModelJob job{.skeleton = &skeleton.get(), .local = {in, n}, .model = {data, n}};
          // Every frame has the same shapes, which is all the job checks: the first speaks for all.
          if (frames > 0) run_or_raise(job, "local_to_model");
          {
            py::gil_scoped_release unlocked;
            for (std::size_t f = 1; f < frames; ++f) {
              job.local = {in + f * n, n};
              job.model = {data + f * n, n};
              (void)job.run();
            }
          }
          return py::array(
              py::dtype::of<float>(),
              {static_cast<py::ssize_t>(frames), static_cast<py::ssize_t>(n), py::ssize_t{4},
               py::ssize_t{4}},
              {static_cast<py::ssize_t>(n * sizeof(Mat4)), static_cast<py::ssize_t>(sizeof(Mat4)),
               py::ssize_t{4}, py::ssize_t{16}},
              data->m.data(), storage);
        }
        std::span<const Transform> pose = pose_in(local, "local", n);
        py::array result;
        std::span<Mat4> model;
        if (out.is_none()) {
          auto made = new_matrices(n);
          result = made.first;
          model = made.second;
        } else {
          result = py::reinterpret_borrow<py::array>(out);
          MatricesIn in = matrices_in(out, "out", n);
          if (in.view.data() != static_cast<const Mat4*>(result.data()) || !result.writeable())
            throw py::value_error("out: expected a writeable array made by local_to_model");
          model = {const_cast<Mat4*>(in.view.data()), n};
        }
        LocalToModelJob job;
        job.skeleton = &skeleton.get();
        job.local = pose;
        job.model = model;
        run_or_raise(job, "local_to_model");
        return result;
      },
      py::arg("skeleton"), py::arg("local"), py::arg("out") = py::none(),
      "Model matrices (joints, 4, 4) float32, [joint, row, column], from a local pose; from "
      "(times, joints, 10) poses, (times, joints, 4, 4)");

  py::class_<Layer>(m, "Layer", "A pose in a blend: weight and an optional per-joint mask")
      .def("__repr__",
           [](const Layer& l) {
             return "<marrow.Layer weight " + std::string(py::repr(py::float_(l.weight))) +
                    (l.mask.is_none() ? std::string() : ", masked") + ">";
           })
      .def(py::init<py::object, float, py::object>(), py::arg("pose"), py::arg("weight") = 1.0f,
           py::arg("mask") = py::none(),
           "A pose (joints, 10) in a blend, with its weight and an optional per-joint mask "
           "(joints,)")
      .def_readwrite("pose", &Layer::pose, "The local pose, (joints, 10) float32")
      .def_readwrite("weight", &Layer::weight, "The layer's weight")
      .def_readwrite("mask", &Layer::mask, "Per-joint weights (joints,) or None");

  m.def(
      "blend",
      [](const SkeletonRef& skeleton, const std::vector<Layer>& layers,
         const std::vector<Layer>& overrides, const std::vector<Layer>& additives, float threshold,
         const py::object& out) {
        const std::size_t n = skeleton.get().size();
        const std::vector<BlendLayer> normal = blend_layers(layers, n, "layers");
        const std::vector<BlendLayer> over = blend_layers(overrides, n, "overrides");
        const std::vector<BlendLayer> add = blend_layers(additives, n, "additives");
        if (!(threshold >= kMinBlendThreshold) || !std::isfinite(threshold))
          throw py::value_error("threshold: expected a finite value >= 1e-6");
        if (normal.size() + over.size() + add.size() > kMaxBlendLayers)
          throw py::value_error("at most 64 layers of each kind");
        py::array result = pose_or_new(out, n);
        BlendJob job;
        job.rest_pose = skeleton.get().rest_pose();
        job.layers = normal;
        job.overrides = over;
        job.additives = add;
        job.threshold = threshold;
        job.output = pose_out(result, "out", n);
        run_or_raise(job, "blend");
        return result;
      },
      py::arg("skeleton"), py::arg("layers") = std::vector<Layer>{},
      py::arg("overrides") = std::vector<Layer>{}, py::arg("additives") = std::vector<Layer>{},
      py::arg("threshold") = kDefaultBlendThreshold, py::arg("out") = py::none(),
      "Blends local poses: normal layers (weighted average, rest pose where the weight is "
      "below `threshold`), then override layers, then additive deltas (make_additive)");

  m.def(
      "make_additive",
      [](const SkeletonRef& skeleton, const py::object& reference, const py::object& pose) {
        const std::size_t n = skeleton.get().size();
        py::array result = new_pose(n);
        // pose_in has checked both shapes, which is all make_additive_pose refuses.
        (void)make_additive_pose(pose_in(reference, "reference", n), pose_in(pose, "pose", n),
                                 pose_out(result, "out", n));
        return result;
      },
      py::arg("skeleton"), py::arg("reference"), py::arg("pose"),
      "The delta reference^-1 * pose per joint, for an additive layer");

  m.def(
      "force",
      [](const SkeletonRef& skeleton, py::array pose, const std::vector<py::tuple>& forces) {
        const std::size_t n = skeleton.get().size();
        std::span<Transform> target = pose_out(pose, "pose", n);
        std::vector<ForcedJoint> forced;
        for (std::size_t i = 0; i < forces.size(); ++i) {
          const std::string name = "forces[" + std::to_string(i) + "]";
          const py::tuple& f = forces[i];
          if (f.size() < 2 || f.size() > 4)
            throw py::value_error(name + ": expected (joint, transform[10], space, weight)");
          ForcedJoint fj;
          const long joint = f[0].cast<long>();
          if (joint < 0 || static_cast<std::size_t>(joint) >= n)
            throw py::value_error(name + ": joint " + std::to_string(joint) + " is out of range");
          fj.joint = static_cast<JointIndex>(joint);
          py::array t = checked(f[1], (name + ".transform").c_str(), {10});
          std::memcpy(&fj.transform, t.data(), sizeof(Transform));
          const std::string space = f.size() > 2 ? f[2].cast<std::string>() : "local";
          if (space != "local" && space != "model")
            throw py::value_error(name + ".space: expected 'local' or 'model'");
          fj.space = space == "model" ? ForceSpace::kModel : ForceSpace::kLocal;
          fj.weight = f.size() > 3 ? f[3].cast<float>() : 1.0f;
          if (!std::isfinite(fj.weight)) throw py::value_error(name + ".weight is not finite");
          forced.push_back(fj);
        }
        ForceJob job;
        job.skeleton = &skeleton.get();
        job.forces = forced;
        job.pose = target;
        run_or_raise(job, "force");
        return pose;
      },
      py::arg("skeleton"), py::arg("pose"), py::arg("forces"),
      "Replaces joints of `pose` in place: each force is (joint, transform (10,), 'local' or "
      "'model', weight)");

  bind_ik(m);

  m.def(
      "mask_from_subtree",
      [](const SkeletonRef& s, const std::string& root) {
        return to_numpy(value_or_raise(mask_from_subtree(s.get(), root)));
      },
      py::arg("skeleton"), py::arg("root"), "1 on `root` and its descendants, 0 elsewhere");
  m.def(
      "mask_from_names",
      [](const SkeletonRef& s, const std::vector<std::string>& names, float weight) {
        std::vector<std::string_view> views(names.begin(), names.end());
        return to_numpy(value_or_raise(mask_from_names(s.get(), views, weight)));
      },
      py::arg("skeleton"), py::arg("names"), py::arg("weight") = 1.0f,
      "Per-joint weights: `weight` for the joints named, 0 elsewhere");
  m.def(
      "mask_inverse",
      [](const py::object& mask) {
        py::array m = checked(mask, "mask", {-1});
        return to_numpy(mask_inverse(
            {static_cast<const float*>(m.data()), static_cast<std::size_t>(m.size())}));
      },
      py::arg("mask"), "1 - mask, per joint");

  m.def(
      "skin",
      [](std::shared_ptr<Asset> asset, std::size_t mesh, const py::object& model,
         const std::string& method, const py::object& morph_weights) {
        if (mesh >= asset->meshes.size())
          throw py::index_error("mesh " + std::to_string(mesh) + " of " +
                                std::to_string(asset->meshes.size()));
        const SkinnedMesh& sm = asset->meshes[mesh];
        MatricesIn in = matrices_in(model, "model", asset->skeleton.size());
        const SkinningMethod how = parse_method(method);
        const std::vector<float> weights = mesh_morph_weights(*asset, sm, morph_weights);
        py::array_t<float> out({static_cast<py::ssize_t>(sm.vertex_count()), py::ssize_t{3}});
        std::span<Vec3> positions{reinterpret_cast<Vec3*>(out.mutable_data()), sm.vertex_count()};
        if (sm.skin < 0) {
          const Mat4& place = sm.node < in.view.size() ? in.view[sm.node] : Mat4::identity();
          std::span<const Vec3> bind = sm.positions;
          MorphedVertices morphed;
          if (!weights.empty()) {
            const MorphMesh morph_mesh = value_or_raise(MorphMesh::build(sm));
            morphed = MorphedVertices::create(morph_mesh);
            run_or_raise(MorphJob{&morph_mesh, weights, &morphed}, "skin");
            bind = std::span<const Vec3>(morphed.positions).first(sm.vertex_count());
          }
          for (std::size_t v = 0; v < sm.vertex_count(); ++v)
            positions[v] = transform_point(place, bind[v]);
          return out;
        }
        const Skin& s = asset->skins[static_cast<std::size_t>(sm.skin)];
        SkinningMesh prepared = value_or_raise(
            SkinningMesh::build(sm, s.joints.size(), 0, UnweightedVertices::kKeepBindPosition));
        std::vector<Mat4> palette(s.joints.size());
        if (!compute_skinning_palette(s, in.view, palette))
          raise("skin: the skin names a joint the model matrices do not hold");
        const SkinningOutput output{positions, {}, {}};
        if (weights.empty()) {
          run_or_raise(SkinningJob{&prepared, how, palette, {}, nullptr, output}, "skin");
          return out;
        }
        // Morph targets first, in the skinning mesh's vertex order, then skinning over them.
        const MorphMesh morph_mesh = value_or_raise(MorphMesh::build(sm, &prepared));
        MorphedVertices morphed = MorphedVertices::create(morph_mesh);
        run_or_raise(MorphJob{&morph_mesh, weights, &morphed}, "skin");
        run_or_raise(SkinningJob{&prepared, how, palette, {}, &morphed, output}, "skin");
        return out;
      },
      py::arg("asset"), py::arg("mesh"), py::arg("model"), py::arg("method") = "linear",
      py::arg("morph_weights") = py::none(),
      "Mesh `mesh` deformed by the model pose (joints, 4, 4): (vertices, 3) float32. "
      "`morph_weights`, the character's weight array ((slots,) float32, as "
      "Animator.evaluate_morph_weights gives it), mixes the morph targets in first.");

  m.def(
      "automatic_weights",
      [](const py::object& positions, const py::object& triangles,
         std::shared_ptr<Asset> skeleton_asset, const std::string& method,
         std::size_t max_influences) {
        py::array p = checked(positions, "positions", {-1, 3});
        if (!py::isinstance<py::array_t<std::uint32_t>>(triangles) ||
            py::reinterpret_borrow<py::array>(triangles).ndim() != 2 ||
            py::reinterpret_borrow<py::array>(triangles).shape(1) != 3)
          throw py::type_error("triangles: expected a uint32 array of shape (any, 3)");
        py::array_t<std::uint32_t, py::array::c_style> t =
            py::reinterpret_borrow<py::array>(triangles);
        const std::size_t vertex_count = static_cast<std::size_t>(p.shape(0));
        std::span<const Vec3> verts{static_cast<const Vec3*>(p.data()), vertex_count};
        std::span<const std::uint32_t> indices{t.data(), static_cast<std::size_t>(t.size())};
        for (std::uint32_t i : indices) {
          if (i >= vertex_count) throw py::value_error("triangles: an index is out of range");
        }
        autoskin::Options options;
        if (method == "heat")
          options.method = autoskin::Method::kHeat;
        else if (method == "proximity")
          options.method = autoskin::Method::kProximity;
        else
          throw py::value_error("method: expected 'heat' or 'proximity'");
        options.max_influences = max_influences;
        const Skeleton& skeleton = skeleton_asset->skeleton;
        autoskin::Rig rig =
            value_or_raise(skeleton_asset->skins.empty()
                               ? autoskin::rig_from_rest_pose(skeleton)
                               : autoskin::rig_from_skin(skeleton, skeleton_asset->skins[0]));
        const autoskin::MeshPart part{verts, indices, "mesh"};
        autoskin::Binding binding;
        {
          py::gil_scoped_release release;
          Result<autoskin::Binding> b = autoskin::bind_mesh({&part, 1}, rig, options);
          py::gil_scoped_acquire acquire;
          binding = value_or_raise(std::move(b));
        }
        // Dense (vertices, bones) weights, bones in the order of `joints`.
        const autoskin::PartWeights& w = binding.parts[0];
        const std::size_t bones = binding.skin.joints.size();
        py::array_t<float> dense(
            {static_cast<py::ssize_t>(vertex_count), static_cast<py::ssize_t>(bones)});
        std::fill(dense.mutable_data(), dense.mutable_data() + dense.size(), 0.0f);
        for (std::size_t v = 0; v + 1 < w.offsets.size(); ++v) {
          for (std::uint32_t k = w.offsets[v]; k < w.offsets[v + 1]; ++k)
            dense.mutable_data()[v * bones + w.joints[k]] = w.weights[k];
        }
        py::array_t<std::int32_t> joints(static_cast<py::ssize_t>(bones));
        for (std::size_t b = 0; b < bones; ++b) joints.mutable_data()[b] = binding.skin.joints[b];
        return py::make_tuple(joints, dense);
      },
      py::arg("positions"), py::arg("triangles"), py::arg("skeleton"), py::arg("method") = "heat",
      py::arg("max_influences") = 4,
      "Binds a mesh ((vertices, 3) float32, (triangles, 3) uint32) to `skeleton`'s bones "
      "(its first skin, or every joint): returns (bone joints, (vertices, bones) weights)");

  m.def(
      "render",
      [](std::shared_ptr<Asset> asset, const std::filesystem::path& out_path,
         const py::object& poses, std::pair<int, int> size, double fps, const std::string& camera,
         bool ground, bool textures, bool skeleton, const py::object& morph_weights) {
        const std::string out = out_path.string();
        const std::size_t n = asset->skeleton.size();
        if (!py::isinstance<py::array>(poses))
          throw py::type_error("poses: expected a float32 array (frames, joints, 4, 4)");
        py::array all = py::reinterpret_borrow<py::array>(poses);
        if (all.ndim() == 3) all = all.attr("reshape")(1, all.shape(0), 4, 4);
        if (all.ndim() != 4 || all.shape(1) != static_cast<py::ssize_t>(n) || all.shape(2) != 4 ||
            all.shape(3) != 4)
          throw py::value_error("poses: expected shape (frames, " + std::to_string(n) +
                                ", 4, 4) or (" + std::to_string(n) + ", 4, 4)");
        const std::size_t frames = static_cast<std::size_t>(all.shape(0));
        if (frames == 0) throw py::value_error("poses: no frame");
        if (size.first < 8 || size.second < 8 || size.first > 8192 || size.second > 8192)
          throw py::value_error("size: each side from 8 to 8192 pixels");
        if (!(fps > 0 && fps <= 120)) throw py::value_error("fps: above 0 and at most 120");
        const auto preset = render::parse_camera_preset(camera);
        if (!preset)
          throw py::value_error(
              "camera: expected one of auto, front, side, back, top, three-quarter");
        const render::OutputFormat format = value_or_raise(render::output_format_of(out));
        if (format == render::OutputFormat::kPng && frames != 1)
          throw py::value_error("a PNG holds one frame: give one pose");
        std::vector<MatricesIn> model;
        for (std::size_t f = 0; f < frames; ++f)
          model.push_back(matrices_in(all[py::int_(f)], "poses", n));
        // The morph weights: none, one array for every frame, or one row per frame.
        const std::size_t slots = MorphLayout::build(asset->meshes).weight_count();
        py::array_t<float, py::array::c_style | py::array::forcecast> weights;
        if (!morph_weights.is_none()) {
          weights = morph_weights;
          const bool one =
              weights.ndim() == 1 && weights.shape(0) == static_cast<py::ssize_t>(slots);
          const bool each = weights.ndim() == 2 &&
                            weights.shape(0) == static_cast<py::ssize_t>(frames) &&
                            weights.shape(1) == static_cast<py::ssize_t>(slots);
          if (!one && !each)
            throw py::value_error("morph_weights: expected shape (" + std::to_string(slots) +
                                  ",) or (" + std::to_string(frames) + ", " +
                                  std::to_string(slots) + ")");
        }
        const auto weights_of = [&](std::size_t f) -> std::span<const float> {
          if (morph_weights.is_none()) return {};
          return {weights.data() + (weights.ndim() == 2 ? f * slots : 0), slots};
        };
        render::SceneStyle style;
        style.ground = ground;
        style.textures = textures;
        style.skeleton = skeleton;
        render::SceneRenderer scene = value_or_raise(render::SceneRenderer::create(*asset, style));
        // Framed over every frame, as `marrow render` does.
        std::vector<Vec3> extremes;
        for (std::size_t f = 0; f < frames; ++f) {
          scene.set_pose(model[f].view, weights_of(f));
          scene.extreme_points(extremes);
        }
        if (extremes.empty()) raise(asset->source + ": nothing to draw");
        const render::Orientation orientation =
            render::guess_orientation(asset->skeleton, model[0].view);
        scene.place_ground(extremes, orientation);
        const render::Camera cam = render::frame_points(
            extremes, *preset, static_cast<float>(size.first) / size.second, orientation);
        auto writer = value_or_raise(render::FrameWriter::open(out, size.first, size.second, fps));
        render::Rasterizer rasterizer(size.first, size.second);
        for (std::size_t f = 0; f < frames; ++f) {
          scene.set_pose(model[f].view, weights_of(f));
          scene.draw(rasterizer, cam);
          if (Status s = writer->add(rasterizer.image()); !s) raise(s.error().message);
        }
        if (Status s = writer->finish(); !s) raise(s.error().message);
        return scene.notes();
      },
      py::arg("asset"), py::arg("out"), py::arg("poses"), py::arg("size") = std::pair{400, 400},
      py::arg("fps") = 25.0, py::arg("camera") = "auto", py::arg("ground") = true,
      py::arg("textures") = true, py::arg("skeleton") = false,
      py::arg("morph_weights") = py::none(),
      "Draws model poses ((frames, joints, 4, 4), or one (joints, 4, 4) for a PNG) into a PNG, "
      "GIF or MP4, with morph weights ((slots,) for every frame or (frames, slots)) when given; "
      "returns the renderer's notes");
  bind_control(m);
  bind_motion(m);
  add_text_signatures(m);
}
