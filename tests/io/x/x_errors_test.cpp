// Broken and hostile .X input: every error names the file and the line (text) or the byte
// (binary); nothing crashes, hangs or allocates by a count the file cannot back.
#include <random>

#include "x_test_util.h"

namespace marrow::xtest {
namespace {

// Reads `text` expecting an error; returns its message.
std::string error_of(const std::string& text, const std::string& name = "mini.x") {
  Result<Asset> r = read_text(text, name);
  EXPECT_FALSE(r.ok()) << "no error for:\n" << text.substr(0, 400);
  return r.ok() ? std::string() : r.error().message;
}

std::string at_line(std::size_t line) {
  return "mini.x:" + std::to_string(line) + ": ";
}

TEST(XErrors, UnknownKeyType) {
  const std::string text =
      replaced(kMiniText, "      0;\n      2;\n      0;4;", "      7;\n      2;\n      0;4;");
  const std::size_t line = line_of(text, "      7;\n");
  EXPECT_EQ(error_of(text), at_line(line) + "AnimationKey type 7 is unknown");
}

TEST(XErrors, KeyTypeThreeIsAMatrixNeedingSixteenValues) {
  // The DirectX documentation calls the matrix key 3; writers use 4. Both read as matrices.
  const std::string text =
      replaced(kMiniText, "      4;\n      2;\n      0;16;", "      3;\n      2;\n      0;16;");
  Result<Asset> r = read_text(text);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->clips[0].tracks().size(), 5u);
  const std::string bad = replaced(kMiniText, "      2;\n      2;\n      0;3;0,-1,0",
                                   "      3;\n      2;\n      0;3;0,-1,0");
  EXPECT_EQ(error_of(bad), at_line(line_of(bad, "      0;3;0,-1,0")) +
                               "AnimationKey key 0 has 3 values; a matrix key has 16");
}

TEST(XErrors, TruncatedFile) {
  // Cut inside the mesh, inside the frame hierarchy, inside an AnimationKey, inside a string.
  for (const char* cut : {"    MeshNormals {", "  Frame Knee {", "      30;4;", "\"Knee\""}) {
    const std::size_t at = kMiniText.find(cut) + std::string_view(cut).size() - 2;
    const std::string message = error_of(kMiniText.substr(0, at));
    EXPECT_EQ(message.rfind("mini.x:", 0), 0u) << message;
    EXPECT_TRUE(message.find("end of the file") != std::string::npos ||
                message.find("not closed") != std::string::npos)
        << message;
  }
}

TEST(XErrors, TooFewVerticesForTheirCount) {
  // Six vertices declared, five written: the face count is read as a coordinate and what is
  // left over cannot be faces.
  const std::string text = replaced(kMiniText, "    5;\n    0;0;0;", "    6;\n    0;0;0;");
  const std::string message = error_of(text);
  EXPECT_EQ(message.rfind("mini.x:", 0), 0u) << message;
  EXPECT_NE(message.find("Mesh 'Body'"), std::string::npos) << message;
}

TEST(XErrors, MoreWeightsThanTheCountSays) {
  // Two weights declared in "Hip" but three written: the third index is read as a weight, and
  // the matrix has two numbers too many.
  const std::string text =
      replaced(kMiniText, "      \"Hip\";\n      3;", "      \"Hip\";\n      2;");
  const std::string message = error_of(text);
  EXPECT_NE(message.find("has more data than its counts say"), std::string::npos) << message;
  EXPECT_EQ(message.rfind("mini.x:", 0), 0u) << message;
}

TEST(XErrors, FewerWeightsThanTheCountSays) {
  const std::string text =
      replaced(kMiniText, "      \"Hip\";\n      3;", "      \"Hip\";\n      4;");
  // The first weight (1.0) is read as a fourth vertex index.
  EXPECT_EQ(error_of(text), at_line(line_of(text, "      1.0, 0.25")) +
                                "SkinWeights 'Hip': expected a vertex index, found the number "
                                "1.0");
}

TEST(XErrors, FewerKeysThanTheCountSays) {
  const std::string text =
      replaced(kMiniText, "      2;\n      0;4;1,0,0,0;;,", "      3;\n      0;4;1,0,0,0;;,");
  const std::size_t line = line_of(text, "}", text.find("30;4;0.7071068"));
  EXPECT_EQ(error_of(text), at_line(line) +
                                "AnimationKey: expected a key time, found '}' (the data is "
                                "shorter than its counts say)");
}

TEST(XErrors, WrongValueCountForTheKeyType) {
  const std::string text = replaced(kMiniText, "30;4;0.7071068", "30;3;0.7071068");
  EXPECT_EQ(error_of(text), at_line(line_of(text, "30;3;")) +
                                "AnimationKey key 1 has 3 values; a rotation key has 4");
}

TEST(XErrors, UnknownFrameReference) {
  const std::string text = replaced(kMiniText, "{ Knee }", "{ Nope }");
  EXPECT_EQ(error_of(text), at_line(line_of(text, "{ Nope }")) +
                                "Animation 'KneeAnim' refers to frame 'Nope', which the file "
                                "does not have");
}

TEST(XErrors, AnimationWithoutAFrame) {
  const std::string text = replaced(kMiniText, "    { Hip }\n", "");
  const std::string message = error_of(text);
  EXPECT_NE(message.find("names no frame"), std::string::npos) << message;
}

TEST(XErrors, AnimationWithTwoFrames) {
  const std::string text = replaced(kMiniText, "    { Hip }\n", "    { Hip }\n    { Knee }\n");
  EXPECT_EQ(error_of(text), at_line(line_of(text, "    { Knee }\n", text.find("{ Hip }"))) +
                                "Animation names a second frame 'Knee' after 'Hip'");
}

TEST(XErrors, RepeatedKeyTime) {
  const std::string text = replaced(kMiniText, "60;3;0,-2,0", "0;3;0,-2,0");
  EXPECT_EQ(error_of(text), at_line(line_of(text, "      0;3;0,-2,0")) +
                                "AnimationKey key 1 is at tick 0, not after the previous key's "
                                "tick 0 (times must increase)");
}

TEST(XErrors, BackwardKeyTime) {
  const std::string text = replaced(kMiniText, "15;16;2,0,0,0", "0;16;2,0,0,0");
  const std::string message = error_of(replaced(text, "      0;16;1,0,0,0", "      9;16;1,0,0,0"));
  EXPECT_NE(message.find("is at tick 0, not after the previous key's tick 9"), std::string::npos)
      << message;
}

TEST(XErrors, TwoTracksForOneChannel) {
  // A second position key block for Knee in the same set.
  const std::string text = replaced(kMiniText, "    { Hip }\n", "    { Knee }\n");
  const std::size_t second =
      line_of(text, "AnimationKey", text.find("{ Knee }", text.find("KneeAnim") + 20));
  // The matrix key gives translation first, which KneeAnim's position key (its second
  // AnimationKey) already animates.
  const std::size_t rotation_key = text.find("AnimationKey", text.find("KneeAnim"));
  const std::size_t first = line_of(text, "AnimationKey", rotation_key + 1);
  EXPECT_EQ(error_of(text), at_line(second) +
                                "AnimationKey for frame 'Knee' animates its translation a second "
                                "time in this set (first at mini.x:" +
                                std::to_string(first) + ")");
}

TEST(XErrors, FaceIndexOutOfRange) {
  const std::string text = replaced(kMiniText, "3;0,1,4;;", "3;0,1,5;;");
  EXPECT_EQ(error_of(text), at_line(line_of(text, "3;0,1,5;;")) +
                                "Mesh 'Body': face 1 uses vertex 5, out of range: the mesh has 5 "
                                "vertices");
}

TEST(XErrors, NormalIndexOutOfRangeAndFaceMismatch) {
  std::string text = replaced(kMiniText, "3;1,1,1;;", "3;1,1,2;;");
  EXPECT_NE(error_of(text).find("uses normal 2, out of range"), std::string::npos);
  text = replaced(kMiniText, "3;1,1,1;;", "4;1,1,1,1;;");
  EXPECT_NE(error_of(text).find("has 4 normal indices but the Mesh face has 3"), std::string::npos);
}

TEST(XErrors, TextureCoordinateCountMustMatchVertices) {
  const std::string text = replaced(kMiniText, "MeshTextureCoords { 5;", "MeshTextureCoords { 4;");
  EXPECT_NE(error_of(text).find("has 4 coordinates but its Mesh has 5 vertices"),
            std::string::npos);
}

TEST(XErrors, HugeCountsAreRefusedBeforeAllocating) {
  const std::string text = replaced(kMiniText, "    5;\n    0;0;0;", "    4000000000;\n    0;0;0;");
  const std::string message = error_of(text);
  EXPECT_EQ(message.rfind(at_line(line_of(text, "4000000000")), 0), 0u) << message;
  EXPECT_NE(message.find("cannot fit"), std::string::npos) << message;
  const std::string keys = replaced(kMiniText, "      0;\n      2;\n      0;4;",
                                    "      0;\n      4294967295;\n      0;4;");
  EXPECT_NE(error_of(keys).find("cannot fit"), std::string::npos);
}

TEST(XErrors, NegativeAndOutOfRangeCounts) {
  EXPECT_NE(error_of(replaced(kMiniText, "    5;\n", "    -5;\n")).find("out of range"),
            std::string::npos);
  EXPECT_NE(error_of(replaced(kMiniText, "    5;\n", "    99999999999;\n")).find("out of range"),
            std::string::npos);
}

TEST(XErrors, NegativeWeight) {
  const std::string text = replaced(kMiniText, "1.0, 0.25, 0.5;", "1.0, -0.25, 0.5;");
  EXPECT_EQ(error_of(text), at_line(line_of(text, "-0.25")) +
                                "SkinWeights for frame 'Hip': negative weight -0.250000");
}

TEST(XErrors, NotANumber) {
  const std::string text = replaced(kMiniText, "0;0;1;, 0;1;0;;", "0;0;1.#QNAN0;, 0;1;0;;");
  const std::string message = error_of(text);
  EXPECT_EQ(message.rfind(at_line(line_of(text, "1.#QNAN0")), 0), 0u) << message;
  EXPECT_NE(message.find("'1.#QNAN0'"), std::string::npos) << message;
  EXPECT_NE(error_of(replaced(kMiniText, "1,2,3,1;;", "1,2,1e999,1;;")).find("not a finite"),
            std::string::npos);
}

TEST(XErrors, ZeroTicksPerSecond) {
  const std::string text =
      replaced(kMiniText, "AnimTicksPerSecond { 30; }", "AnimTicksPerSecond { 0; }");
  EXPECT_EQ(error_of(text),
            at_line(line_of(text, "AnimTicksPerSecond { 0; }")) + "AnimTicksPerSecond is 0");
}

TEST(XErrors, ZeroQuaternion) {
  const std::string text = replaced(kMiniText, "0;4;1,0,0,0;;,", "0;4;0,0,0,0;;,");
  EXPECT_NE(error_of(text).find("the rotation quaternion has zero length"), std::string::npos);
}

TEST(XErrors, HeaderProblems) {
  EXPECT_EQ(error_of("xof 03"), "mini.x: byte 0: too short for the 16-byte .X header");
  EXPECT_EQ(error_of("glTF 0303txt 0032\n"),
            "mini.x: byte 0: not a DirectX .X file (no 'xof ' magic)");
  EXPECT_EQ(error_of("xof 0303abc 0032\n"),
            "mini.x: byte 8: unknown .X format 'abc ' (expected 'txt ', 'bin ', 'tzip' or 'bzip')");
  EXPECT_EQ(error_of("xof 0303bin 0016\n"),
            "mini.x: byte 12: unknown float size '0016' (expected 0032 or 0064)");
}

TEST(XErrors, UnclosedStringAndGuid) {
  EXPECT_EQ(error_of("xof 0303txt 0032\nKeyValuePair {\n \"abc;\n}\n"),
            "mini.x:3: the string that starts here is not closed before the end of file");
  EXPECT_EQ(error_of("xof 0303txt 0032\ntemplate T {\n <1234\n}\n"),
            "mini.x:3: a GUID '<...' is not closed by '>'");
}

TEST(XErrors, StrayTokens) {
  EXPECT_EQ(error_of("xof 0303txt 0032\n12;\n"),
            "mini.x:2: expected a template or a data object, found the number 12");
  EXPECT_EQ(error_of("xof 0303txt 0032\nFrame A { 12; }\n"),
            "mini.x:2: Frame 'A' holds objects, not data: found the number 12");
  EXPECT_EQ(error_of("xof 0303txt 0032\nFrame A B C {}\n"),
            "mini.x:2: expected '{' to open Frame 'A', found name 'B'");
  EXPECT_NE(error_of("xof 0303txt 0032\nFrame A { } }\n").find("found '}'"), std::string::npos);
}

TEST(XErrors, TooManyJoints) {
  std::string text = "xof 0303txt 0032\n";
  for (int i = 0; i < 66000; ++i) text += "Frame{}";
  const std::string message = error_of(text);
  EXPECT_EQ(message, "mini.x:2: more than the 65535 frames a skeleton can index");
}

TEST(XErrors, MeshInstancingIsBoundedByTheDocumentBudget) {
  // A 10,000-vertex mesh (about 80 KB of text) copied into 1,000 frames would need over 120 MB:
  // more than the budget of 64 bytes per input byte plus 64 MiB. The frame whose copy passes
  // the budget is named.
  std::string text = "xof 0303txt 0032\nMesh Box {\n10000;\n";
  for (int i = 0; i < 10000; ++i) text += "0;0;0;,";
  text += "\n1; 3;0,1,2;;\n}\n";
  for (int i = 0; i < 1000; ++i) text += "Frame{{Box}}\n";
  const std::string message = error_of(text);
  EXPECT_NE(message.find(": Frame '' takes a copy of Mesh 'Box': reading this document would "
                         "allocate"),
            std::string::npos)
      << message;
  EXPECT_EQ(message.rfind("mini.x:", 0), 0u) << message;
  // A few instances are fine.
  std::string few = "xof 0303txt 0032\nMesh Box { 3; 0;0;0;, 1;0;0;, 0;1;0;; 1; 3;0,1,2;; }\n";
  for (int i = 0; i < 50; ++i) few += "Frame{{Box}}\n";
  Result<Asset> r = read_text(few);
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(r->meshes.size(), 50u);
}

// A raw deflate stream of `n` spaces, with `n` spaces before it as its dictionary when
// `chained` (as every MSZIP block after the first has).
std::vector<std::uint8_t> deflated_spaces(std::size_t n, bool chained) {
  const std::vector<std::uint8_t> spaces(n, ' ');
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  if (chained) {
    EXPECT_EQ(deflateSetDictionary(&z, spaces.data(), static_cast<uInt>(n)), Z_OK);
  }
  std::vector<std::uint8_t> out(deflateBound(&z, static_cast<uLong>(n)) + 16);
  z.next_in = const_cast<Bytef*>(spaces.data());
  z.avail_in = static_cast<uInt>(n);
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  // erase rather than resize: the stream only shrinks the buffer, and resize's growing branch
  // draws a false -Wstringop-overflow from GCC 12 at -O1.
  out.erase(out.end() - z.avail_out, out.end());
  deflateEnd(&z);
  return out;
}

TEST(XErrors, ACompressedFileThatInflatesPastTheBudgetIsRefusedAtItsBlock) {
  // 3,000 MSZIP blocks of 32,768 spaces: about 100 MB inflated from about 100 KB, within
  // deflate's own 1032:1 cap but well past the budget of 64 bytes per input byte plus
  // 64 MiB. The block that passes the budget is named by its byte offset.
  constexpr std::size_t kBlock = 32768, kBlocks = 3000;
  const std::string head = "xof 0303tzip0032";
  std::vector<std::uint8_t> file(head.begin(), head.end());
  const std::uint32_t declared = kBlock * kBlocks + 16;
  for (int i = 0; i < 4; ++i) file.push_back(static_cast<std::uint8_t>(declared >> (8 * i)));
  const std::vector<std::uint8_t> first = deflated_spaces(kBlock, false);
  const std::vector<std::uint8_t> next = deflated_spaces(kBlock, true);
  std::vector<std::size_t> block_at;
  for (std::size_t b = 0; b < kBlocks; ++b) {
    const std::vector<std::uint8_t>& data = b == 0 ? first : next;
    block_at.push_back(file.size());
    file.insert(file.end(),
                {static_cast<std::uint8_t>(kBlock & 0xff), static_cast<std::uint8_t>(kBlock >> 8),
                 static_cast<std::uint8_t>((data.size() + 2) & 0xff),
                 static_cast<std::uint8_t>((data.size() + 2) >> 8), 'C', 'K'});
    file.insert(file.end(), data.begin(), data.end());
  }
  // The budget in blocks: (64 * size + 64 MiB) / 32 KiB, counted here by hand.
  const std::uint64_t limit = 64 * std::uint64_t{file.size()} + (std::uint64_t{64} << 20);
  const std::size_t refused = static_cast<std::size_t>(limit / kBlock);
  ASSERT_LT(refused, kBlocks);
  Result<Asset> r = read_bytes(file);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message.rfind("mini.x: byte " + std::to_string(block_at[refused]) +
                                        ": compressed block: reading this document would allocate",
                                    0),
            0u)
      << r.error().message;
}

