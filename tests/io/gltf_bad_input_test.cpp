// Bad and hostile glTF input: truncated files, wrong magic, indices out of range, NaN or
// infinite keys, node cycles, non-increasing key times, broken accessors. Each must give an
// error whose message starts with the file name and names the place (a JSON path, "file:L:C"
// for JSON syntax, "byte N" in a GLB), without crashing (the suite runs under ASan and UBSan).
// The real assets are truncated and mutated too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <limits>
#include <random>

#include "gltf_test_util.h"
#include "marrow/skin/skinning.h"

namespace fs = std::filesystem;
using namespace gltf_test;
using marrow::Asset;

namespace {

// Messages name the file first and stay short (no dump of a hostile value).
void expect_error(const marrow::Result<Asset>& result, const std::string& name,
                  const std::vector<std::string>& parts) {
  ASSERT_FALSE(result.ok()) << "expected an error containing '" << (parts.empty() ? "" : parts[0])
                            << "'";
  const std::string& message = result.error().message;
  EXPECT_EQ(message.rfind(name, 0), 0u) << message;
  for (const std::string& part : parts) {
    EXPECT_NE(message.find(part), std::string::npos) << "'" << part << "' not in: " << message;
  }
  EXPECT_LT(message.size(), 400u) << message.substr(0, 400);
}

// Accessors of the base document.
enum : int { kPos, kIndices, kJoints, kWeights, kIbm, kTimes, kRotations, kScaleTimes, kScales };

// A valid document that the cases below break one piece of:
// nodes 0 "root" -> 1 "arm" -> 2 "hand"; node 3 carries mesh 0 skinned by skin 0 (joints 0..2);
// animation 0 rotates node 1 (sampler 0) and scales node 2 (sampler 1).
Builder base() {
  Builder b;
  b.node({{"name", "root"}, {"children", {1}}});
  b.node({{"name", "arm"}, {"children", {2}}, {"translation", {0, 1, 0}}});
  b.node({{"name", "hand"}, {"translation", {0, 1, 0}}});
  b.node({{"name", "body"}, {"mesh", 0}, {"skin", 0}});
  EXPECT_EQ(b.floats({0, 0, 0, 1, 0, 0, 0, 1, 0}, "VEC3"), kPos);
  EXPECT_EQ(b.add<std::uint16_t>({0, 1, 2}, "SCALAR"), kIndices);
  EXPECT_EQ(b.add<std::uint8_t>({0, 1, 0, 0, 1, 2, 0, 0, 2, 0, 0, 0}, "VEC4"), kJoints);
  EXPECT_EQ(b.floats({0.5f, 0.5f, 0, 0, 0.5f, 0.5f, 0, 0, 1, 0, 0, 0}, "VEC4"), kWeights);
  std::vector<float> ibm;
  for (int j = 0; j < 3; ++j) {
    const marrow::Mat4 m;
    ibm.insert(ibm.end(), m.m.begin(), m.m.end());
  }
  EXPECT_EQ(b.floats(ibm, "MAT4"), kIbm);
  EXPECT_EQ(b.floats({0, 0.5f, 1}, "SCALAR"), kTimes);
  EXPECT_EQ(b.floats({0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1}, "VEC4"), kRotations);
  EXPECT_EQ(b.floats({0, 2}, "SCALAR"), kScaleTimes);
  EXPECT_EQ(b.floats({1, 1, 1, 2, 2, 2}, "VEC3"), kScales);
  b.doc["skins"] = {{{"joints", {0, 1, 2}}, {"inverseBindMatrices", kIbm}}};
  b.doc["meshes"] = {
      {{"primitives",
        {{{"attributes", {{"POSITION", kPos}, {"JOINTS_0", kJoints}, {"WEIGHTS_0", kWeights}}},
          {"indices", kIndices}}}}}};
  b.animation({{1, "rotation", kTimes, kRotations}, {2, "scale", kScaleTimes, kScales}});
  return b;
}

// Overwrites element component `i` of accessor `accessor` in the binary buffer.
template <typename T>
void poke(Builder& b, int accessor, std::size_t i, T value) {
  const Json& a = b.doc["accessors"][accessor];
  const Json& view = b.doc["bufferViews"][a["bufferView"].get<int>()];
  const std::size_t offset =
      view["byteOffset"].get<std::size_t>() + a.value("byteOffset", 0u) + i * sizeof(T);
  ASSERT_LE(offset + sizeof(T), b.bin.size());
  std::memcpy(b.bin.data() + offset, &value, sizeof(T));
}

struct Case {
  const char* what;
  std::function<void(Builder&)> change;
  std::vector<std::string> parts;
};

void run_cases(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Builder b = base();
    c.change(b);
    expect_error(read_text(b.gltf_text()), "t.gltf", c.parts);
  }
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(GltfBadInput, BaseDocumentLoads) {
  const Builder b = base();
  const Asset asset = load(b.gltf_text());
  EXPECT_EQ(asset.skeleton.size(), 4u);
  EXPECT_EQ(asset.clips.size(), 1u);
  EXPECT_EQ(asset.skins.size(), 1u);
  EXPECT_EQ(asset.meshes.size(), 1u);
  EXPECT_TRUE(asset.warnings.empty());
  load_glb(b.glb_bytes());
}

TEST(GltfBadInput, JsonSyntax) {
  expect_error(read_text("{\n  \"asset\": {\"version\": \"2.0\"},\n  \"nodes\": [}\n"), "t.gltf",
               {"t.gltf:3:", "JSON"});
  expect_error(read_text(""), "t.gltf", {"t.gltf:1:1", "JSON"});
  expect_error(read_text("{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [{\"name\": \"a\xff\"}]}"),
               "t.gltf", {"t.gltf:1:", "JSON"});
  // Every truncation of a document fails with a line:column place.
  const std::string text = base().with_data_uri().dump(1);
  for (std::size_t length : {std::size_t{1}, text.size() / 10, text.size() / 2, text.size() - 1}) {
    SCOPED_TRACE(length);
    expect_error(read_text(text.substr(0, length)), "t.gltf", {"t.gltf:", "JSON"});
  }
  // A number no float or double can hold.
  expect_error(
      read_text("{\"asset\": {\"version\": \"2.0\"},\n\"nodes\": [{\"scale\": [1e400, 1, 1]}]}"),
      "t.gltf", {"t.gltf:2:", "1e400"});
}

TEST(GltfBadInput, DocumentLevel) {
  expect_error(read_text("[1, 2]"), "t.gltf", {"top level"});
  expect_error(read_text("{\"nodes\": []}"), "t.gltf", {"asset.version"});
  expect_error(read_text("{\"asset\": {\"version\": 2}}"), "t.gltf", {"asset.version"});
  expect_error(read_text("{\"asset\": {\"version\": \"1.0\"}}"), "t.gltf", {"1.0", "2.x"});
  run_cases({
      {"nodes not an array",
       [](Builder& b) {
         b.doc["nodes"] = {{"a", 1}};
       },
       {"nodes must be"}},
      {"accessors not an array",
       [](Builder& b) { b.doc["accessors"] = 7; },
       {"accessors must be an array"}},
      {"accessor not an object",
       [](Builder& b) { b.doc["accessors"][kPos] = 3; },
       {"accessors[0] must be an object"}},
  });
}

// The specification: a loader must refuse a file that requires an extension it does not
// support. Read without it, a Draco file's meshes are accessors without bufferViews, that is
// zeros: a file marrow loaded silently as a mesh collapsed to a point. Image formats only cost a
// texture its image; extensions used but not required are named.
TEST(GltfBadInput, RequiredExtensionsMarrowDoesNotReadAreRefused) {
  run_cases({
      {"Draco",
       [](Builder& b) {
         b.doc["extensionsUsed"] = {"KHR_draco_mesh_compression"};
         b.doc["extensionsRequired"] = {"KHR_draco_mesh_compression"};
         b.doc["accessors"][kPos].erase("bufferView");
       },
       {"requires the extension KHR_draco_mesh_compression (Draco-compressed meshes)",
        "does not read"}},
      {"meshopt",
       [](Builder& b) { b.doc["extensionsRequired"] = {"EXT_meshopt_compression"}; },
       {"EXT_meshopt_compression (meshoptimizer-compressed buffers)"}},
      {"one unknown among known",
       [](Builder& b) {
         b.doc["extensionsRequired"] = {"KHR_texture_transform", "EXT_future_thing"};
       },
       {"requires the extension EXT_future_thing,"}},
      {"not a list",
       [](Builder& b) { b.doc["extensionsRequired"] = "KHR_draco_mesh_compression"; },
       {"extensionsRequired must be an array of names"}},
      {"a name that is not a string",
       [](Builder& b) {
         b.doc["extensionsUsed"] = {"KHR_texture_transform", 7};
       },
       {"extensionsUsed[1] must be a name"}},
  });
  Builder read = base();
  read.doc["extensionsRequired"] = {"KHR_texture_transform", "KHR_mesh_quantization"};
  EXPECT_TRUE(load(read.gltf_text()).warnings.empty());

  Builder webp = base();
  webp.doc["extensionsRequired"] = {"EXT_texture_webp"};
  const Asset with_webp = load(webp.gltf_text());
  ASSERT_EQ(with_webp.warnings.size(), 1u);
  EXPECT_NE(with_webp.warnings[0].find("requires EXT_texture_webp, an image format"),
            std::string::npos)
      << with_webp.warnings[0];

  Builder used = base();
  used.doc["extensionsUsed"] = {"KHR_texture_transform", "EXT_mesh_gpu_instancing",
                                "KHR_lights_punctual"};
  const Asset with_used = load(used.gltf_text());
  ASSERT_EQ(with_used.warnings.size(), 1u);
  EXPECT_EQ(with_used.warnings[0],
            "uses EXT_mesh_gpu_instancing (instanced meshes), KHR_lights_punctual, which marrow "
            "does not read: what it adds is left out");

  // A material extension a material carries is named by the material reader, not twice; one no
  // material carries (variants live on the root and the primitives) is named here.
  Builder material = base();
  material.doc["extensionsUsed"] = {"KHR_materials_specular", "KHR_materials_variants"};
  material.doc["materials"] = {{{"extensions", {{"KHR_materials_specular", Json::object()}}}}};
  const Asset with_material = load(material.gltf_text());
  std::string notes;
  for (const std::string& w : with_material.warnings) notes += w + "\n";
  EXPECT_NE(notes.find("uses KHR_materials_variants, which marrow does not read"),
            std::string::npos)
      << notes;
  EXPECT_EQ(notes.find("uses KHR_materials_specular"), std::string::npos) << notes;
  EXPECT_NE(notes.find("KHR_materials_specular: not kept"), std::string::npos) << notes;

  // Required, a material model costs only the look: the file loads, with a note.
  Builder glossy = base();
  glossy.doc["extensionsRequired"] = {"KHR_materials_pbrSpecularGlossiness"};
  const Asset with_glossy = load(glossy.gltf_text());
  ASSERT_EQ(with_glossy.warnings.size(), 1u);
  EXPECT_NE(with_glossy.warnings[0].find(
                "requires KHR_materials_pbrSpecularGlossiness, a material extension"),
            std::string::npos)
      << with_glossy.warnings[0];
  EXPECT_EQ(with_glossy.skeleton.size(), 4u);
}

TEST(GltfBadInput, GlbContainer) {
  const Bytes good = base().glb_bytes();
  load_glb(good);
  // Every prefix of the 12-byte header, and lengths just past it.
  for (std::size_t length = 0; length < 12; ++length) {
    SCOPED_TRACE(length);
    const Bytes cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(length));
    expect_error(marrow::read_gltf(cut, "t.glb", "."), "t.glb", {"t.glb: byte 0", "truncated"});
  }
  for (std::size_t length :
       {std::size_t{12}, std::size_t{16}, std::size_t{20}, good.size() / 2, good.size() - 1}) {
    SCOPED_TRACE(length);
    const Bytes cut(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(length));
    expect_error(marrow::read_gltf(cut, "t.glb", "."), "t.glb", {"t.glb: byte 8", "truncated"});
  }
  auto patched = [&](std::size_t offset, std::uint32_t value) {
    Bytes out = good;
    for (int k = 0; k < 4; ++k) out[offset + k] = static_cast<std::uint8_t>(value >> (8 * k));
    return out;
  };
  expect_error(marrow::read_gltf(patched(0, 0x58546C67), "t.glb", "."), "t.glb",
               {"t.glb: byte 0", "wrong magic"});
  // A .glb holding a JSON document is the .gltf it is, read so with a note; other text in a .glb
  // is a GLB without its magic.
  marrow::Result<marrow::Asset> json_in_glb = read_text(base().gltf_text(), "t.glb");
  ASSERT_TRUE(json_in_glb.ok()) << json_in_glb.error().message;
  ASSERT_FALSE(json_in_glb->warnings.empty());
  EXPECT_NE(json_in_glb->warnings.front().find("its content is glTF JSON"), std::string::npos);
  expect_error(read_text("HIERARCHY\nROOT a\n", "t.glb"), "t.glb",
               {"t.glb: byte 0", "wrong magic"});
  expect_error(marrow::read_gltf(patched(4, 1), "t.glb", "."), "t.glb",
               {"t.glb: byte 4", "version 1"});
  expect_error(marrow::read_gltf(patched(8, 8), "t.glb", "."), "t.glb",
               {"t.glb: byte 8", "too small"});
  // The JSON chunk claims more bytes than the file has.
  expect_error(marrow::read_gltf(patched(12, 0x7FFFFFF0), "t.glb", "."), "t.glb",
               {"t.glb: byte 12", "truncated"});
  // The header length ends inside the second chunk's header.
  const std::uint32_t json_length = good[12] | good[13] << 8 | good[14] << 16 | good[15] << 24;
  expect_error(marrow::read_gltf(patched(8, 20 + json_length + 4), "t.glb", "."), "t.glb",
               {"byte " + std::to_string(20 + json_length), "truncated chunk header"});
  expect_error(marrow::read_gltf(patched(16, kChunkBin), "t.glb", "."), "t.glb",
               {"t.glb: byte 16", "first chunk is not JSON"});
  // A header with no chunk at all.
  expect_error(marrow::read_gltf(glb({}), "t.glb", "."), "t.glb", {"t.glb: byte 12", "no JSON"});

