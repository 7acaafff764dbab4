// One rule for where a line ends, in every text reader and its pre-checks: LF, CRLF and a lone
// CR (old Mac OS) each end one line. The same file with each of the three reads the same, and an
// error on line N is reported on line N whichever the file uses.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "marrow/io/bvh.h"
#include "marrow/io/gltf.h"
#include "marrow/io/md5.h"
#include "marrow/io/obj.h"
#include "marrow/io/smd.h"
#include "marrow/io/x_file.h"

namespace marrow {
namespace {

std::span<const std::uint8_t> bytes_of(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// `text` written with LF, then with `ending` in its place.
std::string with_endings(const std::string& text, const std::string& ending) {
  std::string out;
  for (char c : text) {
    if (c == '\n') {
      out += ending;
    } else {
      out += c;
    }
  }
  return out;
}

using Reader = std::function<Result<Asset>(const std::string& text)>;

struct Case {
  const char* format;
  Reader read;
  std::string good;  // reads
  std::string bad;   // fails on `line`
  std::size_t line;
  std::string name;  // the file name in messages
};

std::vector<Case> cases() {
  std::vector<Case> out;
  out.push_back({"OBJ", [](const std::string& t) { return read_obj(bytes_of(t), "t.obj"); },
                 "# a triangle\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
                 // The value the issue found reaching the runtime as infinity after a lone CR.
                 "# a triangle\nv 0 0 0\nv 1e999 0 0\nv 0 1 0\nf 1 2 3\n", 3, "t.obj"});
  out.push_back({"BVH", [](const std::string& t) { return read_bvh(t, "t.bvh"); },
                 "HIERARCHY\nROOT Hips\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation "
                 "Yrotation\nEnd Site\n{\nOFFSET 0 1 0\n}\n}\nMOTION\nFrames: 2\nFrame Time: "
                 "0.5\n0 0 0\n10 20 30\n",
                 "HIERARCHY\nROOT Hips\n{\nOFFSET 0 0 0\nCHANNELS 3 Zrotation Xrotation "
                 "Yrotation\nEnd Site\n{\nOFFSET 0 1 0\n}\n}\nMOTION\nFrames: 2\nFrame Time: "
                 "0.5\n0 0 0\n10 x 30\n",
                 15, "t.bvh"});
  out.push_back({"X", [](const std::string& t) { return read_x(bytes_of(t), "t.x"); },
                 "xof 0303txt 0032\n// a comment\nFrame Root {\n  FrameTransformMatrix {\n    "
                 "1,0,0,0, 0,1,0,0, 0,0,1,0, 2,0,0,1;;\n  }\n}\n",
                 "xof 0303txt 0032\n// a comment\nFrame Root {\n  FrameTransformMatrix {\n    "
                 "1,0,0,0, 0,1,0,0, 0,0,1,0, 2,0,0,1;;\n  }\n  }\n}\n",
                 8, "t.x"});
  out.push_back(
      {"MD5", [](const std::string& t) { return read_md5mesh(std::string_view(t), "t.md5mesh"); },
       "MD5Version 10\ncommandline \"\"\n// joints\nnumJoints 1\nnumMeshes 0\njoints "
       "{\n\"root\" -1 ( 2 0 0 ) ( 0 0 0 )\n}\n",
       "MD5Version 10\ncommandline \"\"\n// joints\nnumJoints 1\nnumMeshes 0\njoints "
       "{\n\"root\" -1 ( 2 0 0 ) ( 0 0 x )\n}\n",
       7, "t.md5mesh"});
  out.push_back({"SMD", [](const std::string& t) { return read_smd(std::string_view(t), "t.smd"); },
                 "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 2 0 0 0 0 0\nend\n",
                 "version 1\nnodes\n0 \"root\" -1\nend\nskeleton\ntime 0\n0 2 0 0 0 0 x\nend\n", 7,
                 "t.smd"});
  out.push_back({"glTF", [](const std::string& t) { return read_gltf(bytes_of(t), "t.gltf", "."); },
                 "{\n\"asset\": {\"version\": \"2.0\"},\n\"nodes\": [{\"name\": \"root\", "
                 "\"translation\": [2, 0, 0]}]\n}\n",
                 "{\n\"asset\": {\"version\": \"2.0\"},\n\"nodes\": [{\"name\": \"root\", "
                 "\"translation\": [2, 0, 0]}]\n}}\n",
                 4, "t.gltf"});
  return out;
}

TEST(LineBreaks, EveryTextReaderReadsLfCrlfAndLoneCrAlike) {
  for (const Case& c : cases()) {
    for (const char* ending : {"\n", "\r\n", "\r"}) {
      SCOPED_TRACE(std::string(c.format) + " with " +
                   (ending[0] == '\n' ? "LF"
                    : ending[1]       ? "CRLF"
                                      : "CR"));
      Result<Asset> r = c.read(with_endings(c.good, ending));
      ASSERT_TRUE(r.ok()) << r.error().message;
      ASSERT_GE(r->skeleton.size(), 1u);
      if (std::string(c.format) == "OBJ") {
        ASSERT_EQ(r->meshes.size(), 1u);
        EXPECT_EQ(r->meshes[0].positions.size(), 3u);
      } else {
        // Every other case puts its first joint at x = 2 (the BVH root at 0, its clip aside).
        const float x = r->skeleton.rest_pose()[0].translation.x;
        EXPECT_FLOAT_EQ(x, std::string(c.format) == "BVH" ? 0.0f : 2.0f);
      }
    }
  }
}

TEST(LineBreaks, AnErrorOnLineNIsReportedOnLineNWhateverTheLinesEndWith) {
  for (const Case& c : cases()) {
    for (const char* ending : {"\n", "\r\n", "\r"}) {
      SCOPED_TRACE(std::string(c.format) + " with " +
                   (ending[0] == '\n' ? "LF"
                    : ending[1]       ? "CRLF"
                                      : "CR"));
      Result<Asset> r = c.read(with_endings(c.bad, ending));
      ASSERT_FALSE(r.ok());
      const std::string place = c.name + ":" + std::to_string(c.line) + ":";
      EXPECT_EQ(r.error().message.rfind(place, 0), 0u) << r.error().message;
    }
  }
}

}  // namespace
}  // namespace marrow
