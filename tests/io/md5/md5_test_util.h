// Hand-written MD5 files whose expected values are worked out by hand in the comments, and
// helpers shared by the MD5 tests.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "marrow/io/md5.h"
#include "marrow/math/quat.h"
#include "shared_asset.h"

namespace marrow::md5test {

// Two joints. "root" sits at (10, 0, 0) with orientation x, y, z = 0, 0, 0.70710678, so
// w = -sqrt(1 - 0.5) = -0.70710678: the quaternion (0, 0, s, -s), a turn of -90 degrees about z
// (x -> -y). "child" sits in the model at (10, 2, 0) with x, y, z = 0: w = -1, no turn. Local to
// root: translation R0⁻¹ (0, 2, 0) = (-2, 0, 0), rotation R0⁻¹ = +90 degrees about z.
// Vertex 0: one weight on child at (1, 0, 0): (10, 2, 0) + (1, 0, 0) = (11, 2, 0).
// Vertex 1: half on root at (-3, 2, 1): (10, 0, 0) + R0 (-3, 2, 1) = (12, 3, 1), and half on
// child at (2, 1, 1): (10, 2, 0) + (2, 1, 1) = (12, 3, 1) — both weights agree.
// Vertex 2: one weight on root at (1, 0, 0): (10, 0, 0) + (0, -1, 0) = (10, -1, 0).
inline const char* const kMesh = R"(MD5Version 10
commandline ""

numJoints 2
numMeshes 1

joints {
	"root"	-1 ( 10 0 0 ) ( 0 0 0.70710678 )		//
	"child"	0 ( 10 2 0 ) ( 0 0 0 )		// root
}

mesh {
	// meshes: body
	shader "skin"

	numverts 3
	vert 0 ( 0.1 0.2 ) 0 1
	vert 1 ( 0.3 0.4 ) 1 2
	vert 2 ( 0.5 0.6 ) 3 1

	numtris 1
	tri 0 0 1 2

	numweights 4
	weight 0 1 1 ( 1 0 0 )
	weight 1 0 0.5 ( -3 2 1 )
	weight 2 1 0.5 ( 2 1 1 )
	weight 3 0 1 ( 1 0 0 )
}
)";

// The same two joints animated over two frames at 24 per second. The base frame holds the
// local poses: root as in the mesh, child at (-2, 0, 0) with x, y, z = 0, 0, -0.70710678 (w =
// -0.70710678: the quaternion (0, 0, -s, -s) = +90 degrees about z). child's flags 9 = Tx | Qx:
// frame 0 gives Tx -2, Qx 0 (the base pose); frame 1 gives Tx -3, Qx 0.5, so its orientation is
// x, y, z = 0.5, 0, -0.70710678 and w = -sqrt(1 - 0.25 - 0.5) = -0.5.
inline const char* const kAnim = R"(MD5Version 10
commandline ""

numFrames 2
numJoints 2
frameRate 24
numAnimatedComponents 2

hierarchy {
	"root"	-1 0 0	//
	"child"	0 9 0	// root ( Tx Qx )
}

bounds {
	( -1 -1 -1 ) ( 1 1 1 )
	( -1 -1 -1 ) ( 1 1 1 )
}

baseframe {
	( 10 0 0 ) ( 0 0 0.70710678 )
	( -2 0 0 ) ( 0 0 -0.70710678 )
}

frame 0 {
	-2 0
}

frame 1 {
	-3 0.5
}
)";

inline std::string asset_path(const std::string& relative) {
  return marrow::test::shared_asset_path(relative);
}

// A fresh folder under the test temp dir.
inline std::filesystem::path fresh_dir(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

inline void expect_vec(Vec3 got, Vec3 want, float tol = 1e-5f) {
  EXPECT_NEAR(got.x, want.x, tol);
  EXPECT_NEAR(got.y, want.y, tol);
  EXPECT_NEAR(got.z, want.z, tol);
}

// The same rotation (q and -q alike).
inline void expect_rotation(Quat got, Quat want, float tol = 1e-5f) {
  EXPECT_NEAR(std::fabs(dot(got, want)), 1.0f, tol)
      << got.x << " " << got.y << " " << got.z << " " << got.w;
}

}  // namespace marrow::md5test
