// The database's search: a tree of bounding boxes over the searchable frames (split at the median
// of the float of largest variance, leaves of 64 frames), searched depth first, nearer box first,
// pruning every box whose bound cannot beat the best frame so far. The leaves' frames are stored
// in blocks of 8 for the SIMD distance kernel (match_kernels.h), which brute force runs over
// every block.
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "control/match_dispatch.h"
#include "marrow/control/motion_database.h"

namespace marrow {
namespace {

constexpr float kInfinity = std::numeric_limits<float>::infinity();

// The float a node's frames are split on: the one of largest variance among them. (Splitting on
// the box's widest side let a few outlying frames choose; variance follows where most frames lie,
// and the tree's boxes test fewer of them per query: docs/motion_matching.md, "Speed".)
std::size_t split_axis(const float* rows, std::size_t dims, std::span<const std::uint32_t> frames) {
  std::vector<double> sum(dims, 0), squares(dims, 0);
  for (std::uint32_t f : frames) {
    const float* x = rows + std::size_t{f} * dims;
    for (std::size_t d = 0; d < dims; ++d) sum[d] += x[d], squares[d] += double{x[d]} * x[d];
  }
  std::size_t axis = 0;
  double widest = -1;
  for (std::size_t d = 0; d < dims; ++d) {
    const double spread = squares[d] - sum[d] * sum[d] / static_cast<double>(frames.size());
    if (spread > widest) widest = spread, axis = d;
  }
  return axis;
}

// A box is skipped only when its bound exceeds the best distance by more than the rounding of two
// sums of a few dozen floats can explain, so pruning never changes the answer.
bool cannot_beat(float bound, float best) {
  return bound > best * (1 + 1e-5f) + 1e-30f;
}

// The eigenvectors of a symmetric n x n matrix (row-major, destroyed) by cyclic Jacobi rotations,
// as rows of the result, by decreasing eigenvalue.
std::vector<double> principal_axes(std::vector<double>& a, std::size_t n) {
  std::vector<double> v(n * n, 0);
  for (std::size_t i = 0; i < n; ++i) v[i * n + i] = 1;
  for (int sweep = 0; sweep < 50; ++sweep) {
    double off = 0, diagonal = 0;
    for (std::size_t i = 0; i < n; ++i) {
      diagonal += a[i * n + i] * a[i * n + i];
      for (std::size_t j = i + 1; j < n; ++j) off += a[i * n + j] * a[i * n + j];
    }
    if (off <= 1e-22 * diagonal) break;
    for (std::size_t p = 0; p < n; ++p) {
      for (std::size_t q = p + 1; q < n; ++q) {
        const double apq = a[p * n + q];
        if (std::abs(apq) < 1e-300) continue;
        // The rotation by theta in the (p, q) plane that zeroes a[p][q].
        const double theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        const double t = (theta >= 0 ? 1 : -1) / (std::abs(theta) + std::sqrt(theta * theta + 1));
        const double c = 1 / std::sqrt(t * t + 1), s = t * c;
        for (std::size_t k = 0; k < n; ++k) {
          const double akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq, a[k * n + q] = s * akp + c * akq;
        }
        for (std::size_t k = 0; k < n; ++k) {
          const double apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk, a[q * n + k] = s * apk + c * aqk;
        }
        for (std::size_t k = 0; k < n; ++k) {
          const double vpk = v[p * n + k], vqk = v[q * n + k];
          v[p * n + k] = c * vpk - s * vqk, v[q * n + k] = s * vpk + c * vqk;
        }
      }
    }
  }
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return a[x * n + x] > a[y * n + y]; });
  std::vector<double> rows(n * n);
  for (std::size_t r = 0; r < n; ++r)
    for (std::size_t k = 0; k < n; ++k) rows[r * n + k] = v[order[r] * n + k];
  return rows;
}

}  // namespace

void MotionDatabase::rotate_query(std::span<const float> query, float* out) const {
  for (std::size_t r = 0; r < dims_; ++r) {
    const float* axis = basis_.data() + r * dims_;
    float sum = 0;
    for (std::size_t k = 0; k < dims_; ++k) sum += axis[k] * query[k];
    out[r] = sum;
  }
}

