// Materials through every writer (issue 30): what a reader puts in Asset::materials and
// Asset::images comes back from .glb, .gltf (images beside it) and .marrow with every factor
// equal and every image's bytes identical; what glTF cannot hold is named in a note.
#include <fstream>
#include <numeric>

#include "formats_test_util.h"
#include "marrow/clip/clip_builder.h"
#include "marrow/io/archive.h"
#include "marrow/io/gltf.h"
#include "marrow/io/gltf_export.h"
#include "marrow/io/save.h"

namespace formats_test {
namespace {

using namespace marrow;

// 2 x 2 RGBA PNGs, red and blue (written by hand: signature, IHDR, one zlib IDAT, IEND).
const Bytes kRedPng = {0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49,
                       0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x08, 0x06,
                       0x00, 0x00, 0x00, 0x72, 0xb6, 0x0d, 0x24, 0x00, 0x00, 0x00, 0x11, 0x49, 0x44,
                       0x41, 0x54, 0x78, 0xda, 0x63, 0xf8, 0xcf, 0xc0, 0xf0, 0x1f, 0x84, 0x19, 0x60,
                       0x0c, 0x00, 0x47, 0xca, 0x07, 0xf9, 0x1a, 0xb6, 0xf1, 0xa9, 0x00, 0x00, 0x00,
                       0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};
const Bytes kBluePng = {
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44,
    0x52, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x08, 0x06, 0x00, 0x00, 0x00, 0x72,
    0xb6, 0x0d, 0x24, 0x00, 0x00, 0x00, 0x10, 0x49, 0x44, 0x41, 0x54, 0x78, 0xda, 0x63, 0x60,
    0x60, 0xf8, 0xff, 0x1f, 0x82, 0xa1, 0x0c, 0x00, 0x3f, 0xd2, 0x07, 0xf9, 0x5c, 0x13, 0xe0,
    0x42, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82};
// The start of a BMP: an encoding glTF cannot hold.
const Bytes kBmp = {'B', 'M', 0x46, 0, 0, 0, 0, 0, 0, 0, 0x36, 0, 0, 0};

TextureRef texture(int image, std::uint32_t set) {
  TextureRef t;
  t.image = image;
  t.texcoord = set;
  return t;
}

// One triangle with UVs and vertex colours; three images (red PNG embedded, blue PNG in a file
// beside, a BMP); a material using every field, one using the BMP, one plain.
Asset surfaced_asset(const fs::path& folder) {
  Asset a;
  a.source = "surfaced";
  const JointDesc joints[] = {{"root", -1, Transform::identity()}};
  a.skeleton = Skeleton::build(joints, "surfaced").value();
  a.source_index = {0};
  std::ofstream(folder / "blue.png", std::ios::binary)
      .write(reinterpret_cast<const char*>(kBluePng.data()),
             static_cast<std::streamsize>(kBluePng.size()));
  a.images = {{"red", "", kRedPng, "image/png"},
              {"blue", (folder / "blue.png").string(), {}, ""},
              {"old", "", kBmp, ""}};
  Material full;
  full.name = "full";
  full.base_color_factor = {0.5f, 0.25f, 1, 0.75f};
  full.base_color = {0,
                     0,
                     TextureWrap::kClampToEdge,
                     TextureWrap::kMirroredRepeat,
                     9729,
                     9987,
                     TextureTransform{{0.5f, -0.25f}, 0.125f, {2, 3}}};
  full.metallic_factor = 0.25f;
  full.roughness_factor = 0.5f;
  full.metallic_roughness = texture(1, 0);
  full.normal = texture(1, 1);
  full.normal_scale = 0.75f;
  full.occlusion = texture(0, 0);
  full.occlusion_strength = 0.5f;
  full.emissive = texture(1, 0);
  full.emissive_factor = {1, 0.5f, 0};
  full.emissive_strength = 4;
  full.alpha_mode = AlphaMode::kMask;
  full.alpha_cutoff = 0.25f;
  full.double_sided = true;
  Material old;
  old.name = "old";
  old.base_color.image = 2;
  Material plain;
  plain.name = "plain";
  plain.unlit = true;
  plain.alpha_mode = AlphaMode::kBlend;
  a.materials = {full, old, plain};
  SkinnedMesh m;
  m.name = "tri";
  m.node = 0;
  m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  m.normals = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}};
  m.uvs = {{{0, 0}}, {{1, 0}}, {{0, 1}}};
  m.colors = {{{1, 0, 0, 1}}, {{0, 1, 0, 0.5f}}, {{0, 0, 1, 1}}};
  m.indices = {0, 1, 2};
  m.material = 0;
  a.meshes.push_back(m);
  return a;
}

