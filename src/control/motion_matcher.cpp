// The motion-matching controller: springs for the desired path, the query, the switch by
// inertialization, and the character moved by the playing frame's ground motion.
#include "marrow/control/motion_matcher.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "marrow/ik/foot_planting.h"
#include "marrow/pose/local_to_model.h"

namespace marrow {
namespace {

constexpr float kPi = std::numbers::pi_v<float>;
// x with e^-x (1 + x) = 1/2: a critically damped gap starting still halves at t = x / rate.
constexpr float kHalfGap = 1.67835f;

float wrap_angle(float a) {
  a = std::fmod(a + kPi, 2 * kPi);
  if (a < 0) a += 2 * kPi;
  return a - kPi;
}

bool finite(Vec3 v) {
  return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z);
}

}  // namespace

TrajectorySpring::TrajectorySpring(Vec3 up, float velocity_halflife, float facing_halflife)
    : up_(length(up) > 0 ? up * (1 / length(up)) : Vec3{0, 1, 0}),
      velocity_rate_(kHalfGap / std::max(velocity_halflife, 1e-4f)),
      facing_rate_(kHalfGap / std::max(facing_halflife, 1e-4f)) {}

void TrajectorySpring::reset(Vec3 position, float yaw) {
  position_ = ground(position);
  velocity_ = acceleration_ = {0, 0, 0};
  yaw_ = wrap_angle(yaw), yaw_rate_ = 0;
}

// v(t) = vd + (j0 + j1 t) e^-wt with j0 = v0 - vd, j1 = a0 + w j0; its integral gives the
// position: vd t + j0 (1 - e^-wt) / w + j1 (1 - e^-wt (1 + wt)) / w^2.
void TrajectorySpring::update(Vec3 velocity, float yaw, float dt) {
  if (!(dt > 0)) return;
  dt = std::min(dt, kMaxDeltaTime);
  if (!finite(velocity)) velocity = velocity_;
  if (!std::isfinite(yaw)) yaw = yaw_;
  position_ = predict_position(velocity, dt);
  const Vec3 target = ground(velocity);
  const float w = velocity_rate_, e = std::exp(-w * dt);
  const Vec3 j0 = velocity_ - target, j1 = acceleration_ + j0 * w;
  velocity_ = target + (j0 + j1 * dt) * e;
  acceleration_ = (j1 - (j0 + j1 * dt) * w) * e;
  const float f = facing_rate_, ef = std::exp(-f * dt);
  const float k0 = wrap_angle(yaw_ - yaw), k1 = yaw_rate_ + k0 * f;
  yaw_ = wrap_angle(yaw + (k0 + k1 * dt) * ef);
  yaw_rate_ = (k1 - (k0 + k1 * dt) * f) * ef;
}

Vec3 TrajectorySpring::predict_position(Vec3 velocity, float ahead) const {
  const Vec3 target = ground(finite(velocity) ? velocity : velocity_);
  const float w = velocity_rate_, e = std::exp(-w * ahead);
  const Vec3 j0 = velocity_ - target, j1 = acceleration_ + j0 * w;
  return position_ + target * ahead + j0 * ((1 - e) / w) +
         j1 * ((1 - e * (1 + w * ahead)) / (w * w));
}

float TrajectorySpring::predict_yaw(float yaw, float ahead) const {
  if (!std::isfinite(yaw)) yaw = yaw_;
  const float f = facing_rate_, ef = std::exp(-f * ahead);
  const float k0 = wrap_angle(yaw_ - yaw), k1 = yaw_rate_ + k0 * f;
  return wrap_angle(yaw + (k0 + k1 * ahead) * ef);
}

Result<MotionMatcher> MotionMatcher::create(std::shared_ptr<const MotionDatabase> database,
                                            MotionMatcherOptions options) {
  constexpr const char* kWhere = "motion matcher";
  if (!database) return make_error(kWhere, "no database");
  for (float v : {options.search_interval, options.transition_time, options.velocity_halflife,
                  options.facing_halflife, options.input_change, options.same_clip_window}) {
    if (!(v > 0) || !std::isfinite(v))
      return make_error(kWhere, "every interval, time, halflife and threshold must be positive");
  }
  if (!std::isfinite(options.max_drift)) return make_error(kWhere, "max_drift must be finite");
  AnimatorOptions animator_options;
  animator_options.inertialization = true;
  animator_options.max_players = 4;
  Result<Animator> animator = Animator::create(database->shared_clip_set(), animator_options);
  if (!animator) return animator.error();
  MotionMatcher m;
  m.database_ = std::move(database);
  m.options_ = options;
  m.animator_ = std::make_unique<Animator>(std::move(*animator));
  m.spring_ = TrajectorySpring(m.database_->schema().up, options.velocity_halflife,
                               options.facing_halflife);
  m.max_drift_ = options.max_drift >= 0 ? options.max_drift : 0.5f * m.database_->mean_speed();
  m.query_.assign(m.database_->dims(), 0);
  const Skeleton& skeleton = m.database_->skeleton();
  m.feet_[0] = skeleton.find(m.database_->schema().left_foot).value_or(0);
  m.feet_[1] = skeleton.find(m.database_->schema().right_foot).value_or(0);
  std::uint32_t first = 0;
  while (first + 1 < m.database_->frame_count() && !m.database_->frame(first).searchable) ++first;
  const MotionFrame& f = m.database_->frame(first);
  PlayOptions play;
  play.wrap = WrapMode::kClamp;
  play.start_offset = f.time;
  Result<PlayerId> player = m.animator_->play(f.clip, play);
  if (!player) return player.error();
  m.player_ = *player, m.clip_ = f.clip;
  m.reset({0, 0, 0}, 0);
  return m;
}

