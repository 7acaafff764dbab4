// Hand-written Collada documents for the tests, and helpers. Every expected value in the tests
// is worked out from these texts by hand (or by the formulas written beside them), never from
// the reader's output.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "marrow/io/collada.h"
#include "shared_asset.h"

namespace collada_test {

inline std::span<const std::uint8_t> bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

inline std::string shared(const std::string& relative) {
  return marrow::test::shared_asset_path(relative);
}

// A <source> of floats with one accessor param per component.
inline std::string float_source(const std::string& id, const std::string& values, std::size_t count,
                                std::size_t stride = 1) {
  return "<source id=\"" + id + "\"><float_array id=\"" + id + "-a\" count=\"" +
         std::to_string(count * stride) + "\">" + values +
         "</float_array><technique_common><accessor source=\"#" + id + "-a\" count=\"" +
         std::to_string(count) + "\" stride=\"" + std::to_string(stride) +
         "\"><param type=\"float\"/></accessor></technique_common></source>";
}

inline std::string name_source(const std::string& id, const std::string& names, std::size_t count,
                               const char* array = "Name_array") {
  return "<source id=\"" + id + "\"><" + array + " id=\"" + id + "-a\" count=\"" +
         std::to_string(count) + "\">" + names + "</" + array +
         "><technique_common><accessor source=\"#" + id + "-a\" count=\"" + std::to_string(count) +
         "\"><param type=\"name\"/></accessor></technique_common></source>";
}

// One <animation> with one sampler and channel.
inline std::string animation(const std::string& id, const std::string& target,
                             const std::string& times, std::size_t keys, const std::string& values,
                             std::size_t dim, const std::string& interpolations,
                             const std::string& in_tangents = "",
                             const std::string& out_tangents = "", std::size_t tangent_dim = 2) {
  std::string a = "<animation id=\"" + id + "\">" + float_source(id + "-in", times, keys) +
                  float_source(id + "-out", values, keys, dim) +
                  name_source(id + "-interp", interpolations, keys);
  if (!in_tangents.empty()) {
    a += float_source(id + "-intan", in_tangents, keys, dim * tangent_dim);
    a += float_source(id + "-outtan", out_tangents, keys, dim * tangent_dim);
  }
  a += "<sampler id=\"" + id + "-s\"><input semantic=\"INPUT\" source=\"#" + id +
       "-in\"/><input semantic=\"OUTPUT\" source=\"#" + id +
       "-out\"/><input semantic=\"INTERPOLATION\" source=\"#" + id + "-interp\"/>";
  if (!in_tangents.empty()) {
    a += "<input semantic=\"IN_TANGENT\" source=\"#" + id +
         "-intan\"/><input semantic=\"OUT_TANGENT\" source=\"#" + id + "-outtan\"/>";
  }
  a += "</sampler><channel source=\"#" + id + "-s\" target=\"" + target + "\"/></animation>";
  return a;
}

inline std::string document(const std::string& asset, const std::string& libraries,
                            const std::string& nodes) {
  return "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
         "<COLLADA xmlns=\"http://www.collada.org/2005/11/COLLADASchema\" version=\"1.4.1\">\n"
         "<asset>" +
         asset + "</asset>\n" + libraries +
         "\n<library_visual_scenes><visual_scene id=\"scene\" name=\"scene\">\n" + nodes +
         "\n</visual_scene></library_visual_scenes>\n"
         "<scene><instance_visual_scene url=\"#scene\"/></scene>\n</COLLADA>\n";
}

// Node "n" with <translate sid="t">: its X follows a BEZIER curve, its Y a HERMITE curve (both
// with 2-D tangents), its Z is linear with a jump at 1 s (keys 0, 1, 1, 2: 0, 10, 20, 30).
//  X: P0 = (0, 0), C0 = (1.5, 4) (out-tangent of key 0), C1 = (1.8, 1) (in-tangent of key 1),
//     P1 = (2, 2): x(s) = 4.5 s - 3.6 s^2 + 1.1 s^3, value(s) = 12 s - 21 s^2 + 11 s^3.
//  Y: P0 = (0, 1), T0 = (3, 6), P1 = (2, 3), T1 = (1.5, -3): with the Hermite basis,
//     x(s) = 3 s - 1.5 s^2 + 0.5 s^3, value(s) = 1 + 6 s - 3 s^2 - s^3.
inline std::string curves_document() {
  const std::string libs =
      "<library_animations>" +
      animation("bx", "n/t.X", "0 2", 2, "0 2", 1, "BEZIER BEZIER", "-1 0 1.8 1", "1.5 4 3 2") +
      animation("hy", "n/t.Y", "0 2", 2, "1 3", 1, "HERMITE HERMITE", "0 0 1.5 -3", "3 6 0 0") +
      animation("lz", "n/t.Z", "0 1 1 2", 4, "0 10 20 30", 1, "LINEAR LINEAR LINEAR LINEAR") +
      "</library_animations>";
  return document("<unit meter=\"1\"/><up_axis>Y_UP</up_axis>", libs,
                  "<node id=\"n\" name=\"n\"><translate sid=\"t\">0 0 0</translate></node>");
}

// A Maya-style joint chain in centimetres, Z up: joint1 has translate, rotateZ, rotateY,
// rotateX (per-axis ANGLE channels) and scale; joint2 under it has one <matrix> animated whole.
//  joint1: translate (1 2 3) -> (4 5 6), rotateZ 0 -> 90, rotateY 0 -> 60, rotateX 0 -> -30
//          degrees, all LINEAR over 0..1 s.
//  joint2: matrix keys at 0 and 1 s: translation (0, 5, 0), then translation (0, 5, 0) with a
//          90-degree rotation about x, LINEAR.
inline std::string maya_document() {
  const std::string libs =
      "<library_animations>" +
      animation("t", "joint1/translate", "0 1", 2, "1 2 3 4 5 6", 3, "LINEAR LINEAR") +
      animation("rz", "joint1/rotateZ.ANGLE", "0 1", 2, "0 90", 1, "LINEAR LINEAR") +
      animation("ry", "joint1/rotateY.ANGLE", "0 1", 2, "0 60", 1, "LINEAR LINEAR") +
      animation("rx", "joint1/rotateX.ANGLE", "0 1", 2, "0 -30", 1, "LINEAR LINEAR") +
      animation("m", "joint2/transform", "0 1", 2,
                "1 0 0 0  0 1 0 5  0 0 1 0  0 0 0 1   1 0 0 0  0 0 -1 5  0 1 0 0  0 0 0 1", 16,
                "LINEAR LINEAR") +
      "</library_animations>";
  return document("<unit meter=\"0.01\" name=\"centimeter\"/><up_axis>Z_UP</up_axis>", libs,
                  "<node id=\"joint1\" name=\"joint1\" sid=\"joint1\" type=\"JOINT\">"
                  "<translate sid=\"translate\">1 2 3</translate>"
                  "<rotate sid=\"rotateZ\">0 0 1 0</rotate>"
                  "<rotate sid=\"rotateY\">0 1 0 0</rotate>"
                  "<rotate sid=\"rotateX\">1 0 0 0</rotate>"
                  "<scale sid=\"scale\">1 1 1</scale>"
                  "<node id=\"joint2\" sid=\"joint2\" type=\"JOINT\">"
                  "<matrix sid=\"transform\">1 0 0 0 0 1 0 5 0 0 1 0 0 0 0 1</matrix>"
                  "</node></node>");
}

// Node "box" with <matrix sid="transform"> = translation (1, 2, 3) times 90 degrees about z,
// written row by row as Collada stores it:
//    0 -1  0  1
//    1  0  0  2
//    0  0  1  3
//    0  0  0  1
// and four channels on single elements, keys at 0 and 1 s (LINEAR): the translation's x 1 -> 3
// and y 2 -> 6, and the rotation's two off-diagonal terms, constant (-1 in row 0 column 1, 1 in
// row 1 column 0). Each key 0 equals the static matrix's element. With `column_first`, "(i)(j)"
// names column i, row j, as 3ds Max's ColladaMax writes it: x is "(3)(0)"; otherwise row i,
// column j: x is "(0)(3)".
inline std::string matrix_element_document(bool column_first) {
  auto at = [&](int row, int column) {
    const int i = column_first ? column : row, j = column_first ? row : column;
    return "box/transform(" + std::to_string(i) + ")(" + std::to_string(j) + ")";
  };
  const std::string libs =
      "<library_animations>" + animation("tx", at(0, 3), "0 1", 2, "1 3", 1, "LINEAR LINEAR") +
      animation("ty", at(1, 3), "0 1", 2, "2 6", 1, "LINEAR LINEAR") +
      animation("r01", at(0, 1), "0 1", 2, "-1 -1", 1, "LINEAR LINEAR") +
      animation("r10", at(1, 0), "0 1", 2, "1 1", 1, "LINEAR LINEAR") + "</library_animations>";
  return document("", libs,
                  "<node id=\"box\" name=\"box\" sid=\"box\" type=\"JOINT\">"
                  "<matrix sid=\"transform\">0 -1 0 1  1 0 0 2  0 0 1 3  0 0 0 1</matrix></node>");
}

// Node "arm": <translate sid="t">0 0 0</translate>, <rotate sid="rz">0 0 1 0</rotate> and
// <matrix sid="m"> (the identity moved 1 along y), each driven by another addressing form: t.X
// 0 -> 2, t(2) (z) 0 -> 4, rz.ANGLE 0 -> 90 and m(3)(1) (column 3, row 1: the matrix's y) 1 -> 3,
// all LINEAR over 0..1 s.
inline std::string mixed_address_document() {
  const std::string libs =
      "<library_animations>" + animation("tx", "arm/t.X", "0 1", 2, "0 2", 1, "LINEAR LINEAR") +
      animation("tz", "arm/t(2)", "0 1", 2, "0 4", 1, "LINEAR LINEAR") +
      animation("rz", "arm/rz.ANGLE", "0 1", 2, "0 90", 1, "LINEAR LINEAR") +
      animation("my", "arm/m(3)(1)", "0 1", 2, "1 3", 1, "LINEAR LINEAR") + "</library_animations>";
  return document("", libs,
                  "<node id=\"arm\" name=\"arm\" sid=\"arm\" type=\"JOINT\">"
                  "<translate sid=\"t\">0 0 0</translate><rotate sid=\"rz\">0 0 1 0</rotate>"
                  "<matrix sid=\"m\">1 0 0 0  0 1 0 1  0 0 1 0  0 0 0 1</matrix></node>");
}

// A quad (positions 0..3 = (0,0,0) (1,0,0) (1,1,0) (0,1,0), one polylist quad) with a morph
// controller (NORMALIZED; one target "quad-up" whose vertices 2 and 3 are 1 higher; default
// weight 0.25) under a skin controller (joints b0 and b1 by sid, bind shape matrix translating
// by (0, 0, 1), inverse bind matrices identity and translate (0, -1, 0); positions 0 and 1 on
// b0, 2 and 3 half on each). The weight is animated 0.25 -> 1 over 0..1 s through the weights
// source, "quad-morph-weights(0)".
inline std::string skin_morph_document() {
  const std::string quad = [] {
    auto geometry = [](const std::string& id, const std::string& positions) {
      return "<geometry id=\"" + id + "\" name=\"" + id + "\"><mesh>" +
             float_source(id + "-pos", positions, 4, 3) + "<vertices id=\"" + id +
             "-v\"><input semantic=\"POSITION\" source=\"#" + id +
             "-pos\"/></vertices><polylist count=\"1\"><input semantic=\"VERTEX\" source=\"#" + id +
             "-v\" offset=\"0\"/><vcount>4</vcount><p>0 1 2 3</p></polylist></mesh></geometry>";
    };
    return "<library_geometries>" + geometry("quad", "0 0 0  1 0 0  1 1 0  0 1 0") +
           geometry("quad-up", "0 0 0  1 0 0  1 2 0  0 2 0") + "</library_geometries>";
  }();
  const std::string controllers =
      "<library_controllers><controller id=\"quad-morph\"><morph source=\"#quad\" "
      "method=\"NORMALIZED\">" +
      name_source("quad-morph-targets", "quad-up", 1, "IDREF_array") +
      float_source("quad-morph-weights", "0.25", 1) +
      "<targets><input semantic=\"MORPH_TARGET\" source=\"#quad-morph-targets\"/>"
      "<input semantic=\"MORPH_WEIGHT\" source=\"#quad-morph-weights\"/></targets></morph>"
      "</controller><controller id=\"quad-skin\" name=\"rig\"><skin source=\"#quad-morph\">"
      "<bind_shape_matrix>1 0 0 0 0 1 0 0 0 0 1 1 0 0 0 1</bind_shape_matrix>" +
      name_source("quad-skin-joints", "b0 b1", 2) +
      float_source("quad-skin-ibm",
                   "1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1  1 0 0 0 0 1 0 -1 0 0 1 0 0 0 0 1", 2, 16) +
      float_source("quad-skin-w", "1 0.5", 2) +
      "<joints><input semantic=\"JOINT\" source=\"#quad-skin-joints\"/>"
      "<input semantic=\"INV_BIND_MATRIX\" source=\"#quad-skin-ibm\"/></joints>"
      "<vertex_weights count=\"4\"><input semantic=\"JOINT\" source=\"#quad-skin-joints\" "
      "offset=\"0\"/><input semantic=\"WEIGHT\" source=\"#quad-skin-w\" offset=\"1\"/>"
      "<vcount>1 1 2 2</vcount><v>0 0  0 0  0 1 1 1  0 1 1 1</v></vertex_weights></skin>"
      "</controller></library_controllers>";
  const std::string anims =
      "<library_animations>" +
      animation("w", "quad-morph-weights(0)", "0 1", 2, "0.25 1", 1, "LINEAR LINEAR") +
      "</library_animations>";
  return document("<unit meter=\"1\"/><up_axis>Y_UP</up_axis>", quad + controllers + anims,
                  "<node id=\"rig-root\" name=\"root\" sid=\"b0\" type=\"JOINT\">"
                  "<node id=\"rig-tip\" sid=\"b1\" type=\"JOINT\"><translate>0 1 0</translate>"
                  "</node></node>"
                  "<node id=\"body\" name=\"body\"><instance_controller url=\"#quad-skin\">"
                  "<skeleton>#rig-root</skeleton></instance_controller></node>");
}

}  // namespace collada_test