Bytes bytes_of(const MaterialImage& image) {
  Result<Bytes> b = image_bytes(image);
  EXPECT_TRUE(b.ok()) << b.error().message;
  return b.ok() ? *b : Bytes{};
}

// `back`'s materials are `source`'s, the image indices mapped by `image_of` (-1: left out).
void expect_same_materials(const Asset& source, const Asset& back, const std::vector<int>& image_of,
                           const std::string& where, bool gltf) {
  ASSERT_EQ(back.materials.size(), source.materials.size()) << where;
  for (std::size_t m = 0; m < source.materials.size(); ++m) {
    Material expected = source.materials[m];
    for (TextureRef* t : {&expected.base_color, &expected.metallic_roughness, &expected.normal,
                          &expected.occlusion, &expected.emissive}) {
      if (t->image < 0) continue;
      t->image = image_of.at(static_cast<std::size_t>(t->image));
      // glTF leaves out a texture whose image it cannot hold, or that reads a UV set other
      // than the one marrow's meshes carry.
      if (t->image < 0 || (gltf && t->texcoord != 0)) *t = TextureRef{};
    }
    // glTF keeps a normal map's scale and an occlusion map's strength inside the texture.
    if (gltf && !expected.normal.present()) expected.normal_scale = 1;
    if (gltf && !expected.occlusion.present()) expected.occlusion_strength = 1;
    EXPECT_EQ(back.materials[m], expected) << where << ": material " << m;
  }
  for (std::size_t i = 0; i < source.images.size(); ++i) {
    if (image_of[i] < 0) continue;
    const MaterialImage& image = back.images.at(static_cast<std::size_t>(image_of[i]));
    EXPECT_EQ(image.name, source.images[i].name) << where;
    if (image_bytes(source.images[i]))
      EXPECT_EQ(bytes_of(image), bytes_of(source.images[i])) << where << ": image " << i;
    else
      EXPECT_EQ(image.path, source.images[i].path) << where << ": image " << i;
  }
}

bool has_note(const std::vector<std::string>& notes, const std::string& part) {
  return std::any_of(notes.begin(), notes.end(),
                     [&](const std::string& n) { return n.find(part) != std::string::npos; });
}

TEST(Materials, EveryFieldSurvivesEveryWriter) {
  TempDir dir("materials");
  const Asset source = surfaced_asset(dir.path());
  std::vector<fs::path> gltf_files;
  for (const char* name : {"out.glb", "out.gltf", "embedded.gltf", "out.marrow"}) {
    SCOPED_TRACE(name);
    const fs::path out = dir / name;
    std::vector<std::string> notes;
    const Status st = std::string(name) == "embedded.gltf"
                          ? write_gltf(source, out.string(), {.embed_buffer = true}, &notes)
                          : save_asset(source, out.string(), &notes);
    ASSERT_TRUE(st.ok()) << st.error().message;
    Result<Asset> back = load_asset(out.string());
    ASSERT_TRUE(back.ok()) << back.error().message;
    const bool archive = out.extension() == ".marrow";
    // glTF holds PNG and JPEG: the BMP is left out, with a note; the archive keeps all three.
    expect_same_materials(source, *back,
                          archive ? std::vector<int>{0, 1, 2} : std::vector<int>{0, 1, -1}, name,
                          !archive);
    EXPECT_EQ(has_note(notes, "image 'old': not PNG or JPEG"), !archive);
    EXPECT_EQ(has_note(notes, "material 'full': its normal texture reads TEXCOORD_1"), !archive);
    ASSERT_EQ(back->meshes.size(), 1u);
    EXPECT_EQ(back->meshes[0].material, 0);
    EXPECT_EQ(back->meshes[0].colors, source.meshes[0].colors);
    if (!archive) gltf_files.push_back(out);
  }
  // A .gltf keeps its images as files beside it, byte for byte.
  EXPECT_EQ(dir.files(),
            (std::vector<std::string>{"blue.png", "embedded.gltf", "out.bin", "out.glb", "out.gltf",
                                      "out.marrow", "out_image0.png", "out_image1.png"}));
  std::ifstream beside(dir / "out_image1.png", std::ios::binary);
  EXPECT_EQ(Bytes(std::istreambuf_iterator<char>(beside), {}), kBluePng);
  const Validation v = validate_gltf(gltf_files);
  if (!v.ran) GTEST_SKIP() << "the validator is unavailable: " << v.report;
  EXPECT_EQ(v.errors, 0) << v.report;
}