  // The JSON says buffers[0] is the BIN chunk, but there is none, or it is too short.
  Builder b = base();
  Json doc = b.doc;
  doc["buffers"] = Json::array({{{"byteLength", b.bin.size()}}});
  expect_error(marrow::read_gltf(glb({{kChunkJson, to_bytes(doc.dump())}}), "t.glb", "."), "t.glb",
               {"buffers[0]", "no uri"});
  const Bytes short_bin(b.bin.begin(), b.bin.end() - 8);
  expect_error(marrow::read_gltf(glb({{kChunkJson, to_bytes(doc.dump())}, {kChunkBin, short_bin}}),
                                 "t.glb", "."),
               "t.glb", {"buffers[0]", "truncated"});
}

TEST(GltfBadInput, Buffers) {
  run_cases({
      {"bad base64",
       [](Builder& b) {
         Json d = b.with_data_uri();
         b.doc["buffers"] = d["buffers"];
         std::string uri = b.doc["buffers"][0]["uri"];
         uri[uri.size() / 2] = '*';
         b.doc["buffers"][0]["uri"] = uri;
         b.bin.clear();
         b.doc.erase("bufferViews");
       },
       {"buffers[0].uri", "base64"}},
      {"data URI without base64",
       [](Builder& b) {
         b.doc["buffers"] = {{{"byteLength", 4}, {"uri", "data:,abcd"}}};
         b.bin.clear();
         b.doc.erase("bufferViews");
       },
       {"buffers[0].uri", "base64"}},
      {"data URI shorter than byteLength",
       [](Builder& b) {
         b.doc["buffers"] = {{{"byteLength", 40}, {"uri", data_uri(Bytes(30, 1))}}};
         b.bin.clear();
         b.doc.erase("bufferViews");
       },
       {"buffers[0]", "30 bytes", "truncated"}},
      {"byteLength too large",
       [](Builder& b) {
         b.doc["buffers"] = {{{"byteLength", 1ull << 40}, {"uri", "x.bin"}}};
         b.bin.clear();
         b.doc.erase("bufferViews");
       },
       {"buffers[0].byteLength", "too large"}},
      {"byteLength negative",
       [](Builder& b) {
         b.doc["buffers"] = {{{"byteLength", -4}, {"uri", "x.bin"}}};
         b.bin.clear();
         b.doc.erase("bufferViews");
       },
       {"buffers[0].byteLength", "non-negative integer"}},
      {"bufferView past its buffer",
       [](Builder& b) { b.doc["bufferViews"][kPos]["byteLength"] = b.bin.size() + 1; },
       {"bufferViews[0]", "run past buffer 0"}},
      {"bufferView offset past its buffer",
       [](Builder& b) { b.doc["bufferViews"][kPos]["byteOffset"] = ~0ull; },
       {"bufferViews[0]", "run past buffer 0"}},
      {"bufferView buffer out of range",
       [](Builder& b) { b.doc["bufferViews"][kPos]["buffer"] = 5; },
       {"bufferViews[0].buffer = 5", "out of range"}},
      {"byteStride too small",
       [](Builder& b) { b.doc["bufferViews"][kPos]["byteStride"] = 2; },
       {"bufferViews[0].byteStride = 2"}},
      {"byteStride smaller than an element",
       [](Builder& b) { b.doc["bufferViews"][kPos]["byteStride"] = 8; },
       {"accessors[0]", "byteStride 8"}},
  });

  // External buffers: missing, or shorter than byteLength.
  TempDir dir("buffers");
  Builder b = base();
  Json doc = b.doc;
  doc["buffers"] = Json::array({{{"byteLength", b.bin.size()}, {"uri", "data.bin"}}});
  const std::string text = doc.dump();
  expect_error(read_text(text, "e.gltf", dir.path().string()), "e.gltf",
               {"buffers[0].uri", "cannot open", "data.bin"});
  write_file(dir / "data.bin", Bytes(b.bin.begin(), b.bin.end() - 1));
  expect_error(
      read_text(text, "e.gltf", dir.path().string()), "e.gltf",
      {"buffers[0].uri", "data.bin", std::to_string(b.bin.size() - 1) + " bytes, byteLength says"});
  // A directory is not a buffer file.
  fs::create_directory(dir / "sub");
  doc["buffers"][0]["uri"] = "sub";
  expect_error(read_text(doc.dump(), "e.gltf", dir.path().string()), "e.gltf", {"buffers[0].uri"});
  // Nothing outside the document's folder is read, even when it exists: an absolute path, a
  // way up, a percent-encoded way up, a way up hidden after a way down.
  write_file(dir / "sub" / "inside.bin", b.bin);
  for (const char* uri :
       {"/etc/passwd", "../buffers/data.bin", "%2E%2E/x.bin", "sub/../../x.bin"}) {
    doc["buffers"][0]["uri"] = uri;
    expect_error(read_text(doc.dump(), "e.gltf", (dir / "sub").string()), "e.gltf",
                 {"buffers[0].uri", "leaves the document's folder"});
  }
  // Below the folder is fine.
  doc["buffers"][0]["uri"] = "sub/inside.bin";
  EXPECT_TRUE(read_text(doc.dump(), "e.gltf", dir.path().string()).ok());
}

