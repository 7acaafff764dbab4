// The database's search: a tree of bounding boxes over the searchable frames (split at the median
// of the widest float, down to leaves of 16 frames), searched depth first, nearer box first,
// pruning every box whose bound cannot beat the best frame so far. The leaves' frames are stored
// in blocks of 8 for the SIMD distance kernel (match_kernels.h), which brute force runs over
// every block.
#include <algorithm>
#include <cmath>
#include <limits>

#include "control/match_dispatch.h"
#include "marrow/control/motion_database.h"

namespace marrow {
namespace {

constexpr float kInfinity = std::numeric_limits<float>::infinity();

// A box is skipped only when its bound exceeds the best distance by more than the rounding of two
// sums of a few dozen floats can explain, so pruning never changes the answer.
bool cannot_beat(float bound, float best) {
  return bound > best * (1 + 1e-5f) + 1e-30f;
}

}  // namespace

void MotionDatabase::build_search_index() {
  std::vector<std::uint32_t> frames;
  for (std::uint32_t f = 0; f < frames_.size(); ++f)
    if (frames_[f].searchable) frames.push_back(f);
  nodes_.clear(), box_lower_.clear(), box_upper_.clear();
  blocks_.clear(), block_frames_.clear();
  std::vector<std::uint32_t> order;
  if (!frames.empty()) build_node(frames, order);
}

// Appends the node for `frames` (and its subtree); returns its index. Leaves append their frames
// to the blocks, padded to a whole block with infinite frames.
std::uint32_t MotionDatabase::build_node(std::span<std::uint32_t> frames,
                                         std::vector<std::uint32_t>& order) {
  const std::uint32_t index = static_cast<std::uint32_t>(nodes_.size());
  nodes_.push_back({});
  box_lower_.resize(box_lower_.size() + dims_, kInfinity);
  box_upper_.resize(box_upper_.size() + dims_, -kInfinity);
  float* lower = box_lower_.data() + std::size_t{index} * dims_;
  float* upper = box_upper_.data() + std::size_t{index} * dims_;
  for (std::uint32_t f : frames) {
    const std::span<const float> x = features(f);
    for (std::size_t d = 0; d < dims_; ++d)
      lower[d] = std::min(lower[d], x[d]), upper[d] = std::max(upper[d], x[d]);
  }
  if (frames.size() <= kLeafFrames) {
    const std::size_t blocks = (frames.size() + 7) / 8;
    nodes_[index].first_block = static_cast<std::uint32_t>(block_frames_.size() / 8);
    nodes_[index].block_count = static_cast<std::uint32_t>(blocks);
    const std::size_t base = blocks_.size();
    blocks_.resize(base + blocks * 8 * dims_, kInfinity);
    block_frames_.resize(block_frames_.size() + blocks * 8, kNoMotionFrame);
    for (std::size_t i = 0; i < frames.size(); ++i) {
      const std::span<const float> x = features(frames[i]);
      float* block = blocks_.data() + base + (i / 8) * 8 * dims_;
      for (std::size_t d = 0; d < dims_; ++d) block[d * 8 + i % 8] = x[d];
      block_frames_[std::size_t{nodes_[index].first_block} * 8 + i] = frames[i];
      order.push_back(frames[i]);
    }
    return index;
  }
  std::size_t widest = 0;
  for (std::size_t d = 1; d < dims_; ++d)
    if (upper[d] - lower[d] > upper[widest] - lower[widest]) widest = d;
  const std::size_t half = frames.size() / 2;
  std::nth_element(frames.begin(), frames.begin() + static_cast<std::ptrdiff_t>(half), frames.end(),
                   [&](std::uint32_t a, std::uint32_t b) {
                     const float fa = features_[std::size_t{a} * dims_ + widest];
                     const float fb = features_[std::size_t{b} * dims_ + widest];
                     return fa < fb || (fa == fb && a < b);
                   });
  const std::uint32_t left = build_node(frames.first(half), order);
  const std::uint32_t right = build_node(frames.subspan(half), order);
  nodes_[index].left = left, nodes_[index].right = right;
  return index;
}

// The squared distance from the query to the nearest point of the node's box.
float MotionDatabase::box_bound(std::uint32_t node, std::span<const float> query) const {
  const float* lower = box_lower_.data() + std::size_t{node} * dims_;
  const float* upper = box_upper_.data() + std::size_t{node} * dims_;
  float sum = 0;
  for (std::size_t d = 0; d < dims_; ++d) {
    const float e = std::max(std::max(lower[d] - query[d], query[d] - upper[d]), 0.0f);
    sum += e * e;
  }
  return sum;
}

MotionMatch MotionDatabase::search_tree(std::span<const float> query) const {
  const control_detail::MatchKernels& kernels = control_detail::match_kernels();
  control_detail::NearestArgs args{query.data(), blocks_.data(), block_frames_.data(), dims_, 0, 0,
                                   kInfinity,    kNoMotionFrame};
  MotionMatch match;
  struct Entry {
    std::uint32_t node;
    float bound;
  };
  // Depth first: a node pushes at most two children and pops itself, so the stack never holds
  // more than the tree's depth plus one (median splits: log2 of the frames over 16).
  Entry stack[128];
  int top = 0;
  stack[top++] = {0, box_bound(0, query)};
  match.boxes_tested = 1;
  while (top > 0) {
    const Entry e = stack[--top];
    if (cannot_beat(e.bound, args.best_distance)) continue;
    const Node& n = nodes_[e.node];
    if (n.left == 0) {
      args.first_block = n.first_block, args.block_count = n.block_count;
      kernels.nearest_in_blocks(args);
      match.frames_compared += n.block_count * 8;
      continue;
    }
    const float left = box_bound(n.left, query), right = box_bound(n.right, query);
    match.boxes_tested += 2;
    const bool left_first = left <= right;
    const Entry near{left_first ? n.left : n.right, left_first ? left : right};
    const Entry far{left_first ? n.right : n.left, left_first ? right : left};
    if (!cannot_beat(far.bound, args.best_distance)) stack[top++] = far;
    if (!cannot_beat(near.bound, args.best_distance)) stack[top++] = near;
  }
  match.frame = args.best_frame;
  match.distance = args.best_distance;
  return match;
}

MotionMatch MotionDatabase::search(std::span<const float> query, MotionSearchMode mode) const {
  MotionMatch none;
  if (query.size() != dims_ || nodes_.empty()) return none;
  for (float q : query)
    if (!std::isfinite(q)) return none;
  if (mode == MotionSearchMode::kBoxTree) return search_tree(query);
  control_detail::NearestArgs args{
      query.data(), blocks_.data(), block_frames_.data(), dims_, 0, block_frames_.size() / 8,
      kInfinity,    kNoMotionFrame};
  control_detail::match_kernels().nearest_in_blocks(args);
  none.frame = args.best_frame;
  none.distance = args.best_distance;
  none.frames_compared = static_cast<std::uint32_t>(block_frames_.size());
  return none;
}

Result<std::shared_ptr<const MotionDatabase>> MotionDatabase::from_features(
    std::size_t dims, std::span<const float> rows) {
  if (dims == 0 || rows.empty() || rows.size() % dims != 0)
    return make_error("motion database", "the rows must be a non-empty multiple of dims floats");
  if (rows.size() / dims >= kNoMotionFrame) return make_error("motion database", "too many frames");
  for (float v : rows)
    if (!std::isfinite(v)) return make_error("motion database", "a feature is not finite");
  auto db = std::make_shared<MotionDatabase>();
  db->dims_ = dims;
  db->offsets_.push_back(0);
  db->features_.assign(rows.begin(), rows.end());
  db->frames_.resize(rows.size() / dims, MotionFrame{kNoId, 0, 0, 0, 0, true});
  db->searchable_ = db->frames_.size();
  db->first_frame_of_clip_ = {0, static_cast<std::uint32_t>(db->frames_.size())};
  std::vector<std::uint32_t> group_of_dim(dims);
  for (std::size_t d = 0; d < dims; ++d) group_of_dim[d] = static_cast<std::uint32_t>(d);
  db->normalize_groups(group_of_dim);
  db->build_search_index();
  return std::shared_ptr<const MotionDatabase>(std::move(db));
}

std::size_t MotionDatabase::size_bytes() const {
  const std::size_t floats = features_.size() + blocks_.size() + box_lower_.size() +
                             box_upper_.size() + mean_.size() + scale_.size();
  return sizeof(*this) + floats * sizeof(float) + block_frames_.size() * 4 +
         nodes_.size() * sizeof(Node) + frames_.size() * sizeof(MotionFrame);
}

}  // namespace marrow