void MotionDatabase::build_search_index() {
  padded_dims_ = (dims_ + 7) / 8 * 8;
  std::vector<std::uint32_t> frames;
  for (std::uint32_t f = 0; f < frames_.size(); ++f)
    if (frames_[f].searchable) frames.push_back(f);
  // The covariance of the searchable frames, and its principal axes.
  std::vector<double> mean(dims_, 0), covariance(dims_ * dims_, 0);
  for (std::uint32_t f : frames)
    for (std::size_t d = 0; d < dims_; ++d) mean[d] += features(f)[d];
  for (double& m : mean) m /= static_cast<double>(std::max<std::size_t>(frames.size(), 1));
  for (std::uint32_t f : frames) {
    const std::span<const float> x = features(f);
    for (std::size_t i = 0; i < dims_; ++i)
      for (std::size_t j = 0; j < dims_; ++j)
        covariance[i * dims_ + j] += (x[i] - mean[i]) * (x[j] - mean[j]);
  }
  const std::vector<double> axes = principal_axes(covariance, dims_);
  basis_.assign(axes.begin(), axes.end());
  rotated_.assign(features_.size(), 0);
  for (std::uint32_t f : frames)
    rotate_query(features(f), rotated_.data() + std::size_t{f} * dims_);
  nodes_.clear(), box_lower_.clear(), box_upper_.clear();
  blocks_.clear(), block_frames_.clear();
  if (!frames.empty()) build_node(frames);
  rotated_ = {};
  slot_of_frame_.assign(frames_.size(), ~0u);
  for (std::size_t slot = 0; slot < block_frames_.size(); ++slot) {
    if (block_frames_[slot] != kNoMotionFrame) {
      slot_of_frame_[block_frames_[slot]] = static_cast<std::uint32_t>(slot);
    }
  }
}

// Appends the node for `frames` (and its subtree); returns its index. Leaves append their frames
// to the blocks, padded to a whole block with infinite frames.
std::uint32_t MotionDatabase::build_node(std::span<std::uint32_t> frames) {
  const std::uint32_t index = static_cast<std::uint32_t>(nodes_.size());
  nodes_.push_back({});
  box_lower_.resize(box_lower_.size() + padded_dims_, kInfinity);
  box_upper_.resize(box_upper_.size() + padded_dims_, -kInfinity);
  float* lower = box_lower_.data() + std::size_t{index} * padded_dims_;
  float* upper = box_upper_.data() + std::size_t{index} * padded_dims_;
  for (std::size_t d = dims_; d < padded_dims_; ++d) lower[d] = -kInfinity, upper[d] = kInfinity;
  for (std::uint32_t f : frames) {
    const float* x = rotated_.data() + std::size_t{f} * dims_;
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
      const float* x = rotated_.data() + std::size_t{frames[i]} * dims_;
      float* block = blocks_.data() + base + (i / 8) * 8 * dims_;
      for (std::size_t d = 0; d < dims_; ++d) block[d * 8 + i % 8] = x[d];
      block_frames_[std::size_t{nodes_[index].first_block} * 8 + i] = frames[i];
    }
    return index;
  }
  const std::size_t axis = split_axis(rotated_.data(), dims_, frames);
  // Near the median, on a whole number of leaves, so that every leaf but the last is full.
  const std::size_t half = (frames.size() / kLeafFrames + 1) / 2 * kLeafFrames;
  std::nth_element(frames.begin(), frames.begin() + static_cast<std::ptrdiff_t>(half), frames.end(),
                   [&](std::uint32_t a, std::uint32_t b) {
                     const float fa = rotated_[std::size_t{a} * dims_ + axis];
                     const float fb = rotated_[std::size_t{b} * dims_ + axis];
                     return fa < fb || (fa == fb && a < b);
                   });
  const std::uint32_t left = build_node(frames.first(half));
  const std::uint32_t right = build_node(frames.subspan(half));
  nodes_[index].left = left, nodes_[index].right = right;
  return index;
}

// The start frame's squared distance to the query, widened past what rounding can move (every
// term is a square, so the kernels' sums of the same terms in another order or with fused
// multiply-adds differ from it by a few float steps per dimension at most): no frame at or below
// the start's distance, the start included, is pruned by it. Infinite without a searchable start.
float MotionDatabase::start_bound(const float* query, std::uint32_t start) const {
  if (start >= slot_of_frame_.size() || slot_of_frame_[start] == ~0u) return kInfinity;
  const std::size_t slot = slot_of_frame_[start];
  const float* block = blocks_.data() + (slot / 8) * dims_ * 8 + slot % 8;
  double sum = 0;
  for (std::size_t d = 0; d < dims_; ++d) {
    const double diff = double{block[d * 8]} - double{query[d]};
    sum += diff * diff;
  }
  return static_cast<float>(sum * (1 + 1e-4)) + 1e-30f;
}