void MotionMatcher::reset(Vec3 position, float yaw) {
  const Vec3 up = database_->schema().up;
  position_ = position - up * dot(position, up);
  yaw_ = wrap_angle(std::isfinite(yaw) ? yaw : 0);
  spring_.reset(position_, yaw_);
  input_velocity_ = searched_velocity_ = {0, 0, 0};
  input_yaw_ = searched_yaw_ = yaw_;
  since_search_ = 1e30f;
}

void MotionMatcher::set_input(Vec3 velocity, float yaw) {
  if (finite(velocity)) input_velocity_ = velocity;
  if (std::isfinite(yaw)) input_yaw_ = wrap_angle(yaw);
}

std::uint32_t MotionMatcher::current_frame() const {
  return database_->frame_at(clip_, animator_->info(player_).time);
}

// The ground frame of a database clip at any time: the frames' positions and yaws interpolated.
void MotionMatcher::ground_at(ClipId clip, float time, Vec3& position, float& yaw) const {
  const MotionDatabase& db = *database_;
  const float rate = db.schema().sample_rate;
  const std::uint32_t first = db.frame_at(clip, 0);
  const std::uint32_t last = db.frame_at(clip, 1e30f);
  const float at = std::clamp(time * rate, 0.0f, static_cast<float>(last - first));
  const std::uint32_t a = first + static_cast<std::uint32_t>(at);
  const std::uint32_t b = std::min(a + 1, last);
  const float u = at - std::floor(at);
  const MotionFrame &fa = db.frame(a), &fb = db.frame(b);
  const float side = fa.ground_side + (fb.ground_side - fa.ground_side) * u;
  const float forward = fa.ground_forward + (fb.ground_forward - fa.ground_forward) * u;
  position = db.ground_side() * side + db.ground_forward() * forward;
  yaw = fa.yaw + wrap_angle(fb.yaw - fa.yaw) * u;
}

// The playing frame's features, its trajectory floats replaced by the desired path's, seen from
// the character.
void MotionMatcher::build_query() {
  const MotionDatabase& db = *database_;
  const std::span<const float> current = db.features(current_frame());
  std::copy(current.begin(), current.end(), query_.begin());
  const Vec3 side_axis = db.ground_side(), forward_axis = db.ground_forward();
  const float c = std::cos(yaw_), s = std::sin(yaw_);
  const Vec3 forward = forward_axis * c + side_axis * s, side = side_axis * c - forward_axis * s;
  const std::vector<MotionFeatureDesc>& features = db.schema().features;
  for (std::size_t i = 0; i < features.size(); ++i) {
    const MotionFeatureDesc& f = features[i];
    const std::size_t d = db.feature_offset(i);
    if (f.kind == MotionFeature::kTrajectoryPosition) {
      const Vec3 ahead = spring_.predict_position(input_velocity_, f.horizon) - position_;
      query_[d] = db.normalize(d, dot(ahead, side));
      query_[d + 1] = db.normalize(d + 1, dot(ahead, forward));
    } else if (f.kind == MotionFeature::kTrajectoryDirection) {
      const float turn = spring_.predict_yaw(input_yaw_, f.horizon) - yaw_;
      query_[d] = db.normalize(d, std::sin(turn));
      query_[d + 1] = db.normalize(d + 1, std::cos(turn));
    }
  }
}

bool MotionMatcher::input_changed() const {
  const Vec3 dv = input_velocity_ - searched_velocity_;
  return length(dv) > options_.input_change * database_->mean_speed() ||
         std::abs(wrap_angle(input_yaw_ - searched_yaw_)) > options_.input_change;
}

void MotionMatcher::switch_to(std::uint32_t frame) {
  const MotionFrame& f = database_->frame(frame);
  PlayOptions play;
  play.wrap = WrapMode::kClamp;
  play.start_offset = f.time;
  Result<PlayerId> next = animator_->play(f.clip, play);
  if (!next) return;  // cannot happen: at most two players, four slots
  if (!animator_->inertialize(player_, *next, options_.transition_time)) {
    animator_->stop(*next);
    return;
  }
  player_ = *next, clip_ = f.clip;
  ++switches_;
}

void MotionMatcher::set_searching(bool on) {
  if (on && !searching_) since_search_ = 1e30f;
  searching_ = on;
}

bool MotionMatcher::follow(PlayerId player) {
  const PlayerInfo info = animator_->info(player);
  if (!player.valid() || info.clip == kNoId || info.clip >= database_->clip_set().clip_count())
    return false;
  player_ = player, clip_ = info.clip;
  return true;
}