TEST(GltfBadInput, Accessors) {
  run_cases({
      {"POSITION accessor out of range",
       [](Builder& b) { b.doc["meshes"][0]["primitives"][0]["attributes"]["POSITION"] = 99; },
       {"meshes[0].primitives[0].attributes.POSITION = 99", "out of range", "accessors"}},
      {"bufferView out of range",
       [](Builder& b) { b.doc["accessors"][kIndices]["bufferView"] = 99; },
       {"accessors[1].bufferView = 99", "out of range"}},
      {"more elements than the bufferView holds",
       [](Builder& b) { b.doc["accessors"][kPos]["count"] = 4; },
       {"accessors[0]", "bufferView has 36"}},
      {"byteOffset past the bufferView",
       [](Builder& b) { b.doc["accessors"][kPos]["byteOffset"] = ~0ull - 3; },
       {"accessors[0]"}},
      {"count missing",
       [](Builder& b) { b.doc["accessors"][kPos].erase("count"); },
       {"accessors[0].count is missing"}},
      {"count negative",
       [](Builder& b) { b.doc["accessors"][kPos]["count"] = -1; },
       {"accessors[0].count", "non-negative integer"}},
      {"count a float",
       [](Builder& b) { b.doc["accessors"][kPos]["count"] = 1.5; },
       {"accessors[0].count", "non-negative integer"}},
      {"unknown componentType",
       [](Builder& b) { b.doc["accessors"][kPos]["componentType"] = 5124; },
       {"accessors[0].componentType", "5124"}},
      {"unknown type",
       [](Builder& b) { b.doc["accessors"][kPos]["type"] = "VEC5"; },
       {"accessors[0].type", "VEC5"}},
      {"type not a string",
       [](Builder& b) { b.doc["accessors"][kPos]["type"] = 3; },
       {"accessors[0].type"}},
      {"normalized not a boolean",
       [](Builder& b) { b.doc["accessors"][kPos]["normalized"] = 1; },
       {"accessors[0].normalized"}},
      // count * 16 wraps around 2^64 to 0: must not pass the size check.
      {"count overflowing the element count",
       [](Builder& b) { b.doc["accessors"][kIbm]["count"] = 1ull << 60; },
       {"accessors[4].count", "too large"}},
      {"count overflowing the element count without a bufferView",
       [](Builder& b) {
         b.doc["accessors"][kIbm]["count"] = 1ull << 60;
         b.doc["accessors"][kIbm].erase("bufferView");
       },
       {"accessors[4].count", "too large"}},
      {"count overflowing, VEC4",
       [](Builder& b) { b.doc["accessors"][kRotations]["count"] = 1ull << 62; },
       {"accessors[6].count", "too large"}},
      {"huge count without data",
       [](Builder& b) { b.doc["accessors"][kPos]["count"] = 1ull << 40; },
       {"accessors[0].count", "too large"}},
      {"float accessor as indices",
       [](Builder& b) { b.doc["accessors"][kIndices]["componentType"] = kFloat; },
       {"accessors[1]", "5126", "indices"}},
  });
}

