// marrow render shows the face move: the scene renderer mixes the morph targets in before it
// places (or skins) a mesh, with the weights a pose gives, and two times of a weights clip give
// two different pictures.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "marrow/io/pose_dump.h"
#include "marrow/render/scene.h"
#include "morph_test_util.h"

namespace marrow {
namespace {

TEST(MorphRender, SceneRendererPlacesTheMorphedVertices) {
  const Asset a = morph_test::load(morph_test::two_target_cube(), "cube.gltf");
  Result<render::SceneRenderer> scene = render::SceneRenderer::create(a, {});
  ASSERT_TRUE(scene.ok()) << scene.error().message;
  const std::vector<Mat4> model(a.skeleton.size(), Mat4::identity());
  // No weights given: the mesh's defaults (0.25, 0): vertex 7 (0.5, 0.5, 0.5) is 0.25 higher.
  ASSERT_TRUE(scene->set_pose(model));
  EXPECT_NEAR(scene->positions(0)[7].y, 0.75f, 1e-6f);
  const float w[] = {1, 1};
  ASSERT_TRUE(scene->set_pose(model, w));
  EXPECT_NEAR(scene->positions(0)[7].x, 1.0f, 1e-6f);
  EXPECT_NEAR(scene->positions(0)[7].y, 1.5f, 1e-6f);
  EXPECT_NEAR(scene->positions(0)[0].y, -0.5f, 1e-6f);  // moved by neither target
}

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(MorphRender, TheCommandLineDrawsTheShapeAtEachTime) {
  const std::string dir = testing::TempDir();
  const std::string file = dir + "/render_cube.gltf";
  std::ofstream(file) << morph_test::two_target_cube().gltf_text();
  auto render = [&](const char* time, const std::string& out) {
    const std::string cmd = std::string(MARROW_BIN) + " render " + file +
                            " --clip linear --camera front --size 64x64 --time " + time +
                            " --out " + out + " > /dev/null 2>&1";
    return std::system(cmd.c_str());
  };
  ASSERT_EQ(render("0", dir + "/cube_t0.png"), 0);
  ASSERT_EQ(render("1", dir + "/cube_t1.png"), 0);
  EXPECT_NE(slurp(dir + "/cube_t0.png"), slurp(dir + "/cube_t1.png"));
}

}  // namespace
}  // namespace marrow
