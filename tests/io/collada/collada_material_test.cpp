// Collada materials: <bind_material> binds a primitive's symbol to a <material>, whose effect's
// profile_COMMON technique becomes a metallic-roughness material. Expected values are worked out
// by hand from the document below: colours are display values, made linear by the sRGB curve
// (0.5 -> ((0.5 + 0.055) / 1.055)^2.4 = 0.2140411, 0.25 -> 0.0508761).
#include <gtest/gtest.h>

#include <algorithm>

#include "collada_test_util.h"

namespace marrow {
namespace {

using collada_test::bytes;
using collada_test::document;
using collada_test::float_source;

// Four one-triangle primitives with the symbols SKIN, GLASS, GLOW and LOST; the instance binds
// the first three.
std::string materials_document() {
  auto triangles = [](const std::string& symbol) {
    return "<triangles material=\"" + symbol +
           "\" count=\"1\"><input semantic=\"VERTEX\" source=\"#g-v\" offset=\"0\"/>"
           "<p>0 1 2</p></triangles>";
  };
  const std::string libraries =
      "<library_images>"
      "<image id=\"img-skin\" name=\"skin\"><init_from>textures/skin.png</init_from></image>"
      "<image id=\"img-face\"><init_from>file:///C:/Art/face.jpg</init_from></image>"
      "</library_images>"
      "<library_effects>"
      "<effect id=\"fx-phong\"><profile_COMMON>"
      "<newparam sid=\"skin-surface\"><surface type=\"2D\"><init_from>img-skin</init_from>"
      "</surface></newparam>"
      "<newparam sid=\"skin-sampler\"><sampler2D><source>skin-surface</source>"
      "<wrap_s>CLAMP</wrap_s><wrap_t>MIRROR</wrap_t></sampler2D></newparam>"
      "<technique sid=\"common\"><phong>"
      "<emission><color>0.5 0.5 0.5 1</color></emission>"
      "<diffuse><texture texture=\"skin-sampler\" texcoord=\"UVSET0\"/></diffuse>"
      "<specular><color>1 1 1 1</color></specular><shininess><float>20</float></shininess>"
      "</phong></technique></profile_COMMON>"
      "<extra><technique profile=\"MAX3D\"><double_sided>1</double_sided></technique></extra>"
      "</effect>"
      "<effect id=\"fx-lambert\"><profile_COMMON><technique sid=\"common\"><lambert>"
      "<emission><texture texture=\"img-face\" texcoord=\"UVSET0\"/></emission>"
      "<diffuse><color>0.5 0.25 1 0.5</color></diffuse>"
      "</lambert></technique></profile_COMMON></effect>"
      "<effect id=\"fx-constant\"><profile_COMMON><technique sid=\"common\"><constant>"
      "<emission><color>1 0 0 1</color></emission>"
      "</constant></technique></profile_COMMON></effect>"
      "</library_effects>"
      "<library_materials>"
      "<material id=\"m-skin\" name=\"Skin\"><instance_effect url=\"#fx-phong\"/></material>"
      "<material id=\"m-glass\" name=\"Glass\"><instance_effect url=\"#fx-lambert\"/></material>"
      "<material id=\"m-glow\" name=\"Glow\"><instance_effect url=\"#fx-constant\"/></material>"
      "</library_materials>"
      "<library_geometries><geometry id=\"g\" name=\"tri\"><mesh>" +
      float_source("g-p", "0 0 0 1 0 0 0 1 0", 3, 3) +
      "<vertices id=\"g-v\"><input semantic=\"POSITION\" source=\"#g-p\"/></vertices>" +
      triangles("SKIN") + triangles("GLASS") + triangles("GLOW") + triangles("LOST") +
      "</mesh></geometry></library_geometries>";
  const std::string nodes =
      "<node id=\"n\" name=\"n\"><instance_geometry url=\"#g\"><bind_material><technique_common>"
      "<instance_material symbol=\"SKIN\" target=\"#m-skin\"/>"
      "<instance_material symbol=\"GLASS\" target=\"#m-glass\"/>"
      "<instance_material symbol=\"GLOW\" target=\"#m-glow\"/>"
      "</technique_common></bind_material></instance_geometry></node>";
  return document("", libraries, nodes);
}

bool has_warning(const Asset& a, const std::string& part) {
  return std::any_of(a.warnings.begin(), a.warnings.end(),
                     [&](const std::string& w) { return w.find(part) != std::string::npos; });
}

TEST(ColladaMaterials, EffectsBecomeMetallicRoughnessMaterials) {
  const std::string text = materials_document();
  Result<Asset> a = read_collada(bytes(text), "/models/char.dae");
  ASSERT_TRUE(a.ok()) << a.error().message;
  ASSERT_EQ(a->meshes.size(), 4u);
  EXPECT_EQ(a->meshes[0].material, 0);
  EXPECT_EQ(a->meshes[1].material, 1);
  EXPECT_EQ(a->meshes[2].material, 2);
  EXPECT_EQ(a->meshes[3].material, -1);
  EXPECT_TRUE(has_warning(*a, "material 'LOST' of 'tri' is not bound; drawn plain"));
  ASSERT_EQ(a->materials.size(), 3u);

  const Material& skin = a->materials[0];
  EXPECT_EQ(skin.name, "Skin");
  EXPECT_EQ(skin.base_color.image, 0);
  EXPECT_EQ(skin.base_color.wrap_u, TextureWrap::kClampToEdge);
  EXPECT_EQ(skin.base_color.wrap_v, TextureWrap::kMirroredRepeat);
  EXPECT_EQ(skin.base_color_factor, (std::array<float, 4>{1, 1, 1, 1}));
  for (float e : skin.emissive_factor) EXPECT_NEAR(e, 0.2140411f, 1e-6f);
  EXPECT_EQ(skin.metallic_factor, 0);
  EXPECT_EQ(skin.roughness_factor, 1);
  EXPECT_TRUE(skin.double_sided);
  EXPECT_FALSE(skin.unlit);

  const Material& glass = a->materials[1];
  EXPECT_NEAR(glass.base_color_factor[0], 0.2140411f, 1e-6f);
  EXPECT_NEAR(glass.base_color_factor[1], 0.0508761f, 1e-6f);
  EXPECT_NEAR(glass.base_color_factor[2], 1.0f, 1e-6f);
  EXPECT_EQ(glass.base_color_factor[3], 0.5f);
  EXPECT_EQ(glass.alpha_mode, AlphaMode::kBlend);
  EXPECT_EQ(glass.emissive.image, 1);  // the <image> named directly, without a sampler
  EXPECT_EQ(glass.emissive_factor, (std::array<float, 3>{1, 1, 1}));
  EXPECT_FALSE(glass.double_sided);

  const Material& glow = a->materials[2];
  EXPECT_TRUE(glow.unlit);
  EXPECT_EQ(glow.base_color_factor, (std::array<float, 4>{1, 0, 0, 1}));

  // Images beside the document; an absolute path is looked for by its name beside it, noted.
  ASSERT_EQ(a->images.size(), 2u);
  EXPECT_EQ(a->images[0].name, "skin");
  EXPECT_EQ(a->images[0].path, "/models/textures/skin.png");
  EXPECT_EQ(a->images[1].path, "/models/face.jpg");
  EXPECT_TRUE(has_warning(*a,
                          "'/C:/Art/face.jpg' is outside the document's folder; looked for "
                          "as face.jpg beside it"));
  EXPECT_TRUE(has_warning(*a, "the effects' <shininess>, <specular> not kept"));
}

// A path that climbs out of the document's folder is not followed either.
TEST(ColladaMaterials, AnImagePathLeavingTheFolderIsNotFollowed) {
  std::string text = materials_document();
  const std::string from = "textures/skin.png";
  text.replace(text.find(from), from.size(), "../../etc/skin.png");
  Result<Asset> a = read_collada(bytes(text), "/models/char.dae");
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ(a->images.at(0).path, "/models/skin.png");
  EXPECT_TRUE(has_warning(*a, "'../../etc/skin.png' is outside the document's folder"));
}

}  // namespace
}  // namespace marrow