// `marrow info` lists the materials and images, and `marrow convert` prints the writer's notes.
TEST(Materials, InfoListsThemAndConvertNamesWhatGltfCannotHold) {
  TempDir dir("materials_cli");
  const Asset source = surfaced_asset(dir.path());
  const std::string archive = (dir / "in.marrow").string();
  ASSERT_TRUE(save_asset(source, archive).ok());
  const Outcome info = run_marrow(dir, {"info", archive});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  for (const char* line :
       {"materials: 3\n",
        "  [0] 'full'  base colour (0.5, 0.25, 1, 0.75), texture image 0 "
        "(transformed), metallic 0.25, roughness 0.5, metallic-roughness image 1, "
        "normal image 1 (uv set 1), occlusion image 0, emissive image 1, emissive "
        "(1, 0.5, 0) x 4, alpha mask 0.25, double-sided\n",
        "  [2] 'plain'  base colour (1, 1, 1, 1), metallic 0, roughness 1, alpha blend, unlit\n",
        "images: 3\n", "  [0] 'red'  embedded, 74 bytes, image/png\n",
        "  [2] 'old'  embedded, 14 bytes\n", "vertex colours, material 0"})
    EXPECT_NE(info.out.find(line), std::string::npos) << line << "\nin:\n" << info.out;
  const Outcome convert = run_marrow(dir, {"convert", archive, (dir / "out.glb").string()});
  ASSERT_EQ(convert.exit_code, 0) << convert.err;
  EXPECT_NE(convert.err.find("image 'old': not PNG or JPEG"), std::string::npos) << convert.err;
}

// An .mtl's colours and maps, by hand: Kd, Ke, map_Kd with -clamp, -o and -s, map_Ke, norm;
// map_Ks has no place and is named.
TEST(Materials, ObjLibrariesGiveColoursMapsAndTheirOptions) {
  TempDir dir("materials_obj");
  std::ofstream(dir / "quad.obj") << "mtllib quad.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\n"
                                     "vt 0 0\nvt 1 0\nvt 0 1\nusemtl paint\nf 1/1 2/2 3/3\n";
  std::ofstream(dir / "quad.mtl") << "newmtl paint\nKd 0.5 0.25 1\nKe 0.1 0.2 0.3\n"
                                     "map_Kd -clamp on -o 0.5 0.25 0 -s 2 3 1 paint.png\n"
                                     "map_Ke glow.png\nnorm bumps.png\nmap_Ks shine.png\n";
  Result<Asset> a = load_asset((dir / "quad.obj").string());
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_EQ(a->materials.size(), 1u);
  const Material& m = a->materials[0];
  EXPECT_EQ(m.base_color_factor, (std::array<float, 4>{0.5f, 0.25f, 1, 1}));
  EXPECT_EQ(m.emissive_factor, (std::array<float, 3>{0.1f, 0.2f, 0.3f}));
  ASSERT_TRUE(m.base_color.present() && m.emissive.present() && m.normal.present());
  EXPECT_EQ(a->images.at(static_cast<std::size_t>(m.base_color.image)).path,
            (dir / "paint.png").string());
  EXPECT_EQ(a->images.at(static_cast<std::size_t>(m.emissive.image)).path,
            (dir / "glow.png").string());
  EXPECT_EQ(a->images.at(static_cast<std::size_t>(m.normal.image)).path,
            (dir / "bumps.png").string());
  EXPECT_EQ(m.base_color.wrap_u, TextureWrap::kClampToEdge);
  ASSERT_TRUE(m.base_color.transform.has_value());
  EXPECT_EQ(m.base_color.transform->offset, (std::array<float, 2>{0.5f, 0.25f}));
  EXPECT_EQ(m.base_color.transform->scale, (std::array<float, 2>{2, 3}));
  EXPECT_TRUE(has_note(a->warnings, "map_Ks not kept"));
  EXPECT_EQ(a->meshes.at(0).material, 0);
}