TEST(GltfBadInput, SparseAccessors) {
  // Accessor 0 (POSITION) gets a sparse part replacing vertex 2 then vertex 1.
  auto with_sparse = [](Builder& b, std::vector<std::uint8_t> indices, int count) {
    const int iv = b.view(Bytes(indices.begin(), indices.end()));
    const int vv = b.view(bytes_of(std::vector<float>(6, 7.0f)));
    b.doc["accessors"][kPos]["sparse"] = {
        {"count", count},
        {"indices", {{"bufferView", iv}, {"componentType", kUByte}}},
        {"values", {{"bufferView", vv}}}};
  };
  {
    Builder b = base();
    with_sparse(b, {0, 2}, 2);
    load(b.gltf_text());
  }
  run_cases({
      {"indices not increasing",
       [&](Builder& b) {
         with_sparse(b, {2, 1}, 2);
       },
       {"accessors[0].sparse.indices", "index 1 = 1", "not increasing"}},
      {"indices repeated",
       [&](Builder& b) {
         with_sparse(b, {1, 1}, 2);
       },
       {"accessors[0].sparse.indices", "not increasing"}},
      {"index out of range",
       [&](Builder& b) {
         with_sparse(b, {0, 3}, 2);
       },
       {"accessors[0].sparse.indices", "index 1 = 3", "out of range"}},
      {"count zero",
       [&](Builder& b) { with_sparse(b, {0}, 0); },
       {"accessors[0].sparse.count = 0"}},
      {"count above the accessor count",
       [&](Builder& b) {
         with_sparse(b, {0, 1, 2, 3}, 4);
       },
       {"accessors[0].sparse.count = 4"}},
      {"indices past their view",
       [&](Builder& b) { with_sparse(b, {0}, 2); },
       {"accessors[0].sparse.indices", "run past"}},
      {"values past their view",
       [&](Builder& b) {
         with_sparse(b, {0, 1}, 2);
         b.doc["accessors"][kPos]["sparse"]["values"]["byteOffset"] = 4;
       },
       {"accessors[0].sparse.values", "run past"}},
      {"float indices",
       [&](Builder& b) {
         with_sparse(b, {0, 1}, 2);
         b.doc["accessors"][kPos]["sparse"]["indices"]["componentType"] = kFloat;
       },
       {"accessors[0].sparse.indices.componentType = 5126"}},
      {"indices bufferView missing",
       [&](Builder& b) {
         with_sparse(b, {0, 1}, 2);
         b.doc["accessors"][kPos]["sparse"]["indices"].erase("bufferView");
       },
       {"accessors[0].sparse.indices.bufferView is missing"}},
      {"values bufferView out of range",
       [&](Builder& b) {
         with_sparse(b, {0, 1}, 2);
         b.doc["accessors"][kPos]["sparse"]["values"]["bufferView"] = 77;
       },
       {"accessors[0].sparse.values.bufferView = 77", "out of range"}},
  });
}

