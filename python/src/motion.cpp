// Motion matching in Python (docs/python.md, "Motion matching"): a MotionDatabase built from
// assets' clips, its search, and run_motion_course. Bindings only: every rule is the C++ one
// (docs/motion_matching.md).
#include <pybind11/numpy.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <vector>

#include "arrays.h"
#include "errors.h"
#include "marrow/control/motion_course.h"
#include "marrow/io/asset.h"
#include "marrow/io/motion_course_json.h"
#include "marrow/io/motion_database_archive.h"
#include "marrow/io/motion_database_assets.h"

namespace marrow::python {
namespace {

struct PyMotionDatabase {
  std::shared_ptr<const MotionDatabase> db;
};

PyMotionDatabase build_database(const std::vector<std::shared_ptr<Asset>>& assets,
                                const std::string& root, const std::string& left_foot,
                                const std::string& right_foot, float exclude_start,
                                float trajectory_weight, float sample_rate, bool mirror) {
  if (assets.empty()) throw py::value_error("assets: give at least one asset");
  std::vector<const Asset*> files;
  for (const std::shared_ptr<Asset>& a : assets) {
    if (!a) throw py::value_error("assets: None is not an asset");
    files.push_back(a.get());
  }
  MotionDatabaseRecipe recipe{root, left_foot, right_foot};
  recipe.exclude_start = exclude_start;
  recipe.trajectory_weight = trajectory_weight;
  recipe.sample_rate = sample_rate;
  recipe.mirror = mirror;
  return {value_or_raise(build_motion_database(files, recipe))};
}

std::uint32_t frame_index(const MotionDatabase& db, std::int64_t frame) {
  if (frame < 0 || static_cast<std::uint64_t>(frame) >= db.frame_count())
    throw py::index_error("frame " + std::to_string(frame) + " is not in the database's " +
                          std::to_string(db.frame_count()));
  return static_cast<std::uint32_t>(frame);
}

py::dict frame_dict(const MotionDatabase& db, std::uint32_t index) {
  const MotionFrame& f = db.frame(index);
  py::dict d;
  d["clip"] = db.clip_set().clip(f.clip).name();
  d["time"] = f.time;
  d["searchable"] = f.searchable;
  d["yaw"] = f.yaw;
  d["left_contact"] = f.left_contact;
  d["right_contact"] = f.right_contact;
  return d;
}

py::dict search(const PyMotionDatabase& d,
                const py::array_t<float, py::array::c_style | py::array::forcecast>& query,
                const std::string& mode, std::uint32_t leaf_budget,
                std::optional<std::uint32_t> start) {
  MotionSearchMode m = MotionSearchMode::kBoxTree;
  if (mode == "brute") {
    m = MotionSearchMode::kBruteForce;
  } else if (mode != "tree") {
    throw py::value_error("mode: expected 'tree' or 'brute', got '" + mode + "'");
  }
  if (query.ndim() != 1 || static_cast<std::size_t>(query.shape(0)) != d.db->dims())
    throw py::value_error("query: expected (" + std::to_string(d.db->dims()) + ",) floats");
  const MotionMatch match =
      d.db->search({query.data(), d.db->dims()}, m, leaf_budget, start.value_or(kNoMotionFrame));
  if (match.frame == kNoMotionFrame) throw py::value_error("query: holds a NaN or an infinity");
  py::dict out = frame_dict(*d.db, match.frame);
  out["frame"] = match.frame;
  out["distance"] = match.distance;
  out["exact"] = match.exact;
  out["frames_compared"] = match.frames_compared;
  return out;
}

std::vector<MotionCourseStep> course_of(const MotionDatabase& db, const py::object& course,
                                        std::optional<float> walk, std::optional<float> jog) {
  if (course.is_none()) {
    const float w = walk.value_or(db.mean_speed());
    return standard_motion_course(db, w, jog.value_or(2 * w));
  }
  const JsonSource source = json_source(course);
  if (!source.path.empty()) {
    std::ifstream in(source.path, std::ios::binary);
    if (!in) raise(source.path + ": cannot be read");
    std::stringstream text;
    text << in.rdbuf();
    return value_or_raise(parse_motion_course(text.str(), db, source.path));
  }
  return value_or_raise(parse_motion_course(source.text, db, "course"));
}

py::array path_array(const std::vector<Vec3>& path) {
  py::array_t<float> a({static_cast<py::ssize_t>(path.size()), py::ssize_t{3}});
  float* out = a.mutable_data();
  for (const Vec3& p : path) *out++ = p.x, *out++ = p.y, *out++ = p.z;
  return a;
}

py::dict run_course(const PyMotionDatabase& d, const py::object& course,
                    std::optional<float> walk_speed, std::optional<float> jog_speed,
                    float search_interval, bool foot_locking) {
  MotionCourseOptions options;
  options.matcher.search_interval = search_interval;
  options.foot_locking = foot_locking;
  const MotionCourseReport r = value_or_raise(
      run_motion_course(d.db, course_of(*d.db, course, walk_speed, jog_speed), options));
  py::dict out;
  out["duration"] = r.duration;
  out["searches"] = r.searches;
  out["switches"] = r.switches;
  out["switches_per_second"] = r.switches_per_second;
  out["position_error_mean"] = r.mean_position_error;
  out["position_error_worst"] = r.worst_position_error;
  out["facing_error_mean"] = r.mean_facing_error;
  out["facing_error_worst"] = r.worst_facing_error;
  out["contacts"] = r.contacts;
  out["foot_slide_mean"] = r.mean_foot_slide;
  out["foot_slide_worst"] = r.worst_foot_slide;
  out["desired_path"] = path_array(r.desired_path);
  out["actual_path"] = path_array(r.actual_path);
  return out;
}

}  // namespace

void bind_motion(py::module_& m) {
  py::class_<PyMotionDatabase>(m, "MotionDatabase",
                               "Motion matching's database: clips of one skeleton, a feature "
                               "vector per frame, an exact search (docs/motion_matching.md)")
      .def(py::init(&build_database), py::arg("assets"), py::arg("root"), py::arg("left_foot"),
           py::arg("right_foot"), py::kw_only(), py::arg("exclude_start") = 0.0f,
           py::arg("trajectory_weight") = 4.0f, py::arg("sample_rate") = 60.0f,
           py::arg("mirror") = false,
           "Builds the database from every clip of `assets` on the first one's skeleton, with "
           "the locomotion schema on `root` and the feet; each clip's first `exclude_start` "
           "seconds stay out of the search; mirror=True also adds every clip mirrored left to "
           "right (the sides from the humanoid match)")
      .def("__repr__",
           [](const PyMotionDatabase& d) {
             return "<marrow.MotionDatabase " + std::to_string(d.db->frame_count()) + " frames, " +
                    std::to_string(d.db->searchable_count()) + " searchable, " +
                    std::to_string(d.db->dims()) + " floats>";
           })
      .def_property_readonly(
          "frame_count", [](const PyMotionDatabase& d) { return d.db->frame_count(); },
          "Frames, searchable or not")
      .def_property_readonly(
          "searchable_count", [](const PyMotionDatabase& d) { return d.db->searchable_count(); },
          "Frames a search may land in")
      .def_property_readonly(
          "dims", [](const PyMotionDatabase& d) { return d.db->dims(); },
          "Floats per feature vector")
      .def_property_readonly(
          "mean_speed", [](const PyMotionDatabase& d) { return d.db->mean_speed(); },
          "The root's mean ground speed over the searchable frames, model units per second")
      .def(
          "features",
          [](const PyMotionDatabase& d, std::int64_t frame) {
            const std::span<const float> f = d.db->features(frame_index(*d.db, frame));
            py::array_t<float> out(static_cast<py::ssize_t>(f.size()));
            std::copy(f.begin(), f.end(), out.mutable_data());
            return out;
          },
          py::arg("frame"), "A frame's normalized, weighted features, (dims,) float32")
      .def(
          "frame",
          [](const PyMotionDatabase& d, std::int64_t frame) {
            return frame_dict(*d.db, frame_index(*d.db, frame));
          },
          py::arg("frame"),
          "A frame's clip, time, yaw, whether it is searchable and which feet are planted")
      .def(
          "save",
          [](const PyMotionDatabase& d, const std::filesystem::path& path) {
            check_or_raise(write_motion_database(*d.db, path.string()));
          },
          py::arg("path"),
          "Writes the database to a .marrow archive (docs/formats_archive.md); "
          "MotionDatabase.load reads it back")
      .def_static(
          "load",
          [](const std::filesystem::path& path) {
            return PyMotionDatabase{value_or_raise(read_motion_database(path.string()))};
          },
          py::arg("path"),
          "A database saved with save(): the same frames and features, the same search answers")
      .def("search", &search, py::arg("query"), py::kw_only(), py::arg("mode") = "tree",
           py::arg("leaf_budget") = 0, py::arg("start") = py::none(),
           "The nearest searchable frame to `query` (dims normalized floats): a dict with its "
           "frame, clip, time, distance and whether it is exact; mode 'tree' or 'brute'; start: "
           "a frame whose distance bounds the tree from the outset (the one playing), same answer");
  m.def("run_motion_course", &run_course, py::arg("database"), py::arg("course") = py::none(),
        py::kw_only(), py::arg("walk_speed") = py::none(), py::arg("jog_speed") = py::none(),
        py::arg("search_interval") = 0.1f, py::arg("foot_locking") = false,
        "Plays a course (a dict, JSON text or a path, docs/motion_matching.md; None: the "
        "standard course at walk_speed and jog_speed) through a matcher and returns its figures "
        "and the desired and actual paths, (frames, 3) float32");
}

}  // namespace marrow::python
