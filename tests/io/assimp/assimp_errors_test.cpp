// Bad input through assimp: a clear error naming the file, never a crash. Also the key fixes
// this layer makes (duplicate times, quaternion order) on small hand-written Collada files.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "assimp_test_util.h"

namespace marrow {
namespace {

using test::asset_path;

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::span<const std::uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

TEST(AssimpErrors, MissingFileNamesIt) {
  const Result<Asset> a = read_assimp("/nonexistent/dir/ghost.fbx");
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.error().message.find("ghost.fbx"), std::string::npos) << a.error().message;
}

TEST(AssimpErrors, TruncatedFbxGivesAssimpsMessage) {
  const std::string path = asset_path("fbx/walk.fbx");
  MARROW_REQUIRE_ASSET(path);
  const std::vector<std::uint8_t> bytes = read_bytes(path);
  ASSERT_GT(bytes.size(), 4096u);
  for (std::size_t size : {std::size_t{0}, std::size_t{10}, std::size_t{27}, std::size_t{100},
                           bytes.size() / 3, bytes.size() - 200}) {
    const Result<Asset> a =
        read_assimp(std::span<const std::uint8_t>(bytes.data(), size), "cut_walk.fbx");
    if (a.ok()) continue;  // a cut at the tail may leave a readable file; it must not crash
    EXPECT_EQ(a.error().message.rfind("cut_walk.fbx", 0), 0u) << a.error().message;
    if (size > 0) {
      EXPECT_NE(a.error().message.find("assimp"), std::string::npos) << a.error().message;
    }
  }
  // A cut in the header is an error, not an empty asset.
  EXPECT_FALSE(read_assimp(std::span<const std::uint8_t>(bytes.data(), 27), "cut_walk.fbx").ok());
}

TEST(AssimpErrors, TruncatedColladaOnDisk) {
  const std::string path = asset_path("collada/pab/walk.dae");
  MARROW_REQUIRE_ASSET(path);
  const std::vector<std::uint8_t> bytes = read_bytes(path);
  const std::string out = testing::TempDir() + "truncated_walk.dae";
  {
    std::ofstream f(out, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size() / 2));
  }
  const Result<Asset> a = read_assimp(out);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.error().message.rfind(out + ": assimp: ", 0), 0u) << a.error().message;
}

TEST(AssimpErrors, GarbageIsRejected) {
  const std::string junk = "this is not an FBX file at all\n\x01\x02\x03";
  for (const char* name : {"junk.fbx", "junk.dae", "junk.smd", "junk.md5mesh"}) {
    const Result<Asset> a = read_assimp(as_bytes(junk), name);
    ASSERT_FALSE(a.ok()) << name;
    EXPECT_EQ(a.error().message.rfind(name, 0), 0u) << a.error().message;
  }
  EXPECT_FALSE(read_assimp(std::span<const std::uint8_t>(), "empty.fbx").ok());
}

// A two-joint Collada file whose animation repeats the time 1.0. assimp's Collada loader
// resamples every channel at the union of its distinct input times, so the duplicate never
// reaches us: it keeps the value of the FIRST key at t = 1 (10 degrees, not 20). Our layer's
// merge (keep the last, warn) handles importers that do pass duplicates on.
const char* const kTinyCollada = R"(<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
  <asset><unit meter="1" name="meter"/><up_axis>Y_UP</up_axis></asset>
  <library_animations>
    <animation id="b-anim">
      <source id="b-in"><float_array id="b-in-a" count="4">0 1 1 2</float_array>
        <technique_common><accessor source="#b-in-a" count="4" stride="1"><param name="TIME" type="float"/></accessor></technique_common></source>
      <source id="b-out"><float_array id="b-out-a" count="4">0 10 20 30</float_array>
        <technique_common><accessor source="#b-out-a" count="4" stride="1"><param name="ANGLE" type="float"/></accessor></technique_common></source>
      <source id="b-interp"><Name_array id="b-interp-a" count="4">LINEAR LINEAR LINEAR LINEAR</Name_array>
        <technique_common><accessor source="#b-interp-a" count="4" stride="1"><param name="INTERPOLATION" type="name"/></accessor></technique_common></source>
      <sampler id="b-sampler"><input semantic="INPUT" source="#b-in"/><input semantic="OUTPUT" source="#b-out"/><input semantic="INTERPOLATION" source="#b-interp"/></sampler>
      <channel source="#b-sampler" target="b/rotZ.ANGLE"/>
    </animation>
  </library_animations>
  <library_visual_scenes>
    <visual_scene id="scene">
      <node id="a" name="a" type="JOINT"><translate>1 2 3</translate>
        <node id="b" name="b" type="JOINT"><translate>0 1 0</translate><rotate sid="rotZ">0 0 1 0</rotate></node>
      </node>
    </visual_scene>
  </library_visual_scenes>
  <scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
)";

TEST(AssimpKeys, ColladaDuplicateTimesArriveStrictlyIncreasing) {
  const Result<Asset> r = read_assimp(as_bytes(kTinyCollada), "tiny.dae");
  ASSERT_TRUE(r.ok()) << r.error().message;
  const Asset& a = r.value();
  ASSERT_TRUE(a.skeleton.find("b"));
  const JointIndex b = *a.skeleton.find("b");
  EXPECT_NEAR(a.skeleton.rest_pose()[*a.skeleton.find("a")].translation.z, 3.0f, 1e-6f);
  ASSERT_EQ(a.clips.size(), 1u);
  const Clip& clip = a.clips[0];
  const Track* rot = nullptr;
  for (const Track& t : clip.tracks())
    if (t.joint == b && t.target == TrackTarget::kRotation) rot = &t;
  ASSERT_NE(rot, nullptr);
  // Strictly increasing after the merge: 0, 1, 2 seconds.
  ASSERT_EQ(rot->key_count, 3u);
  EXPECT_FLOAT_EQ(clip.times()[rot->first_key + 1], 1.0f);
  // assimp kept the first key written at t = 1: 10 degrees about z.
  const float* q = &clip.values()[rot->first_value + 4];
  const float half = 10.0f * 3.14159265f / 360.0f;
  EXPECT_NEAR(q[2], std::sin(half), 1e-5f);  // z
  EXPECT_NEAR(q[3], std::cos(half), 1e-5f);  // w: marrow's x, y, z, w order
}

}  // namespace
}  // namespace marrow
