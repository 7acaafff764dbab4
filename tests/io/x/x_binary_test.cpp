// Binary .X built token by token in the test (and MSZIP-compressed text and binary): they must
// read exactly as their text twin kMiniText does.
#include <random>

#include "x_test_util.h"

namespace marrow::xtest {
namespace {

// kMiniText, token for token. Numbers are grouped into lists the way writers do, with a few
// single TOKEN_INTEGERs and a DWORD string terminator mixed in.
struct MiniBinary {
  std::vector<std::uint8_t> bytes;
  std::size_t face_list = 0;                   // where the mesh's face integer list starts
  std::size_t frame_begin = 0, frame_end = 0;  // Frame Hip, from its name token to after '}'
  std::size_t set_begin = 0, set_end = 0;      // AnimationSet Walk, the same
};

MiniBinary mini_binary(bool float64 = false) {
  BinaryWriter w(float64);
  MiniBinary out;
  // template Foo { <guid> DWORD a; array FLOAT b[a]; [...] }
  w.token(31).name("Foo").open().guid();
  w.token(41).name("a").semicolon();
  w.token(52).token(42).name("b").token(14).name("a").token(15).semicolon();
  w.token(14).token(18).token(18).token(18).token(15).close();
  w.object("Header").integers({1, 0, 1}).close();
  out.frame_begin = w.bytes().size();
  w.object("Frame", "Hip");
  w.object("FrameTransformMatrix").floats({1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1}).close();
  w.object("Frame", "Knee");
  w.object("FrameTransformMatrix")
      .floats({0, 1, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1})
      .close();
  w.close();  // Knee
  w.object("Mesh", "Body").integers({5});
  w.floats({0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1});
  out.face_list = w.bytes().size();
  w.integers({2, 4, 0, 1, 2, 3, 3, 0, 1, 4});
  w.object("MeshNormals").integers({2}).floats({0, 0, 1, 0, 1, 0});
  w.integers({2, 4, 0, 0, 0, 0, 3, 1, 1, 1}).close();
  w.object("MeshTextureCoords").integer(5).floats({0, 0, 1, 0, 1, 1, 0, 1, 0.5, 0.5}).close();
  w.object("MeshMaterialList").integers({1, 2, 0, 0});
  w.object("Material").floats({1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0}).close();
  w.close();
  w.object("XSkinMeshHeader").integers({2, 4, 2}).close();
  w.object("SkinWeights").string("Hip").integers({3, 0, 1, 4});
  w.floats({1.0, 0.25, 0.5, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, -1, -2, -3, 1}).close();
  w.object("SkinWeights").string("Knee", true).integer(2).integers({1, 4});
  w.floats({0.75, 0.5, 0, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, -1, 1, -3, 1}).close();
  w.close();  // Mesh
  w.close();  // Hip
  out.frame_end = w.bytes().size();
  w.object("AnimTicksPerSecond").integers({30}).close();
  out.set_begin = w.bytes().size();
  w.object("AnimationSet", "Walk");
  w.object("Animation", "KneeAnim").reference("Knee");
  w.object("AnimationOptions").integers({1, 0}).close();
  w.object("AnimationKey").integers({0, 2, 0, 4}).floats({1, 0, 0, 0});
  w.integers({30, 4}).floats({0.7071068, 0, 0, -0.7071068}).close();
  w.object("AnimationKey").integers({2, 2, 0, 3}).floats({0, -1, 0});
  w.integer(60).integer(3).floats({0, -2, 0}).close();
  w.close();  // KneeAnim
  w.object("Animation").reference("Hip");
  w.object("AnimationKey")
      .integers({4, 2, 0, 16})
      .floats({1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1});
  w.integers({15, 16}).floats({2, 0, 0, 0, 0, 0, 2, 0, 0, -2, 0, 0, 5, 6, 7, 1}).close();
  w.close();  // Animation
  w.close();  // Walk
  out.set_end = w.bytes().size();
  out.bytes = w.bytes();
  return out;
}

void expect_same_asset(const Asset& a, const Asset& b) {
  ASSERT_EQ(a.skeleton.size(), b.skeleton.size());
  for (std::size_t j = 0; j < a.skeleton.size(); ++j) {
    EXPECT_EQ(a.skeleton.name(j), b.skeleton.name(j));
    EXPECT_EQ(a.skeleton.parent(j), b.skeleton.parent(j));
    EXPECT_EQ(a.skeleton.rest_pose()[j], b.skeleton.rest_pose()[j]) << j;
  }
  ASSERT_EQ(a.meshes.size(), b.meshes.size());
  for (std::size_t m = 0; m < a.meshes.size(); ++m) {
    const SkinnedMesh& x = a.meshes[m];
    const SkinnedMesh& y = b.meshes[m];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.node, y.node);
    EXPECT_EQ(x.skin, y.skin);
    EXPECT_EQ(x.positions, y.positions);
    EXPECT_EQ(x.normals, y.normals);
    EXPECT_EQ(x.uvs, y.uvs);
    EXPECT_EQ(x.indices, y.indices);
    EXPECT_EQ(x.influence_offsets, y.influence_offsets);
    EXPECT_EQ(x.influence_joints, y.influence_joints);
    EXPECT_EQ(x.influence_weights, y.influence_weights);
  }
  ASSERT_EQ(a.skins.size(), b.skins.size());
  for (std::size_t s = 0; s < a.skins.size(); ++s) {
    EXPECT_EQ(a.skins[s].joints, b.skins[s].joints);
    EXPECT_EQ(a.skins[s].inverse_bind_matrices, b.skins[s].inverse_bind_matrices);
  }
  ASSERT_EQ(a.clips.size(), b.clips.size());
  for (std::size_t c = 0; c < a.clips.size(); ++c) {
    const Clip& x = a.clips[c];
    const Clip& y = b.clips[c];
    EXPECT_EQ(x.name(), y.name());
    EXPECT_EQ(x.duration(), y.duration());
    EXPECT_EQ(x.ticks_per_second(), y.ticks_per_second());
    ASSERT_EQ(x.tracks().size(), y.tracks().size());
    EXPECT_TRUE(std::equal(x.times().begin(), x.times().end(), y.times().begin(), y.times().end()));
    ASSERT_EQ(x.values().size(), y.values().size());
    for (std::size_t i = 0; i < x.values().size(); ++i) {
      EXPECT_NEAR(x.values()[i], y.values()[i], 1e-7) << "clip value " << i;
    }
    EXPECT_TRUE(std::equal(x.track_joint_names().begin(), x.track_joint_names().end(),
                           y.track_joint_names().begin(), y.track_joint_names().end()));
  }
}

Asset must_read(const std::vector<std::uint8_t>& bytes) {
  Result<Asset> r = read_bytes(bytes);
  EXPECT_TRUE(r.ok()) << r.error().message;
  return r.ok() ? std::move(r).value() : Asset{};
}

std::vector<std::uint8_t> to_bytes(const std::string& s) {
  return {s.begin(), s.end()};
}

TEST(XBinary, ReadsLikeItsTextTwin) {
  const Asset text = must_read(to_bytes(kMiniText));
  const Asset bin = must_read(mini_binary().bytes);
  expect_same_asset(bin, text);
  ASSERT_EQ(bin.clips.size(), 1u);
  EXPECT_EQ(bin.clips[0].ticks_per_second(), 30.0);
  EXPECT_EQ(bin.skins.size(), 1u);
}

TEST(XBinary, SixtyFourBitFloats) {
  const Asset text = must_read(to_bytes(kMiniText));
  const Asset bin = must_read(mini_binary(true).bytes);
  expect_same_asset(bin, text);
}

TEST(XBinary, ErrorsNameTheByteOffset) {
  MiniBinary mini = mini_binary();
  // Face 1's last index (element 9 of the list) becomes 7, past the 5 vertices.
  const std::size_t element = mini.face_list + 2 + 4 + 9 * 4;
  mini.bytes[element] = 7;
  Result<Asset> r = read_bytes(mini.bytes);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "mini.x: byte " + std::to_string(element) +
                                   ": Mesh 'Body': face 1 uses vertex 7, out of range: the mesh "
                                   "has 5 vertices");
}

