// The IK bindings: two-bone, aim and chain solvers on a local pose edited in place, foot
// contacts detected on a clip, foot planting and the foot lock (ik/*.h). Bindings only.
#include <pybind11/stl.h>

#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "arrays.h"
#include "errors.h"
#include "handles.h"
#include "marrow/ik/aim_ik.h"
#include "marrow/ik/chain_ik.h"
#include "marrow/ik/foot_contacts.h"
#include "marrow/ik/foot_planting.h"
#include "marrow/ik/two_bone_ik.h"
#include "marrow/pose/local_to_model.h"

namespace marrow::python {

// A joint given as an index or a name.
JointIndex joint_of(const Skeleton& skeleton, const py::object& joint, const char* what) {
  if (py::isinstance<py::str>(joint)) {
    const std::string name = joint.cast<std::string>();
    if (const std::optional<JointIndex> j = skeleton.find(name)) return *j;
    throw py::value_error(std::string(what) + ": no joint '" + name + "'");
  }
  const long index = joint.cast<long>();
  if (index < 0 || static_cast<std::size_t>(index) >= skeleton.size())
    throw py::index_error(std::string(what) + ": joint " + std::to_string(index) + " of " +
                          std::to_string(skeleton.size()));
  return static_cast<JointIndex>(index);
}

namespace {

// An IK job on a local pose edited in place: the model matrices it reads are made here from the
// pose, so the caller passes only what it animates. Returns the job's `reached`.
template <typename Job>
bool run_ik(Job& job, const Skeleton& skeleton, py::array& local, const char* name) {
  const std::size_t n = skeleton.size();
  std::span<Transform> pose = pose_out(local, "local", n);
  std::vector<Mat4> model(n);
  run_or_raise(LocalToModelJob{.skeleton = &skeleton, .local = pose, .model = model}, name);
  bool reached = false;
  job.skeleton = &skeleton;
  job.model = model;
  job.local = pose;
  job.reached = &reached;
  // The job's own words name the wrong input (the C++ header lists every case).
  if (const Status valid = job.validate(); !valid)
    throw py::value_error(std::string(name) + ": " + valid.error().message);
  (void)job.run();
  return reached;
}

// A foot for detect_foot_contacts: a joint, or (foot, toe[, knee[, hip]]) with None for a
// default.
FootJoints foot_of(const Skeleton& skeleton, const py::handle& item, const std::string& where) {
  FootJoints f;
  if (!py::isinstance<py::tuple>(item) && !py::isinstance<py::list>(item)) {
    f.foot = joint_of(skeleton, py::reinterpret_borrow<py::object>(item), where.c_str());
    return f;
  }
  const py::sequence parts = py::reinterpret_borrow<py::sequence>(item);
  if (parts.size() < 1 || parts.size() > 4)
    throw py::value_error(where + ": expected a joint or (foot, toe, knee, hip)");
  JointIndex* slots[] = {&f.foot, &f.toe, &f.knee, &f.hip};
  const char* names[] = {".foot", ".toe", ".knee", ".hip"};
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const py::object part = parts[i];
    if (part.is_none()) {
      if (i == 0) throw py::value_error(where + ".foot: needs a joint");
      continue;
    }
    *slots[i] = joint_of(skeleton, part, (where + names[i]).c_str());
  }
  return f;
}

// One leg of plant_feet, from a dict: ankle (required), knee and hip (its parent and
// grandparent), contact, ground_height, pole_vector, lock_position (None: not locked).
FootPlantLeg leg_of(const Skeleton& skeleton, const py::handle& item, const std::string& where,
                    float ground_height) {
  if (!py::isinstance<py::dict>(item)) throw py::type_error(where + ": expected a dict");
  const py::dict d = py::reinterpret_borrow<py::dict>(item);
  for (const auto& [key, value] : d) {
    (void)value;
    const std::string k = py::str(key);
    if (k != "ankle" && k != "knee" && k != "hip" && k != "contact" && k != "ground_height" &&
        k != "pole_vector" && k != "lock_position")
      throw py::value_error(where + ": unknown key '" + k +
                            "' (known: ankle, knee, hip, contact, ground_height, pole_vector, "
                            "lock_position)");
  }
  if (!d.contains("ankle")) throw py::value_error(where + ": needs 'ankle'");
  FootPlantLeg leg;
  leg.ankle = joint_of(skeleton, d["ankle"], (where + ".ankle").c_str());
  const auto up_from = [&](JointIndex j, const char* what) {
    const JointIndex parent = skeleton.parent(j);
    if (parent == kNoParent)
      throw py::value_error(where + "." + what + ": the joint below has no parent; give it");
    return parent;
  };
  leg.knee = d.contains("knee") ? joint_of(skeleton, d["knee"], (where + ".knee").c_str())
                                : up_from(leg.ankle, "knee");
  leg.hip = d.contains("hip") ? joint_of(skeleton, d["hip"], (where + ".hip").c_str())
                              : up_from(leg.knee, "hip");
  leg.contact = d.contains("contact") ? d["contact"].cast<float>() : 1.0f;
  leg.ground_height =
      d.contains("ground_height") ? d["ground_height"].cast<float>() : ground_height;
  if (d.contains("pole_vector"))
    leg.pole_vector = vec3_of(d["pole_vector"].cast<std::array<float, 3>>());
  if (d.contains("lock_position") && !d["lock_position"].is_none()) {
    leg.locked = true;
    leg.lock_position = vec3_of(d["lock_position"].cast<std::array<float, 3>>());
  }
  return leg;
}

py::tuple plant_feet(const SkeletonRef& skeleton, py::array local, const py::object& pelvis,
                     const py::list& legs, std::array<float, 3> up, float animation_ground,
                     const py::object& ground, bool align_feet, float reach, float soft_limit,
                     float max_pelvis_offset) {
  const Skeleton& s = skeleton.get();
  const std::size_t n = s.size();
  std::span<Transform> pose = pose_out(local, "local", n);
  std::optional<GroundPlane> plane;
  float ground_height = 0;
  try {
    if (py::isinstance<py::tuple>(ground) || py::isinstance<py::list>(ground)) {
      const auto [point, normal] =
          ground.cast<std::pair<std::array<float, 3>, std::array<float, 3>>>();
      plane = GroundPlane{vec3_of(point), vec3_of(normal)};
    } else {
      ground_height = ground.cast<float>();
    }
  } catch (const py::cast_error&) {
    throw py::type_error("ground: expected a height or a (point, normal) pair of 3-vectors");
  }
  if (legs.size() == 0 || legs.size() > kMaxFootPlantLegs)
    throw py::value_error("legs: expected 1 to 8 legs");
  std::vector<FootPlantLeg> resolved;
  for (std::size_t i = 0; i < legs.size(); ++i) {
    resolved.push_back(leg_of(s, legs[i], "legs[" + std::to_string(i) + "]", ground_height));
  }
  std::vector<Mat4> model(n);
  run_or_raise(LocalToModelJob{.skeleton = &s, .local = pose, .model = model}, "plant_feet");
  FootPlantingJob job;
  job.skeleton = &s;
  job.pelvis = joint_of(s, pelvis, "pelvis");
  job.legs = resolved;
  job.up = vec3_of(up);
  job.animation_ground = animation_ground;
  job.plane = plane ? &*plane : nullptr;
  job.align_feet = align_feet;
  job.reach = reach;
  job.soft_limit = soft_limit;
  job.max_pelvis_offset = max_pelvis_offset;
  job.local = pose;
  job.model = model;
  FootPlantingResult result;
  job.result = &result;
  if (const Status valid = job.validate(); !valid)
    throw py::value_error("plant_feet: " + valid.error().message);
  (void)job.run();
  py::list reached;
  for (std::size_t i = 0; i < resolved.size(); ++i) reached.append(result.reached[i]);
  return py::make_tuple(result.pelvis_offset, reached);
}

// FootContacts with the joints' indices kept for the accessors' errors.
struct PyFootContacts {
  FootContacts contacts;
  const FootContactTrack& track(std::size_t foot) const {
    if (foot >= contacts.feet.size())
      throw py::index_error("foot " + std::to_string(foot) + " of " +
                            std::to_string(contacts.feet.size()));
    return contacts.feet[foot];
  }
};

}  // namespace