TEST(GltfBadInput, NodesOutOfRangeAndCycles) {
  run_cases({
      {"child out of range",
       [](Builder& b) { b.doc["nodes"][2]["children"] = {9}; },
       {"nodes[2].children[0] = 9", "out of range", "4 nodes"}},
      {"child negative",
       [](Builder& b) { b.doc["nodes"][2]["children"] = {-1}; },
       {"nodes[2].children[0]", "non-negative integer"}},
      {"child a string",
       [](Builder& b) { b.doc["nodes"][2]["children"] = {"3"}; },
       {"nodes[2].children[0]", "non-negative integer"}},
      {"children not an array",
       [](Builder& b) { b.doc["nodes"][2]["children"] = 3; },
       {"nodes[2].children must be an array"}},
      {"own child",
       [](Builder& b) { b.doc["nodes"][2]["children"] = {2}; },
       {"nodes[2].children[0]", "cycle"}},
      {"cycle through three nodes",
       [](Builder& b) { b.doc["nodes"][2]["children"] = {0}; },
       {"nodes[0].children[0]: node 1 is also an ancestor of node 0 (cycle)"}},
      {"cycle of two below a root",
       [](Builder& b) {
         // 0 -> 1 -> 2 stays; 3 <-> 4 form a loop of their own.
         b.doc["nodes"][3]["children"] = {4};
         b.node({{"name", "loop"}, {"children", {3}}});
       },
       {"nodes[3].children[0]: node 4 is also an ancestor of node 3 (cycle)"}},
      {"two parents",
       [](Builder& b) {
         b.doc["nodes"][0]["children"] = {1, 2};
       },
       {"nodes[1].children[0]", "node 2 already has parent node 0"}},
      {"matrix of 15 numbers",
       [](Builder& b) { b.doc["nodes"][0]["matrix"] = std::vector<float>(15, 1.0f); },
       {"nodes[0].matrix", "16 numbers"}},
      {"rotation component not a number",
       [](Builder& b) {
         b.doc["nodes"][0]["rotation"] = {0, "x", 0, 1};
       },
       {"nodes[0].rotation[1] is not a number"}},
      {"translation beyond float range",
       [](Builder& b) {
         b.doc["nodes"][1]["translation"] = {0, 1e39, 0};
       },
       {"nodes[1].translation[1] is not finite"}},
      {"matrix beyond float range",
       [](Builder& b) {
         std::vector<double> m(16, 0.0);
         m[0] = m[5] = m[10] = m[15] = 1;
         m[12] = -1e300;
         b.doc["nodes"][1]["matrix"] = m;
       },
       {"nodes[1].matrix[12] is not finite"}},
      {"mesh out of range",
       [](Builder& b) { b.doc["nodes"][3]["mesh"] = 7; },
       {"nodes[3].mesh = 7", "out of range"}},
      {"skin out of range",
       [](Builder& b) { b.doc["nodes"][3]["skin"] = 4; },
       {"nodes[3].skin = 4", "out of range"}},
  });
}