TEST(XErrors, ManyWeightsOnOneVertexStayLinear) {
  // 300 SkinWeights, each naming a frame and putting 2000 weights on vertex 0.
  std::string text =
      "xof 0303txt 0032\nFrame B {}\nMesh M { 3; 0;0;0;, 1;0;0;, 0;1;0;; 1; 3;0,1,2;;\n";
  for (int s = 0; s < 300; ++s) {
    text += "SkinWeights { \"B\"; 2000; ";
    for (int i = 0; i < 2000; ++i) text += "0,";
    for (int i = 0; i < 2000; ++i) text += "1,";
    text += " 1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1;; }\n";
  }
  text += "}\n";
  Result<Asset> r = read_text(text);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->meshes.size(), 1u);
  EXPECT_EQ(r->meshes[0].influence_offsets[1], 300u);  // one entry per skin joint
  EXPECT_FLOAT_EQ(r->meshes[0].influence_weights[0], 1.0f / 300);
}

// Random damage to a valid file, text and binary: every outcome is an asset or an error that
// names the file; the sanitizers watch for everything else.
TEST(XErrors, RandomDamageNeverCrashes) {
  std::mt19937 rng(1234);
  const std::vector<std::uint8_t> text(kMiniText.begin(), kMiniText.end());
  static const char kBytes[] = "0123456789;,{}\"<>-.e #/\n\xff\x01";
  for (int round = 0; round < 3000; ++round) {
    std::vector<std::uint8_t> bytes = text;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t at = 16 + rng() % (bytes.size() - 16);
      switch (rng() % 4) {
        case 0:
          bytes[at] = static_cast<std::uint8_t>(kBytes[rng() % (sizeof kBytes - 1)]);
          break;
        case 1:
          bytes.erase(bytes.begin() + static_cast<std::ptrdiff_t>(at));
          break;
        case 2:
          bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                       static_cast<std::uint8_t>(kBytes[rng() % (sizeof kBytes - 1)]));
          break;
        default:
          bytes.resize(at);
          break;
      }
      if (bytes.size() <= 17) break;
    }
    Result<Asset> r = read_bytes(bytes, "fuzz.x");
    if (!r.ok()) {
      EXPECT_EQ(r.error().message.rfind("fuzz.x", 0), 0u) << r.error().message;
    }
  }
}

TEST(XErrors, DeclDataCountsMustMatchTheMesh) {
  // One FLOAT3 tangent per vertex: the Mesh's 5 vertices need 15 DWORDs, not 14.
  const std::string text = replaced(
      kMiniText, "    XSkinMeshHeader",
      "    DeclData { 1; 2;0;6;0;; 14; 0,0,0,0,0,0,0,0,0,0,0,0,0,0; }\n    XSkinMeshHeader");
  EXPECT_EQ(error_of(text), at_line(line_of(text, "DeclData {")) +
                                "DeclData has 14 DWORDs but its Mesh's 5 vertices of 3 DWORDs "
                                "need 15");
  const std::string unknown =
      replaced(kMiniText, "    XSkinMeshHeader",
               "    DeclData { 1; 17;0;6;0;; 5; 0,0,0,0,0; }\n    XSkinMeshHeader");
  EXPECT_EQ(error_of(unknown), at_line(line_of(unknown, "DeclData {")) +
                                   "DeclData: vertex element type 17 is unknown (D3DDECLTYPE "
                                   "goes from 0 to 16)");
}

}  // namespace
}  // namespace marrow::xtest