MotionMatcherUpdate MotionMatcher::update(float dt) {
  return update(dt, nullptr, nullptr);
}

MotionMatcherUpdate MotionMatcher::update(float dt, EventCallback callback, void* user) {
  MotionMatcherUpdate result;
  if (!(dt >= 0) || !std::isfinite(dt)) dt = 0;
  spring_.update(input_velocity_, input_yaw_, dt);
  const Vec3 drift = spring_.position() - position_;
  if (length(drift) > max_drift_)
    spring_.set_position(position_ + drift * (max_drift_ / length(drift)));
  since_search_ += dt;
  const bool at_end = !database_->frame(current_frame()).searchable;
  if (searching_ && (since_search_ >= options_.search_interval || input_changed() || at_end)) {
    build_query();
    // The frame playing now bounds the search from the start (the answer is the same).
    result.match = database_->search(query_, options_.search_mode, 0, current_frame());
    result.searched = true;
    ++searches_;
    since_search_ = 0;
    searched_velocity_ = input_velocity_, searched_yaw_ = input_yaw_;
    const std::uint32_t now = current_frame();
    const MotionFrame& best =
        database_->frame(result.match.frame == kNoMotionFrame ? now : result.match.frame);
    const bool same = best.clip == clip_ && std::abs(best.time - animator_->info(player_).time) <
                                                options_.same_clip_window;
    if (result.match.frame != kNoMotionFrame && !same) {
      switch_to(result.match.frame);
      result.switched = true;
    }
  }
  const MotionFrame& playing = database_->frame(current_frame());
  const float step = options_.contact_blend > 0 ? dt / options_.contact_blend : 1;
  const bool planted[2] = {playing.left_contact, playing.right_contact};
  for (int foot = 0; foot < 2; ++foot)
    contact_[foot] = std::clamp(contact_[foot] + (planted[foot] ? step : -step), 0.0f, 1.0f);
  const float before = animator_->info(player_).time;
  result.animation = callback ? animator_->update(dt, callback, user) : animator_->update(dt);
  const float after = animator_->info(player_).time;
  Vec3 p0, p1;
  float yaw0, yaw1;
  ground_at(clip_, before, p0, yaw0);
  ground_at(clip_, after, p1, yaw1);
  // The clip's ground motion, seen from its frame at `before`, replayed from the character's.
  const float c0 = std::cos(yaw0), s0 = std::sin(yaw0), c = std::cos(yaw_), s = std::sin(yaw_);
  const Vec3 side_axis = database_->ground_side(), forward_axis = database_->ground_forward();
  const Vec3 delta = p1 - p0;
  const float along = dot(delta, forward_axis * c0 + side_axis * s0);
  const float across = dot(delta, side_axis * c0 - forward_axis * s0);
  position_ +=
      (forward_axis * c + side_axis * s) * along + (side_axis * c - forward_axis * s) * across;
  yaw_ = wrap_angle(yaw_ + wrap_angle(yaw1 - yaw0));
  return result;
}

bool MotionMatcher::evaluate(AnimatorWorkspace& workspace, std::span<SoaTransform> local) {
  return animator_->evaluate(workspace, local);
}

bool MotionMatcher::evaluate(AnimatorWorkspace& workspace, std::span<Transform> local) {
  return animator_->evaluate(workspace, local);
}

bool MotionMatcher::evaluate_planted(AnimatorWorkspace& workspace, std::span<Transform> local,
                                     std::span<Mat4> model) {
  const Skeleton& skeleton = database_->skeleton();
  if (local.size() < skeleton.size() || model.size() < skeleton.size()) return false;
  if (!animator_->evaluate(workspace, local)) return false;
  if (!local_to_model(skeleton, local, model)) return false;
  const MotionSchema& schema = database_->schema();
  const Transform world = this->world();
  const Quat to_model = conjugate(world.rotation);
  FootPlantLeg legs[2];
  for (int foot = 0; foot < 2; ++foot) {
    FootPlantLeg& leg = legs[foot];
    leg.ankle = feet_[foot];
    leg.knee = skeleton.parent(leg.ankle);
    leg.hip = skeleton.parent(leg.knee);
    leg.contact = contact_[foot];
    const Vec3 ankle_world =
        world.translation + rotate(world.rotation, model[leg.ankle].translation());
    if (contact_[foot] >= 1 && !locked_[foot])
      locked_[foot] = true, lock_world_[foot] = ankle_world;
    if (contact_[foot] <= 0) locked_[foot] = false;
    leg.locked = locked_[foot];
    leg.lock_position = rotate(to_model, lock_world_[foot] - world.translation);
  }
  const GroundPlane ground{{0, 0, 0}, schema.up};
  FootPlantingJob job;
  job.skeleton = &skeleton;
  job.pelvis = database_->root_joint();
  job.legs = legs;
  job.up = schema.up;
  job.plane = &ground;
  job.align_feet = false;
  job.local = local;
  job.model = model;
  return job.run();
}

Transform MotionMatcher::world() const {
  return Transform{position_, from_axis_angle(database_->schema().up, yaw_), {1, 1, 1}};
}

}  // namespace marrow