TEST(GltfBadInput, Skins) {
  run_cases({
      {"joint out of range",
       [](Builder& b) { b.doc["skins"][0]["joints"][1] = 9; },
       {"skins[0].joints[1] = 9", "out of range"}},
      {"no joints",
       [](Builder& b) { b.doc["skins"][0]["joints"] = Json::array(); },
       {"skins[0].joints", "non-empty"}},
      {"joints missing",
       [](Builder& b) { b.doc["skins"][0].erase("joints"); },
       {"skins[0].joints is missing"}},
      {"inverseBindMatrices out of range",
       [](Builder& b) { b.doc["skins"][0]["inverseBindMatrices"] = 99; },
       {"skins[0].inverseBindMatrices = 99", "out of range"}},
      {"inverseBindMatrices not MAT4",
       [](Builder& b) { b.doc["skins"][0]["inverseBindMatrices"] = kRotations; },
       {"skins[0].inverseBindMatrices", "MAT4"}},
      {"too few inverse bind matrices",
       [](Builder& b) { b.doc["accessors"][kIbm]["count"] = 2; },
       {"skins[0].inverseBindMatrices", "2 matrices for 3 joints"}},
      {"NaN in an inverse bind matrix",
       [](Builder& b) { poke(b, kIbm, 16 + 5, kNaN); },
       {"skins[0].inverseBindMatrices", "matrix 1 is not finite"}},
      {"skeleton out of range",
       [](Builder& b) { b.doc["skins"][0]["skeleton"] = 12; },
       {"skins[0].skeleton", "out of range"}},
  });
}

TEST(GltfBadInput, Meshes) {
  auto attributes = [](Builder& b) -> Json& {
    return b.doc["meshes"][0]["primitives"][0]["attributes"];
  };
  run_cases({
      {"POSITION missing",
       [&](Builder& b) { attributes(b).erase("POSITION"); },
       {"meshes[0].primitives[0].attributes.POSITION is missing"}},
      {"POSITION not VEC3",
       [&](Builder& b) { attributes(b)["POSITION"] = kWeights; },
       {"attributes.POSITION must be VEC3"}},
      {"NaN position",
       [](Builder& b) { poke(b, kPos, 4, kNaN); },
       {"attributes.POSITION: vertex 1 is not finite"}},
      {"infinite position",
       [](Builder& b) { poke(b, kPos, 8, -kInf); },
       {"attributes.POSITION: vertex 2 is not finite"}},
      {"index out of range",
       [](Builder& b) { poke(b, kIndices, 2, std::uint16_t{7}); },
       {"meshes[0].primitives[0].indices: index 2 = 7", "out of range"}},
      {"float indices",
       [](Builder& b) { b.doc["meshes"][0]["primitives"][0]["indices"] = kTimes; },
       {"accessors[5]", "indices"}},
      {"indices not SCALAR",
       [](Builder& b) { b.doc["meshes"][0]["primitives"][0]["indices"] = kJoints; },
       {"meshes[0].primitives[0].indices must be SCALAR"}},
      {"list of 2 indices",
       [](Builder& b) { b.doc["accessors"][kIndices]["count"] = 2; },
       {"meshes[0].primitives[0]", "triangle list of 2"}},
      {"unknown mode",
       [](Builder& b) { b.doc["meshes"][0]["primitives"][0]["mode"] = 9; },
       {"meshes[0].primitives[0].mode = 9"}},
      {"mode wrapping to a valid one",
       [](Builder& b) { b.doc["meshes"][0]["primitives"][0]["mode"] = (1ull << 32) + 4; },
       {"meshes[0].primitives[0].mode"}},
      {"NORMAL of the wrong count",
       [&](Builder& b) { attributes(b)["NORMAL"] = kScales; },
       {"attributes.NORMAL", "expected 3 elements"}},
      {"WEIGHTS_0 missing",
       [&](Builder& b) { attributes(b).erase("WEIGHTS_0"); },
       {"attributes: WEIGHTS_0 is missing beside JOINTS_0"}},
      {"JOINTS_1 without WEIGHTS_1",
       [&](Builder& b) { attributes(b)["JOINTS_1"] = kJoints; },
       {"WEIGHTS_1 is missing"}},
      {"joint beyond the skin",
       [](Builder& b) { poke(b, kJoints, 4, std::uint8_t{5}); },
       {"attributes.JOINTS_0: vertex 1 uses joint 5", "the skin has 3"}},
      {"negative weight",
       [](Builder& b) { poke(b, kWeights, 1, -0.5f); },
       {"attributes.WEIGHTS_0: vertex 0 has weight"}},
      {"NaN weight",
       [](Builder& b) { poke(b, kWeights, 8, kNaN); },
       {"attributes.WEIGHTS_0: vertex 2 has weight"}},
      {"float joints",
       [&](Builder& b) { attributes(b)["JOINTS_0"] = kWeights; },
       {"accessors[3]", "5126", "JOINTS_0"}},
      {"JOINTS_0 of the wrong count",
       [](Builder& b) { b.doc["accessors"][kJoints]["count"] = 2; },
       {"attributes", "JOINTS_0/WEIGHTS_0 count differs"}},
  });
}

