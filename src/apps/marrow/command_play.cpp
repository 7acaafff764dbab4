// `marrow play FILE --script SCRIPT.json [--events] [--format text|json] [--pose]`: steps an
// Animator through a script's timeline at a fixed frame rate and prints, per frame, the events
// fired, every player's time and effective weight, the root-motion delta, and with --pose every
// node's global transform in `marrow pose`'s JSON shape. --events prints the events alone.
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "commands.h"
#include "marrow/io/animation_script.h"
#include "marrow/io/asset.h"
#include "marrow/io/pose_dump.h"
#include "marrow/io/script_runner.h"

namespace marrow::cli {
namespace {

using Json = nlohmann::ordered_json;

struct PlayCommandOptions {
  LoadOptions load;
  std::string file;
  std::string script;
  std::string format = "text";
  bool events = false;
  bool pose = false;
};

// Six decimals keep the output readable and stable (floats printed in full show their binary
// noise: 0.1f is 0.10000000149011612).
double round6(float v) {
  return std::round(static_cast<double>(v) * 1e6) / 1e6;
}

Json event_json(const AnimationEvent& e, const ClipSet& set, const std::string& player) {
  Json j;
  j["type"] = std::string(to_string(e.type));
  if (!e.name.empty()) j["name"] = std::string(e.name);
  j["player"] = player;
  j["clip"] = e.clip != kNoId ? set.clip(e.clip).name() : "";
  j["clip_time"] = round6(e.clip_time);
  j["time"] = round6(e.time);  // seconds into the update that ends at this frame
  j["pass"] = e.pass;
  if (e.backwards) j["backwards"] = true;
  return j;
}

// A motion-matching script's frame: where the character stands and faces, where the stick asks
// it to be, which database frame plays, and whether the matcher searched or switched.
Json matching_json(const ScriptFrame::Matching& m) {
  const Vec3 p = m.world.translation;
  constexpr float kDegrees = 57.29578f;
  return {{"position", {round6(p.x), round6(p.y), round6(p.z)}},
          {"facing", round6(m.yaw * kDegrees)},
          {"desired", {round6(m.desired.x), round6(m.desired.y), round6(m.desired.z)}},
          {"desired_facing", round6(m.desired_yaw * kDegrees)},
          {"database_frame", m.database_frame},
          {"searched", m.searched},
          {"switched", m.switched},
          {"contacts", {round6(m.contacts[0]), round6(m.contacts[1])}}};
}

void print_matching(std::ostream& text, const ScriptFrame::Matching& m) {
  const Vec3 p = m.world.translation, d = m.desired;
  text << "  matching  at (" << p.x << ", " << p.y << ", " << p.z << ") facing "
       << m.yaw * 57.29578f << " deg  desired (" << d.x << ", " << d.y << ", " << d.z << ") facing "
       << m.desired_yaw * 57.29578f << " deg  database frame " << m.database_frame
       << (m.searched ? "  searched" : "") << (m.switched ? "  switched" : "") << "\n";
}

int run_play(const PlayCommandOptions& o) {
  Result<Asset> asset = load_input(o.file, o.load);
  if (!asset) return report_error(asset.error().message);
  Result<AnimationScript> script = read_animation_script(o.script);
  if (!script) return report_error(script.error().message);
  Result<ScriptRunner> runner = ScriptRunner::create(*asset, *script);
  if (!runner) return report_error(runner.error().message);
  const ClipSet& set = runner->clip_set();
  const std::vector<JointIndex> order = joints_in_source_order(*asset);

  Json doc;
  doc["file"] = std::filesystem::path(o.file).filename().string();
  doc["script"] = std::filesystem::path(o.script).filename().string();
  doc["fps"] = runner->fps();
  doc["frames"] = Json::array();
  if (o.pose && !o.events) {
    Json nodes = Json::array();
    for (const JointIndex j : order) {
      Json n;
      n["index"] = j < asset->source_index.size() ? asset->source_index[j] : -1;
      n["name"] = asset->skeleton.name(j);
      n["joint"] = asset->is_skin_joint(j);
      nodes.push_back(std::move(n));
    }
    doc["nodes"] = std::move(nodes);
  }
  std::ostringstream text;  // printed whole, so an error never leaves half an output
  text << std::fixed << std::setprecision(4);
  text << o.file << " with " << o.script << ": " << runner->frame_count() << " frames at "
       << runner->fps() << " fps\n";
  ScriptFrame frame;
  for (int k = 0; k < runner->frame_count(); ++k) {
    if (Status s = runner->next(frame); !s) return report_error(s.error().message);
    const auto who = [&](const AnimationEvent& e) { return runner->name_of(e.player); };
    const Transform& root = frame.update.root_motion;
    if (o.format == "json") {
      Json f;
      f["frame"] = frame.index;
      f["t"] = round6(frame.time);
      Json events = Json::array();
      for (const AnimationEvent& e : frame.events) events.push_back(event_json(e, set, who(e)));
      if (o.events) {
        if (!events.empty()) {
          f["events"] = std::move(events);
          doc["frames"].push_back(std::move(f));
        }
        continue;
      }
      f["events"] = std::move(events);
      if (!frame.state.empty()) f["state"] = frame.state;
      Json players = Json::array();
      for (const ScriptFrame::Player& p : frame.players) {
        Json j;
        j["id"] = p.id;
        j[p.info.clip != kNoId ? "clip" : "blend_space"] = p.motion;
        j["layer"] = p.layer;
        j["time"] = round6(p.info.time);
        j["duration"] = round6(p.info.duration);
        j["weight"] = round6(p.info.weight);
        j["effective_weight"] = round6(p.info.effective_weight);
        j["time_scale"] = round6(p.info.time_scale);
        j["passes"] = p.info.passes;
        if (p.info.finished) j["finished"] = true;
        if (p.info.paused) j["paused"] = true;
        players.push_back(std::move(j));
      }
      f["players"] = std::move(players);
      f["root_motion"] = {
          {"translation",
           {round6(root.translation.x), round6(root.translation.y), round6(root.translation.z)}},
          {"rotation",
           {round6(root.rotation.x), round6(root.rotation.y), round6(root.rotation.z),
            round6(root.rotation.w)}}};
      if (o.pose) {
        Json world = Json::array();
        for (const JointIndex j : order) {
          Json m = Json::array();
          for (int c = 0; c < 16; ++c) m.push_back(frame.model[j].m[c]);
          world.push_back(std::move(m));
        }
        f["world"] = std::move(world);
      }
      if (!frame.morph_weights.empty()) {
        Json weights = Json::array();
        for (float w : frame.morph_weights) weights.push_back(round6(w));
        f["morph_weights"] = std::move(weights);
      }
      if (!frame.ik.empty()) {
        Json ik = Json::array();
        for (const ScriptFrame::Ik& k : frame.ik) {
          ik.push_back({{"id", k.id}, {"weight", round6(k.weight)}, {"reached", k.reached}});
        }
        f["ik"] = std::move(ik);
      }
      if (!frame.foot_contacts.empty()) {
        Json contacts = Json::array();
        for (float c : frame.foot_contacts) contacts.push_back(round6(c));
        f["foot_planting"] = {{"contacts", std::move(contacts)},
                              {"pelvis_offset", round6(frame.pelvis_offset)}};
      }
      if (frame.matching) f["motion_matching"] = matching_json(*frame.matching);
      doc["frames"].push_back(std::move(f));
      continue;
    }
    if (o.events) {
      for (const AnimationEvent& e : frame.events) {
        text << "t " << frame.time << "  frame " << frame.index << "  " << to_string(e.type);
        if (!e.name.empty()) text << " '" << e.name << "'";
        text << "  player " << who(e) << "  clip "
             << (e.clip != kNoId ? set.clip(e.clip).name() : "") << " at " << e.clip_time << "\n";
      }
      continue;
    }
    text << "\nframe " << frame.index << "  t " << frame.time;
    if (!frame.state.empty()) text << "  state " << frame.state;
    text << "  root motion (" << root.translation.x << ", " << root.translation.y << ", "
         << root.translation.z << ")";
    if (root.rotation.w < 1) {
      text << " turn " << std::setprecision(2)
           << 2 * std::acos(std::min(1.0f, std::fabs(root.rotation.w))) * 57.29578f << " deg"
           << std::setprecision(4);
    }
    text << "\n";
    for (const ScriptFrame::Player& p : frame.players) {
      text << "  player " << std::left << std::setw(12) << p.id << std::right << " "
           << std::setw(12) << p.motion << "  layer " << p.layer << "  time " << p.info.time
           << " / " << p.info.duration << "  weight " << p.info.weight << "  effective "
           << p.info.effective_weight << (p.info.finished ? "  finished" : "")
           << (p.info.paused ? "  paused" : "") << "\n";
    }
    if (!frame.morph_weights.empty()) {
      text << "  morph weights";
      for (float w : frame.morph_weights) text << " " << w;
      text << "\n";
    }
    for (const ScriptFrame::Ik& k : frame.ik) {
      text << "  ik " << k.id << "  weight " << k.weight << (k.reached ? "  reached" : "") << "\n";
    }
    if (!frame.foot_contacts.empty()) {
      text << "  foot contacts";
      for (float c : frame.foot_contacts) text << " " << c;
      text << "  pelvis offset " << frame.pelvis_offset << "\n";
    }
    if (frame.matching) print_matching(text, *frame.matching);
    for (const AnimationEvent& e : frame.events) {
      text << "  " << to_string(e.type);
      if (!e.name.empty()) text << " '" << e.name << "'";
      text << "  player " << who(e) << " at clip time " << e.clip_time << " (+" << e.time
           << " s)\n";
    }
    if (o.pose) {
      for (const JointIndex j : order) {
        const Vec3 p = frame.model[j].translation();
        text << "    " << std::left << std::setw(28) << asset->skeleton.name(j) << std::right
             << " (" << p.x << ", " << p.y << ", " << p.z << ")\n";
      }
    }
  }
  if (o.format == "json") {
    std::cout << doc.dump() << "\n";
  } else {
    std::cout << text.str();
  }
  if (!std::cout) return report_error("cannot write to standard output");
  return 0;
}

}  // namespace

void add_play_command(CLI::App& app, std::function<int()>& run) {
  auto options = std::make_shared<PlayCommandOptions>();
  CLI::App* cmd = app.add_subcommand("play",
                                     "Step an animator through a script (players, fades, events, "
                                     "state machine, IK, feet on the ground)");
  cmd->add_option("file", options->file, "Any file marrow reads: its skeleton and clips")
      ->required();
  cmd->add_option("--script", options->script, "The script, JSON (docs/control.md)")->required();
  cmd->add_option("--format", options->format, "text or json")
      ->check(CLI::IsMember({"text", "json"}));
  cmd->add_flag("--events", options->events, "Print the events alone");
  cmd->add_flag("--pose", options->pose, "Print every node's global transform per frame");
  add_load_options(cmd, options->load);
  set_example(*cmd, "marrow play Soldier.glb --script walk_to_run.json --events");
  cmd->callback([options, &run] { run = [options] { return run_play(*options); }; });
}

}  // namespace marrow::cli