TEST(XBinary, TruncationInsideAnObjectIsAnError) {
  const MiniBinary mini = mini_binary();
  std::size_t errors = 0;
  for (std::size_t n = 16; n < mini.bytes.size(); ++n) {
    const std::vector<std::uint8_t> cut(mini.bytes.begin(),
                                        mini.bytes.begin() + static_cast<std::ptrdiff_t>(n));
    Result<Asset> r = read_bytes(cut);
    const bool inside =
        (n > mini.frame_begin && n < mini.frame_end) || (n > mini.set_begin && n < mini.set_end);
    if (inside) {
      ASSERT_FALSE(r.ok()) << "cut at " << n;
    }
    if (!r.ok()) {
      ++errors;
      EXPECT_EQ(r.error().message.rfind("mini.x: byte ", 0), 0u) << r.error().message;
    }
  }
  EXPECT_GT(errors, mini.bytes.size() / 2);
}

TEST(XBinary, ListsLongerThanTheFileAreRefused) {
  BinaryWriter w;
  w.object("Frame", "A").object("FrameTransformMatrix").word(7).dword(0x40000000u);
  Result<Asset> r = read_bytes(w.bytes());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("a float list runs past the end of the file"), std::string::npos)
      << r.error().message;
}

TEST(XBinary, UnknownTokenIsAnError) {
  BinaryWriter w;
  w.object("Frame", "A").word(99);
  Result<Asset> r = read_bytes(w.bytes());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message,
            "mini.x: byte " + std::to_string(w.bytes().size() - 2) + ": unknown binary token 99");
}