void bind_ik(py::module_& m) {
  m.def(
      "two_bone_ik",
      [](const SkeletonRef& skeleton, py::array local, const py::object& start,
         const py::object& mid, const py::object& end, std::array<float, 3> target,
         std::array<float, 3> pole_vector, float weight, float soft_limit) {
        const Skeleton& s = skeleton.get();
        TwoBoneIkJob job;
        job.start = joint_of(s, start, "start");
        job.mid = joint_of(s, mid, "mid");
        job.end = joint_of(s, end, "end");
        job.target = vec3_of(target);
        job.pole_vector = vec3_of(pole_vector);
        job.weight = weight;
        job.soft_limit = soft_limit;
        return run_ik(job, s, local, "two_bone_ik");
      },
      py::arg("skeleton"), py::arg("local"), py::arg("start"), py::arg("mid"), py::arg("end"),
      py::arg("target"), py::arg("pole_vector") = std::array<float, 3>{0, 0, 0},
      py::arg("weight") = 1.0f, py::arg("soft_limit") = 1.0f,
      "Turns `start` and `mid` (names or indices) of the local pose (joints, 10), in place, so "
      "`end` reaches the model-space `target`, bending towards `pole_vector`; returns whether "
      "it reached");
  m.def(
      "aim_ik",
      [](const SkeletonRef& skeleton, py::array local, const py::object& joint,
         std::array<float, 3> target, std::array<float, 3> forward, std::array<float, 3> offset,
         std::array<float, 3> up, std::array<float, 3> pole_vector, float max_angle, float weight) {
        const Skeleton& s = skeleton.get();
        AimIkJob job;
        job.joint = joint_of(s, joint, "joint");
        job.target = vec3_of(target);
        job.forward = vec3_of(forward);
        job.offset = vec3_of(offset);
        job.up = vec3_of(up);
        job.pole_vector = vec3_of(pole_vector);
        job.max_angle = max_angle;
        job.weight = weight;
        return run_ik(job, s, local, "aim_ik");
      },
      py::arg("skeleton"), py::arg("local"), py::arg("joint"), py::arg("target"),
      py::arg("forward") = std::array<float, 3>{0, 0, 1},
      py::arg("offset") = std::array<float, 3>{0, 0, 0},
      py::arg("up") = std::array<float, 3>{0, 0, 0},
      py::arg("pole_vector") = std::array<float, 3>{0, 1, 0}, py::arg("max_angle") = 3.14159265f,
      py::arg("weight") = 1.0f,
      "Turns `joint` of the local pose, in place, so its local `forward` axis (from `offset`) "
      "points at the model-space `target`; returns whether it reached");
  m.def(
      "chain_ik",
      [](const SkeletonRef& skeleton, py::array local, const py::object& root,
         const py::object& tip, std::array<float, 3> target, int max_iterations, float tolerance,
         float weight) {
        const Skeleton& s = skeleton.get();
        ChainIkJob job;
        job.root = joint_of(s, root, "root");
        job.tip = joint_of(s, tip, "tip");
        job.target = vec3_of(target);
        job.max_iterations = max_iterations;
        job.tolerance = tolerance;
        job.weight = weight;
        return run_ik(job, s, local, "chain_ik");
      },
      py::arg("skeleton"), py::arg("local"), py::arg("root"), py::arg("tip"), py::arg("target"),
      py::arg("max_iterations") = 16, py::arg("tolerance") = 1e-4f, py::arg("weight") = 1.0f,
      "Turns the joints from `root` to `tip`'s parent (FABRIK), in place, so `tip` reaches the "
      "model-space `target`; returns whether it came within `tolerance`");

  py::class_<PyFootContacts>(m, "FootContacts",
                             "When each foot of a clip is on the ground (detect_foot_contacts)")
      .def_property_readonly(
          "duration", [](const PyFootContacts& c) { return c.contacts.duration; },
          "The clip's duration, seconds")
      .def_property_readonly(
          "ground_velocity",
          [](const PyFootContacts& c) {
            const Vec3 v = c.contacts.ground_velocity;
            return std::array<float, 3>{v.x, v.y, v.z};
          },
          "The ground's estimated velocity in model space (about zero with root motion)")
      .def_property_readonly(
          "foot_count", [](const PyFootContacts& c) { return c.contacts.feet.size(); },
          "How many feet were given")
      .def(
          "intervals",
          [](const PyFootContacts& c, std::size_t foot) {
            std::vector<std::pair<float, float>> out;
            for (const ContactInterval& i : c.track(foot).intervals)
              out.emplace_back(i.start, i.end);
            return out;
          },
          py::arg("foot"),
          "The foot's contacts as (start, end) seconds; end < start wraps past the clip's end")
      .def(
          "leg_length",
          [](const PyFootContacts& c, std::size_t foot) { return c.track(foot).leg_length; },
          py::arg("foot"), "The rest-pose shin + thigh length, the unit of the thresholds")
      .def(
          "in_contact",
          [](const PyFootContacts& c, std::size_t foot, float time) {
            return c.track(foot).in_contact(time);
          },
          py::arg("foot"), py::arg("time"), "Whether the foot is planted at `time` seconds")
      .def(
          "contact_weight",
          [](const PyFootContacts& c, std::size_t foot, float time, float blend, bool looping) {
            return contact_weight(c.track(foot), time, c.contacts.duration, blend, looping);
          },
          py::arg("foot"), py::arg("time"), py::arg("blend") = 0.1f, py::arg("looping") = true,
          "A weight in [0, 1] for plant_feet: 1 in a contact, ramping over `blend` seconds")
      .def("__repr__", [](const PyFootContacts& c) {
        std::string r = "<marrow.FootContacts " + std::to_string(c.contacts.feet.size()) +
                        " feet over " + std::to_string(c.contacts.duration) + " s:";
        for (const FootContactTrack& t : c.contacts.feet)
          r += " " + std::to_string(t.intervals.size());
        return r + " contacts>";
      });

  m.def(
      "detect_foot_contacts",
      [](std::shared_ptr<Asset> asset, const py::object& clip, const py::list& feet,
         std::array<float, 3> up, float sample_rate, float height_tolerance, float speed_tolerance,
         float min_duration, bool looping, bool estimate_ground_velocity) {
        const Clip& c = asset->clips[clip_index(*asset, clip)];
        std::vector<FootJoints> joints;
        for (std::size_t i = 0; i < feet.size(); ++i)
          joints.push_back(foot_of(asset->skeleton, feet[i], "feet[" + std::to_string(i) + "]"));
        FootContactOptions options;
        options.up = vec3_of(up);
        options.sample_rate = sample_rate;
        options.height_tolerance = height_tolerance;
        options.speed_tolerance = speed_tolerance;
        options.min_duration = min_duration;
        options.looping = looping;
        options.estimate_ground_velocity = estimate_ground_velocity;
        Result<FootContacts> contacts = [&] {
          py::gil_scoped_release unlocked;
          return detect_foot_contacts(asset->skeleton, c, joints, options);
        }();
        return PyFootContacts{value_or_raise(std::move(contacts))};
      },
      py::arg("asset"), py::arg("clip"), py::arg("feet"),
      py::arg("up") = std::array<float, 3>{0, 1, 0}, py::arg("sample_rate") = 60.0f,
      py::arg("height_tolerance") = 0.05f, py::arg("speed_tolerance") = 0.5f,
      py::arg("min_duration") = 0.05f, py::arg("looping") = true,
      py::arg("estimate_ground_velocity") = true,
      "When each foot of `clip` is planted; `feet` lists joints or (foot, toe, knee, hip) tuples "
      "(None for a default)");

  m.def("plant_feet", &plant_feet, py::arg("skeleton"), py::arg("local"), py::arg("pelvis"),
        py::arg("legs"), py::arg("up") = std::array<float, 3>{0, 1, 0},
        py::arg("animation_ground") = 0.0f, py::arg("ground") = 0.0f, py::arg("align_feet") = true,
        py::arg("reach") = 0.999f, py::arg("soft_limit") = 1.0f,
        py::arg("max_pelvis_offset") = std::numeric_limits<float>::max(),
        "Keeps planted feet on the ground (a height, or a (point, normal) plane), moving the "
        "pelvis so the legs reach; edits `local` in place and returns (pelvis_offset, reached "
        "per leg). Each leg is a dict: ankle, and optionally knee, hip, contact (1), "
        "ground_height, pole_vector, lock_position");

  py::class_<FootLock>(m, "FootLock",
                       "Holds a planted foot where it landed: update() each frame before "
                       "plant_feet, then pass lock_position=position while locked")
      .def(py::init<>(), "A free lock (not holding a foot)")
      .def(
          "update",
          [](FootLock& lock, float contact, std::array<float, 3> ankle,
             std::array<float, 3> ground_motion) {
            lock.update(contact, vec3_of(ankle), vec3_of(ground_motion));
          },
          py::arg("contact"), py::arg("ankle"),
          py::arg("ground_motion") = std::array<float, 3>{0, 0, 0},
          "Engages at contact 1 (remembering `ankle`), holds while contact > 0, releases at 0; "
          "`ground_motion` moves a held position with the ground")
      .def_readonly("locked", &FootLock::locked, "Whether the foot is held")
      .def_property_readonly(
          "position",
          [](const FootLock& lock) {
            return std::array<float, 3>{lock.position.x, lock.position.y, lock.position.z};
          },
          "The held ankle position (model space)")
      .def("__repr__", [](const FootLock& lock) {
        return std::string("<marrow.FootLock ") + (lock.locked ? "locked" : "free") + ">";
      });
}

}  // namespace marrow::python