TEST(GltfBadInput, AnimationIndices) {
  auto channel = [](Builder& b) -> Json& { return b.doc["animations"][0]["channels"][0]; };
  auto sampler = [](Builder& b) -> Json& { return b.doc["animations"][0]["samplers"][0]; };
  run_cases({
      {"target node out of range",
       [&](Builder& b) { channel(b)["target"]["node"] = 9; },
       {"animations[0].channels[0].target.node = 9", "out of range"}},
      {"sampler out of range",
       [&](Builder& b) { channel(b)["sampler"] = 3; },
       {"animations[0].channels[0].sampler = 3", "out of range"}},
      {"input accessor out of range",
       [&](Builder& b) { sampler(b)["input"] = 99; },
       {"animations[0].samplers[0].input = 99", "out of range"}},
      {"output accessor out of range",
       [&](Builder& b) { sampler(b)["output"] = 99; },
       {"animations[0].samplers[0].output = 99", "out of range"}},
      {"unknown path",
       [&](Builder& b) { channel(b)["target"]["path"] = "skew"; },
       {"animations[0].channels[0].target.path = 'skew'"}},
      {"unknown interpolation",
       [&](Builder& b) { sampler(b)["interpolation"] = "SMOOTH"; },
       {"animations[0].samplers[0].interpolation", "SMOOTH"}},
      {"output of the wrong type",
       [&](Builder& b) { sampler(b)["output"] = kScales; },
       {"animations[0].samplers[0].output", "VEC3 for a rotation"}},
      {"input not floats",
       [&](Builder& b) { sampler(b)["input"] = kIndices; },
       {"animations[0].samplers[0].input must be SCALAR floats"}},
      {"fewer values than keys",
       [](Builder& b) { b.doc["accessors"][kRotations]["count"] = 2; },
       {"animations[0].channels[0]", "3 key times but 8 values"}},
      {"cubic spline without tangents",
       [&](Builder& b) { sampler(b)["interpolation"] = "CUBICSPLINE"; },
       {"animations[0].channels[0]", "expected 36"}},
      {"two tracks on one channel",
       [&](Builder& b) {
         b.doc["animations"][0]["channels"][1] = {{"sampler", 0},
                                                  {"target", {{"node", 1}, {"path", "rotation"}}}};
       },
       {"animations[0]", "two rotation tracks"}},
      {"channels missing",
       [](Builder& b) { b.doc["animations"][0].erase("channels"); },
       {"animations[0].channels is missing"}},
      {"samplers not an array",
       [](Builder& b) { b.doc["animations"][0]["samplers"] = 1; },
       {"animations[0]", "must be arrays"}},
      {"no keys",
       [](Builder& b) {
         b.doc["accessors"][kTimes]["count"] = 0;
         b.doc["accessors"][kRotations]["count"] = 0;
       },
       {"animations[0].channels[0]", "no keys"}},
  });
}

TEST(GltfBadInput, AnimationKeys) {
  run_cases({
      {"NaN key time",
       [](Builder& b) { poke(b, kTimes, 1, kNaN); },
       {"animations[0].channels[0] (sampler 0)", "key 1", "non-finite"}},
      {"infinite key time",
       [](Builder& b) { poke(b, kTimes, 2, kInf); },
       {"animations[0].channels[0]", "key 2", "non-finite"}},
      {"NaN key value",
       [](Builder& b) { poke(b, kRotations, 5, kNaN); },
       {"animations[0].channels[0]", "key 1", "non-finite"}},
      {"infinite scale key",
       [](Builder& b) { poke(b, kScales, 3, -kInf); },
       {"animations[0].channels[1] (sampler 1)", "key 1", "non-finite"}},
      {"repeated key time",
       [](Builder& b) { poke(b, kTimes, 2, 0.5f); },
       {"animations[0].channels[0]", "strictly increasing", "key 2"}},
      {"decreasing key time",
       [](Builder& b) { poke(b, kScaleTimes, 1, -0.0f); },
       {"animations[0].channels[1]", "strictly increasing", "key 1"}},
      {"negative key time",
       [](Builder& b) { poke(b, kTimes, 0, -1.0f); },
       {"animations[0].channels[0]", "negative time"}},
  });
}

TEST(GltfBadInput, HostileValuesAreNotEchoedWhole) {
  // A nested value where an index belongs (deep, but within the nesting limit), and a long
  // string.
  std::string nested(1000, '[');
  nested += std::string(1000, ']');
  Builder b = base();
  std::string text = b.gltf_text();
  const std::string key = "\"skin\":0";
  ASSERT_NE(text.find(key), std::string::npos);
  text.replace(text.find(key), key.size(), "\"skin\":" + nested);
  expect_error(read_text(text), "t.gltf", {"nodes[3].skin", "non-negative integer"});

  b.doc["animations"][0]["samplers"][0]["interpolation"] = std::string(100000, 'Q');
  expect_error(read_text(b.gltf_text()), "t.gltf", {"animations[0].samplers[0].interpolation"});
}

TEST(GltfBadInput, JsonNestedPastTheLimitIsRefusedWhereItPassesIt) {
  // 100,000 '[' where an index belongs: nlohmann's parser would build it; marrow refuses it
  // before parsing, at the bracket that opens level 1025 (io::kMaxNestingDepth + 1). The
  // value sits in {"nodes": [ {...}]} (3 levels), so that is its 1022nd bracket.
  Builder b = base();
  std::string text = b.gltf_text();
  const std::string key = "\"skin\":0";
  const std::size_t at = text.find(key);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, key.size(), "\"skin\":" + std::string(100000, '[') + std::string(100000, ']'));
  std::size_t opened = 0, byte = 0;  // the bracket that opens level 1025, counted by hand
  bool quoted = false;
  for (; byte < text.size(); ++byte) {
    if (text[byte] == '"') quoted = !quoted;
    if (!quoted && (text[byte] == '[' || text[byte] == '{') && ++opened == 1025) break;
    if (!quoted && (text[byte] == ']' || text[byte] == '}')) --opened;
  }
  ASSERT_EQ(byte, at + key.size() - 1 + 1022 - 1);
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < byte; ++i) {
    column = text[i] == '\n' ? 1 : column + 1;
    line += text[i] == '\n' ? 1 : 0;
  }
  const marrow::Result<marrow::Asset> r = read_text(text);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "t.gltf:" + std::to_string(line) + ":" + std::to_string(column) +
                                   ": JSON nests arrays and objects deeper than 1024 levels, "
                                   "the most marrow reads");
}

// ---- The real assets, truncated and mutated -------------------------------------------------

