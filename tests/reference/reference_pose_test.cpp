// marrow's poses against ../shared/reference: global transforms computed by an independent
// implementation (three.js) for every clip of every glTF asset, by the match criterion the
// reference README states (tests/support/reference_poses.h). Two of marrow's paths are held to
// them: the exact sampler (what `marrow pose` prints) and the runtime a game runs (a clip set
// with compiled clips, the Animator, structure-of-arrays local-to-model).
#include <gtest/gtest.h>

#include <cctype>
#include <memory>
#include <vector>

#include "marrow/control/animator.h"
#include "marrow/control/clip_set.h"
#include "marrow/io/asset.h"
#include "marrow/io/pose_dump.h"
#include "marrow/pose/local_to_model.h"
#include "marrow/skin/morph.h"
#include "reference_poses.h"
#include "shared_asset.h"

namespace marrow::test {
namespace {

namespace fs = std::filesystem;

class ReferencePose : public testing::TestWithParam<fs::path> {
 protected:
  void SetUp() override {
    std::string why;
    std::optional<ReferenceClip> r = read_reference(GetParam(), why);
    ASSERT_TRUE(r.has_value()) << why;
    ref_ = std::move(*r);
    asset_ = shared_asset("gltf/" + ref_.file, why);
    if (!asset_) GTEST_SKIP() << why;
    ASSERT_LT(ref_.clip_index, static_cast<int>(asset_->clips.size()));
    EXPECT_EQ(asset_->clips[ref_.clip_index].name(), ref_.clip);
    EXPECT_NEAR(asset_->clips[ref_.clip_index].duration(), ref_.duration, 1e-6);
  }

  // The skeleton joint of reference node n: by source index, else by name.
  JointIndex joint_of(std::size_t n) const {
    std::optional<JointIndex> joint = asset_->joint_of_source(ref_.nodes[n].index);
    if (!joint && ref_.nodes[n].name) joint = asset_->skeleton.find(*ref_.nodes[n].name);
    EXPECT_TRUE(joint.has_value()) << "reference node " << ref_.nodes[n].index << " is missing";
    return joint.value_or(0);
  }

  void expect_matches(std::size_t s, std::span<const Mat4> model) const {
    for (std::size_t n = 0; n < ref_.nodes.size(); ++n) {
      const std::string miss = reference_mismatch(ref_, s, n, model[joint_of(n)]);
      EXPECT_TRUE(miss.empty()) << miss;
    }
  }

  ReferenceClip ref_;
  const Asset* asset_ = nullptr;
};

TEST_P(ReferencePose, TheExactSamplerMatchesIndependentImplementation) {
  std::vector<float> times;
  for (const ReferenceClip::Sample& s : ref_.samples) times.push_back(s.t);
  const PoseSamples ours = sample_world(*asset_, ref_.clip_index, times);
  for (std::size_t s = 0; s < times.size(); ++s) expect_matches(s, ours.world[s]);
}

// The compiled clip's bound (0.1 mm on a character 1.8 m tall, by default) lies far inside the
// reference's criterion, so the runtime's poses must meet it as the exact ones do.
TEST_P(ReferencePose, TheCompiledRuntimeMatchesIndependentImplementation) {
  const Skeleton& skeleton = asset_->skeleton;
  ClipSetBuilder builder(skeleton);
  const MorphLayout morphs = MorphLayout::build(asset_->meshes);
  if (morphs.weight_count() > 0) {
    ASSERT_TRUE(builder.set_morph_layout(morphs).ok());
  }
  const Status added = builder.add_clip(asset_->clips[ref_.clip_index], {.compile = true});
  ASSERT_TRUE(added.ok()) << added.error().message;
  std::shared_ptr<const ClipSet> set = builder.build().value();
  Result<Animator> animator = Animator::create(set);
  ASSERT_TRUE(animator.ok()) << animator.error().message;
  AnimatorWorkspace workspace(*set);
  std::vector<SoaTransform> local(soa_group_count(skeleton.size()));
  std::vector<Mat4> model(skeleton.size());
  for (std::size_t s = 0; s < ref_.samples.size(); ++s) {
    animator->stop_all();
    ASSERT_TRUE(animator->play(0, {.start_offset = ref_.samples[s].t}).ok());
    ASSERT_TRUE(animator->evaluate(workspace, std::span<SoaTransform>(local)));
    const SoaLocalToModelJob to_model{.skeleton = &skeleton, .local = local, .model = model};
    ASSERT_TRUE(to_model.run());
    expect_matches(s, model);
  }
}

std::string test_name(const testing::TestParamInfo<fs::path>& info) {
  std::string name = info.param.stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Gltf, ReferencePose, testing::ValuesIn(reference_files()), test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(ReferencePose);

TEST(ReferencePoses, ArePresentOrSkipped) {
  if (reference_files().empty()) {
    GTEST_SKIP() << fs::path(MARROW_SHARED_DIR) / "reference"
                 << " is absent: reference tests skipped";
  }
  SUCCEED();
}

}  // namespace
}  // namespace marrow::test