// The .mtl options -o, -s and -t take one to three numbers, -mm one or two (the MTL format's
// definition); tinyobjloader reads three (two) and took the file name for the rest, losing the
// texture without a word. Each short form keeps its texture and reads as the format's defaults
// fill it (offset and turbulence 0, scale 1).
TEST(Materials, ObjShortTextureOptionsKeepTheirTextures) {
  TempDir dir("materials_obj_short");
  std::ofstream(dir / "tri.obj") << "mtllib tri.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\n"
                                    "vt 0 0\nvt 1 0\nvt 0 1\nusemtl a\nf 1/1 2/2 3/3\n"
                                    "usemtl b\nf 1/1 2/2 3/3\n";
  std::ofstream(dir / "tri.mtl") << "newmtl a\nmap_Kd -s 2 3 paint.png\nmap_Ke -o 0.5 glow.png\n"
                                    "norm -mm 0.2 -t 1 bumps.png\n"
                                    "newmtl b\nmap_Kd -clamp on -s 4 2d.png\n";
  Result<Asset> a = load_asset((dir / "tri.obj").string());
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_EQ(a->materials.size(), 2u);
  const Material& m = a->materials[0];
  ASSERT_TRUE(m.base_color.present() && m.emissive.present() && m.normal.present());
  auto image_path = [&](const TextureRef& t) {
    return a->images.at(static_cast<std::size_t>(t.image)).path;
  };
  EXPECT_EQ(image_path(m.base_color), (dir / "paint.png").string());
  EXPECT_EQ(image_path(m.emissive), (dir / "glow.png").string());
  EXPECT_EQ(image_path(m.normal), (dir / "bumps.png").string());
  ASSERT_TRUE(m.base_color.transform.has_value());
  EXPECT_EQ(m.base_color.transform->scale, (std::array<float, 2>{2, 3}));
  EXPECT_EQ(m.base_color.transform->offset, (std::array<float, 2>{0, 0}));
  ASSERT_TRUE(m.emissive.transform.has_value());
  EXPECT_EQ(m.emissive.transform->offset, (std::array<float, 2>{0.5f, 0}));
  EXPECT_EQ(m.emissive.transform->scale, (std::array<float, 2>{1, 1}));
  const Material& b = a->materials[1];
  ASSERT_TRUE(b.base_color.present());
  EXPECT_EQ(image_path(b.base_color), (dir / "2d.png").string());
  ASSERT_TRUE(b.base_color.transform.has_value());
  EXPECT_EQ(b.base_color.transform->scale, (std::array<float, 2>{4, 1}));
  EXPECT_EQ(b.base_color.wrap_u, TextureWrap::kClampToEdge);
}