std::vector<fs::path> real_assets(const std::string& extension) {
  std::vector<fs::path> files;
  if (!fs::exists(kAssets)) return files;
  for (const auto& entry : fs::directory_iterator(kAssets)) {
    if (entry.path().extension() == extension) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(GltfRealAssets, TruncatedGlbFailsCleanly) {
  const std::vector<fs::path> files = real_assets(".glb");
  if (files.empty()) GTEST_SKIP() << "no .glb assets in " << kAssets;
  TempDir dir("truncglb");
  for (const fs::path& file : files) {
    const Bytes bytes = read_file(file);
    for (double fraction : {0.0, 0.001, 0.1, 0.5, 0.99}) {
      const auto length = static_cast<std::size_t>(fraction * static_cast<double>(bytes.size()));
      SCOPED_TRACE(file.filename().string() + " cut to " + std::to_string(length));
      const fs::path cut = dir / file.filename().string();
      write_file(cut, Bytes(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(length)));
      expect_error(marrow::load_asset(cut.string()), cut.string(), {"byte", "truncated"});
    }
    // One byte short: the header's length no longer fits.
    const fs::path cut = dir / file.filename().string();
    write_file(cut, Bytes(bytes.begin(), bytes.end() - 1));
    expect_error(marrow::load_asset(cut.string()), cut.string(), {": byte 8", "truncated"});
  }
}

TEST(GltfRealAssets, TruncatedGltfFails) {
  const std::vector<fs::path> files = real_assets(".gltf");
  if (files.empty()) GTEST_SKIP() << "no .gltf assets in " << kAssets;
  TempDir dir("truncgltf");
  for (const fs::path& file : files) {
    const Bytes bytes = read_file(file);
    for (double fraction : {0.0, 0.1, 0.5, 0.99}) {
      const auto length = static_cast<std::size_t>(fraction * static_cast<double>(bytes.size()));
      SCOPED_TRACE(file.filename().string() + " cut to " + std::to_string(length));
      const fs::path cut = dir / file.filename().string();
      write_file(cut, Bytes(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(length)));
      expect_error(marrow::load_asset(cut.string()), cut.string(), {"JSON"});
    }
  }
}

TEST(GltfRealAssets, TruncatedExternalBufferFails) {
  // The .gltf files with an external .bin: the full JSON beside a cut .bin.
  bool any = false;
  TempDir dir("truncbin");
  for (const fs::path& file : real_assets(".gltf")) {
    const Bytes text = read_file(file);
    const Json doc = Json::parse(text.begin(), text.end());
    for (const Json& buffer : doc.value("buffers", Json::array())) {
      const std::string uri = buffer.value("uri", "");
      if (uri.empty() || uri.rfind("data:", 0) == 0 || !fs::exists(kAssets / uri)) continue;
      any = true;
      const Bytes bin = read_file(kAssets / uri);
      for (std::size_t length : {std::size_t{0}, bin.size() / 2, bin.size() - 1}) {
        SCOPED_TRACE(file.filename().string() + ": " + uri + " cut to " + std::to_string(length));
        write_file(dir / uri,
                   Bytes(bin.begin(), bin.begin() + static_cast<std::ptrdiff_t>(length)));
        expect_error(marrow::read_gltf(text, file.filename().string(), dir.path().string()),
                     file.filename().string(), {"buffers[", uri, "byteLength"});
      }
    }
  }
  if (!any) GTEST_SKIP() << "no .gltf with an external buffer in " << kAssets;
}

// Flips a few bytes; most mutations land in the header and JSON chunk, where the parser works.
TEST(GltfRealAssets, MutatedGlbNeverCrashes) {
  const std::vector<fs::path> files = real_assets(".glb");
  if (files.empty()) GTEST_SKIP() << "no .glb assets in " << kAssets;
  std::mt19937 rng(20240611);
  int failed = 0, loaded = 0;
  for (const fs::path& file : files) {
    const Bytes bytes = read_file(file);
    const std::size_t json_end =
        std::min(bytes.size(),
                 20 + std::size_t(bytes[12] | bytes[13] << 8 | bytes[14] << 16 | bytes[15] << 24));
    // The big files take long to load under the sanitizers: fewer mutations there.
    const int mutations = bytes.size() > 200000 ? 4 : 40;
    for (int m = 0; m < mutations; ++m) {
      Bytes mutated = bytes;
      const int flips = 1 + static_cast<int>(rng() % 3);
      std::string trace = file.filename().string() + " mutation " + std::to_string(m) + ":";
      for (int f = 0; f < flips; ++f) {
        const std::size_t range = rng() % 4 == 0 ? bytes.size() : json_end;
        const std::size_t at = rng() % range;
        mutated[at] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
        trace += " " + std::to_string(at);
      }
      SCOPED_TRACE(trace);
      const marrow::Result<Asset> result = marrow::read_gltf(mutated, "m.glb", kAssets.string());
      if (result.ok()) {
        ++loaded;
      } else {
        ++failed;
        EXPECT_EQ(result.error().message.rfind("m.glb", 0), 0u) << result.error().message;
      }
    }
  }
  EXPECT_GT(failed, 0);
  std::cout << "mutated GLB files: " << loaded << " loaded, " << failed << " refused\n";
}

// A vertex whose weights are all zero breaks the spec (they must sum to 1): the import warns,
// and SkinningMesh::build refuses the mesh naming the vertex.
TEST(GltfBadInput, VertexWithoutWeightIsReported) {
  Builder b = base();
  poke<float>(b, kWeights, 8, 0.0f);  // vertex 2's only weight
  const Asset asset = load(b.gltf_text());
  ASSERT_EQ(asset.warnings.size(), 1u);
  EXPECT_NE(asset.warnings[0].find("1 vertices have no weight above zero"), std::string::npos)
      << asset.warnings[0];
  auto built = marrow::SkinningMesh::build(asset.meshes[0], asset.skins[0].joints.size());
  ASSERT_FALSE(built.ok());
  EXPECT_NE(built.error().message.find("vertex 2: has no influence"), std::string::npos)
      << built.error().message;
}

}  // namespace