MotionMatch MotionDatabase::search_tree(const float* query, std::uint32_t leaf_budget,
                                        float bound) const {
  const control_detail::MatchKernels& kernels = control_detail::match_kernels();
  control_detail::NearestArgs args{query, blocks_.data(), block_frames_.data(), dims_, 0,
                                   0,     bound,          kNoMotionFrame};
  const auto box_bound = [&](std::uint32_t node) {
    const std::size_t at = std::size_t{node} * padded_dims_;
    return kernels.box_distance(box_lower_.data() + at, box_upper_.data() + at, query,
                                padded_dims_);
  };
  MotionMatch match;
  struct Entry {
    std::uint32_t node;
    float bound;
  };
  // Depth first: a node pushes at most two children and pops itself, so the stack never holds
  // more than the tree's depth plus one (median splits: log2 of the frames over 32).
  Entry stack[128];
  int top = 0;
  stack[top++] = {0, box_bound(0)};
  match.boxes_tested = 1;
  while (top > 0) {
    const Entry e = stack[--top];
    if (cannot_beat(e.bound, args.best_distance)) continue;
    const Node& n = nodes_[e.node];
    if (n.left == 0) {
      args.first_block = n.first_block, args.block_count = n.block_count;
      kernels.nearest_in_blocks(args);
      match.frames_compared += n.block_count * 8;
      if (leaf_budget != 0 && --leaf_budget == 0) {
        for (int i = 0; i < top; ++i)
          if (!cannot_beat(stack[i].bound, args.best_distance)) match.exact = false;
        break;
      }
      continue;
    }
    const float left = box_bound(n.left), right = box_bound(n.right);
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

MotionMatch MotionDatabase::search(std::span<const float> query, MotionSearchMode mode,
                                   std::uint32_t leaf_budget, std::uint32_t start) const {
  MotionMatch none;
  if (query.size() != dims_ || nodes_.empty()) return none;
  for (float q : query)
    if (!std::isfinite(q)) return none;
  alignas(32) float padded[kMaxMotionDims] = {};
  rotate_query(query, padded);
  if (mode == MotionSearchMode::kBoxTree) {
    const float bound = start_bound(padded, start);
    MotionMatch match = search_tree(padded, leaf_budget, bound);
    // Only a leaf budget can stop before the start's own block: the start is then the answer.
    if (match.frame == kNoMotionFrame && bound < kInfinity) {
      match.frame = start;
      match.distance = bound;
    }
    return match;
  }
  control_detail::NearestArgs args{
      padded,    blocks_.data(), block_frames_.data(), dims_, 0, block_frames_.size() / 8,
      kInfinity, kNoMotionFrame};
  control_detail::match_kernels().nearest_in_blocks(args);
  none.frame = args.best_frame;
  none.distance = args.best_distance;
  none.frames_compared = static_cast<std::uint32_t>(block_frames_.size());
  return none;
}

Result<std::shared_ptr<const MotionDatabase>> MotionDatabase::from_features(
    std::size_t dims, std::span<const float> rows, bool normalize) {
  if (dims == 0 || dims > kMaxMotionDims || rows.empty() || rows.size() % dims != 0)
    return make_error("motion database",
                      "the rows must be a non-empty multiple of dims floats, dims at most " +
                          std::to_string(kMaxMotionDims));
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
  if (normalize) {
    db->normalize_groups(group_of_dim);
  } else {
    db->mean_.assign(dims, 0), db->scale_.assign(dims, 1);
  }
  db->build_search_index();
  return std::shared_ptr<const MotionDatabase>(std::move(db));
}

std::size_t MotionDatabase::size_bytes() const {
  const std::size_t floats = features_.size() + blocks_.size() + box_lower_.size() +
                             box_upper_.size() + mean_.size() + scale_.size();
  return sizeof(*this) + floats * sizeof(float) +
         (block_frames_.size() + slot_of_frame_.size()) * 4 + nodes_.size() * sizeof(Node) +
         frames_.size() * sizeof(MotionFrame);
}

}  // namespace marrow