TEST(XCompressed, TextAndBinaryInflateAcrossBlocks) {
  const std::vector<std::uint8_t> text = to_bytes(kMiniText);
  const Asset plain = must_read(text);
  // Small blocks so that later blocks refer back into earlier ones through the dictionary.
  for (std::size_t block : {64u, 500u, 32768u}) {
    const std::vector<std::uint8_t> tzip = mszip(text, block);
    ASSERT_EQ(std::string(tzip.begin() + 8, tzip.begin() + 12), "tzip");
    expect_same_asset(must_read(tzip), plain);
    const std::vector<std::uint8_t> bzip = mszip(mini_binary().bytes, block);
    ASSERT_EQ(std::string(bzip.begin() + 8, bzip.begin() + 12), "bzip");
    expect_same_asset(must_read(bzip), plain);
  }
}

TEST(XCompressed, ErrorsInTheInflatedTextNameItsLine) {
  const std::string text = replaced(kMiniText, "3;0,1,4;;", "3;0,1,9;;");
  Result<Asset> r = read_bytes(mszip(to_bytes(text), 100));
  ASSERT_FALSE(r.ok());
  const std::string line = std::to_string(line_of(text, "3;0,1,9;;"));
  EXPECT_EQ(r.error().message.rfind("mini.x:" + line + " (decompressed): Mesh 'Body'", 0), 0u)
      << r.error().message;
}

TEST(XCompressed, DamagedStreamsAreErrors) {
  const std::vector<std::uint8_t> good = mszip(to_bytes(kMiniText), 256);
  // The signature of the first block.
  std::vector<std::uint8_t> bad = good;
  bad[24] = 'X';
  Result<Asset> r = read_bytes(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "mini.x: byte 24: compressed block lacks its 'CK' signature");
  // A block that claims more output than its data holds.
  bad = good;
  bad[20] = 0xff;
  bad[21] = 0x7f;
  r = read_bytes(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("compressed block is damaged"), std::string::npos)
      << r.error().message;
  // A compressed size past the end.
  bad = good;
  bad[22] = 0xff;
  bad[23] = 0xff;
  r = read_bytes(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("does not fit"), std::string::npos) << r.error().message;
  // Garbage deflate data.
  bad = good;
  for (std::size_t i = 26; i < 40; ++i) bad[i] ^= 0x5a;
  r = read_bytes(bad);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("mini.x:", 0), 0u) << r.error().message;
}

TEST(XBinary, RandomDamageNeverCrashes) {
  std::mt19937 rng(99);
  const std::vector<std::uint8_t> plain = mini_binary().bytes;
  const std::vector<std::uint8_t> packed = mszip(plain, 128);
  for (const std::vector<std::uint8_t>* source : {&plain, &packed}) {
    for (int round = 0; round < 2000; ++round) {
      std::vector<std::uint8_t> bytes = *source;
      const int edits = 1 + static_cast<int>(rng() % 4);
      for (int e = 0; e < edits; ++e) {
        const std::size_t at = 16 + rng() % (bytes.size() - 16);
        switch (rng() % 3) {
          case 0:
            bytes[at] = static_cast<std::uint8_t>(rng());
            break;
          case 1:
            bytes[at] = static_cast<std::uint8_t>(rng() % 60);  // mostly valid token ids
            break;
          default:
            bytes[at] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
            break;
        }
      }
      Result<Asset> r = read_bytes(bytes, "fuzz.x");
      if (!r.ok()) {
        EXPECT_EQ(r.error().message.rfind("fuzz.x", 0), 0u) << r.error().message;
      }
    }
  }
}

// DeclData as binary writers store it: one integer list holding the declaration, the DWORD
// count and the data (floats as their bits: 1065353216 = 1.0). A FLOAT3 tangent without a
// binormal takes the handedness +1.
TEST(XBinary, DeclDataTangentsFromAnIntegerList) {
  BinaryWriter w;
  w.object("Frame", "Root");
  w.object("Mesh", "Tri").integers({3});
  w.floats({0, 0, 0, 1, 0, 0, 0, 1, 0});
  w.integers({1, 3, 0, 1, 2});
  w.object("DeclData")
      .integers({1, 2, 0, 6, 0, 9, 1065353216, 0, 0, 0, 1065353216, 0, 1065353216, 0, 0})
      .close();
  w.close();  // Mesh
  w.close();  // Frame
  Result<Asset> r = read_bytes(w.bytes());
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->meshes.size(), 1u);
  const SkinnedMesh& m = r->meshes[0];
  ASSERT_EQ(m.tangents.size(), 3u);
  EXPECT_EQ(m.tangents[0], (std::array<float, 4>{1, 0, 0, 1}));
  EXPECT_EQ(m.tangents[1], (std::array<float, 4>{0, 1, 0, 1}));
  EXPECT_EQ(m.tangents[2], (std::array<float, 4>{1, 0, 0, 1}));
}

}  // namespace
}  // namespace marrow::xtest