// The .mtl PBR extension: a stated Pr/Pm (0 included) is the roughness/metalness, an absent one
// leaves marrow's non-metal, fully rough default (the parser alone reads absent as 0); a newmtl
// without a name is no statement (tinyobjloader trims it away), so the Pr after it is the
// previous material's, as the parser reads it; the extension's other statements and maps are
// named.
TEST(Materials, ObjPbrStatementsAreReadWhereStated) {
  TempDir dir("materials_obj_pbr");
  std::ofstream(dir / "tri.obj") << "mtllib tri.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
  std::ofstream(dir / "tri.mtl") << "newmtl metal\nKd 1 1 1\nPr 0.25\n  Pm\t0.75\n"
                                    "newmtl \nPr 0.9\n"
                                    "newmtl zero\r\nPr 0\r\nPm 0\r\n"
                                    "newmtl plain\nKd 0.5 0.5 0.5\n# Pr 0.1\nPc 0.5\n"
                                    "map_Pr rough.png\n";
  Result<Asset> a = load_asset((dir / "tri.obj").string());
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_EQ(a->materials.size(), 3u);
  EXPECT_EQ(a->materials[0].name, "metal");
  EXPECT_EQ(a->materials[0].roughness_factor, 0.9f);
  EXPECT_EQ(a->materials[0].metallic_factor, 0.75f);
  EXPECT_EQ(a->materials[1].name, "zero");
  EXPECT_EQ(a->materials[1].roughness_factor, 0.0f);
  EXPECT_EQ(a->materials[1].metallic_factor, 0.0f);
  EXPECT_EQ(a->materials[2].name, "plain");
  EXPECT_EQ(a->materials[2].roughness_factor, 1.0f);
  EXPECT_EQ(a->materials[2].metallic_factor, 0.0f);
  EXPECT_TRUE(has_note(a->warnings, "Pc, map_Pr not kept"))
      << ::testing::PrintToString(a->warnings);
}

// SMD names each triangle's material by its texture file (studiomdl's convention).
TEST(Materials, SmdMaterialsAreTheirTextureFiles) {
  const std::string path = shared_asset("smd/WusonSMD.smd");
  MARROW_REQUIRE_FILE(path);
  Result<Asset> a = load_asset(path);
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_FALSE(a->materials.empty());
  for (const SkinnedMesh& mesh : a->meshes) {
    ASSERT_GE(mesh.material, 0);
    const Material& m = a->materials.at(static_cast<std::size_t>(mesh.material));
    EXPECT_EQ(m.name, mesh.name);
    ASSERT_TRUE(m.base_color.present());
    EXPECT_EQ(a->images.at(static_cast<std::size_t>(m.base_color.image)).path,
              (fs::path(path).parent_path() / m.name).lexically_normal().string());
  }
}

// FBX materials through assimp (in the isolated child and in process alike): every mesh of the
// shared FBX files has a material with finite factors, and the two readings agree.
TEST(Materials, FbxMaterialsCrossTheIsolatedImport) {
  const std::string path = shared_asset("fbx/arnaud.fbx");
  MARROW_REQUIRE_FILE(path);
  Result<Asset> isolated = load_asset(path);
  LoadOptions in_process;
  in_process.isolate_importers = false;
  Result<Asset> direct = load_asset(path, in_process);
  ASSERT_TRUE(isolated.ok() && direct.ok());
  ASSERT_FALSE(direct->materials.empty());
  EXPECT_EQ(isolated->materials, direct->materials);
  ASSERT_EQ(isolated->images.size(), direct->images.size());
  for (std::size_t i = 0; i < direct->images.size(); ++i)
    EXPECT_EQ(isolated->images[i].path, direct->images[i].path) << i;
  for (const SkinnedMesh& mesh : direct->meshes)
    EXPECT_LT(mesh.material, static_cast<int>(direct->materials.size()));
}

// An image whose file is gone: glTF leaves its textures out and the archive keeps the path, each
// with a note naming the file.
TEST(Materials, AMissingImageFileIsNamed) {
  TempDir dir("materials_missing");
  Asset source = surfaced_asset(dir.path());
  fs::remove(dir / "blue.png");
  std::vector<std::string> notes;
  ASSERT_TRUE(save_asset(source, (dir / "out.glb").string(), &notes).ok());
  EXPECT_TRUE(has_note(notes, "image 'blue': cannot open " + (dir / "blue.png").string() +
                                  "; its textures are left out"));
  notes.clear();
  ASSERT_TRUE(save_asset(source, (dir / "out.marrow").string(), &notes).ok());
  EXPECT_TRUE(has_note(notes, "image 'blue': cannot open " + (dir / "blue.png").string() +
                                  "; kept by its path only"));
  Result<Asset> back = load_asset((dir / "out.marrow").string());
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->images.at(1).path, (dir / "blue.png").string());
  EXPECT_TRUE(back->images.at(1).bytes.empty());
  // `marrow compile --out` says so too.
  ClipBuilder wave("wave");
  const float times[] = {0, 1}, moves[] = {0, 0, 0, 1, 0, 0};
  ASSERT_TRUE(wave.add_track(0, "root", TrackTarget::kTranslation, Interpolation::kLinear, times,
                             moves, "t")
                  .ok());
  source.clips.push_back(wave.build(1, "t").value());
  const std::string gltf = (dir / "in.gltf").string();
  ASSERT_TRUE(save_asset(source, gltf).ok());  // blue.png gone: written without it
  const Outcome o = run_marrow(dir, {"compile", gltf, "--out", (dir / "compiled.marrow").string()});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  fs::remove(dir / "in_image0.png");  // an image the .gltf names, gone before compiling again
  const Outcome gone =
      run_marrow(dir, {"compile", gltf, "--out", (dir / "compiled2.marrow").string()});
  ASSERT_EQ(gone.exit_code, 0) << gone.err;
  EXPECT_NE(gone.err.find("compiled2.marrow: image 'red': cannot open"), std::string::npos)
      << gone.err;
}

// The shared assets' own materials through .glb, .gltf and .marrow: factors equal, image bytes
// identical (the PNG and JPEG images these files hold; glTF takes both).
TEST(Materials, SharedAssetsKeepTheirMaterials) {
  TempDir dir("materials_shared");
  std::size_t with_materials = 0;
  for (const char* name : {"gltf/Soldier.glb", "gltf/Xbot.glb", "gltf/cesium_man.gltf",
                           "x/Testwuson.X", "x/test.x", "md5/BoarMan.md5mesh"}) {
    const std::string path = shared_asset(name);
    if (!fs::exists(path)) continue;
    Result<Asset> source = load_asset(path);
    ASSERT_TRUE(source.ok()) << source.error().message;
    if (source->materials.empty()) continue;
    ++with_materials;
    std::vector<int> image_of;
    int kept = 0;
    for (const MaterialImage& image : source->images) {
      Result<Bytes> b = image_bytes(image);
      image_of.push_back(b && !image_mime_type(*b).empty() ? kept++ : -1);
    }
    for (const char* ext : {".glb", ".gltf", ".marrow"}) {
      const fs::path out = dir / (fs::path(name).stem().string() + ext);
      ASSERT_TRUE(save_asset(*source, out.string()).ok()) << name << ext;
      Result<Asset> back = load_asset(out.string());
      ASSERT_TRUE(back.ok()) << back.error().message;
      // The archive keeps every image: its bytes, or its path when its file is unreadable.
      std::vector<int> all(source->images.size());
      std::iota(all.begin(), all.end(), 0);
      const bool archive = std::string(ext) == ".marrow";
      expect_same_materials(*source, *back, archive ? all : image_of, std::string(name) + ext,
                            !archive);
      // glTF may group meshes as primitives differently: the materials they use are the same.
      std::vector<int> used, used_back;
      for (const SkinnedMesh& m : source->meshes) used.push_back(m.material);
      for (const SkinnedMesh& m : back->meshes) used_back.push_back(m.material);
      std::sort(used.begin(), used.end());
      std::sort(used_back.begin(), used_back.end());
      EXPECT_EQ(used_back, used) << name << ext;
    }
  }
  if (with_materials == 0) GTEST_SKIP() << "no shared asset with materials is present";
}

}  // namespace
}  // namespace formats_test
