#include "collada/collada_material.h"

#include <algorithm>
#include <cmath>

#include "common/reader_support.h"

namespace marrow::collada {
namespace {

// The newparam with this sid in the profile (or the effect around it), or an empty node.
pugi::xml_node newparam(pugi::xml_node profile, std::string_view sid) {
  for (pugi::xml_node scope = profile; scope; scope = scope.parent()) {
    for (pugi::xml_node p : scope.children("newparam"))
      if (sid == p.attribute("sid").as_string()) return p;
    if (std::string_view(scope.name()) == "effect") break;
  }
  return {};
}

TextureWrap wrap_of(pugi::xml_node mode) {
  const std::string_view m = mode.child_value();
  if (m == "CLAMP" || m == "BORDER") return TextureWrap::kClampToEdge;
  if (m == "MIRROR") return TextureWrap::kMirroredRepeat;
  return TextureWrap::kRepeat;
}

}  // namespace

int MaterialTable::index_of(const Document& doc, pugi::xml_node instance_material, Asset& asset) {
  const std::string id(fragment(instance_material.attribute("target").as_string()));
  if (const auto it = by_id_.find(id); it != by_id_.end()) return it->second;
  const pugi::xml_node material = doc.by_id(id);
  const pugi::xml_node effect =
      material ? doc.by_id(fragment(material.child("instance_effect").attribute("url").as_string()))
               : pugi::xml_node();
  int index = -1;
  if (!material || std::string_view(material.name()) != "material" || !effect) {
    asset.warnings.push_back(doc.where(instance_material) + ": target " + io::quote_token(id) +
                             " is not a <material> with an effect; drawn plain");
  } else {
    Material m = read_effect(doc, effect, asset);
    m.name = display_name(material, id);
    index = static_cast<int>(asset.materials.size());
    asset.materials.push_back(std::move(m));
  }
  by_id_[id] = index;
  return index;
}

Material MaterialTable::read_effect(const Document& doc, pugi::xml_node effect, Asset& asset) {
  Material m;  // a non-metal, fully rough surface: what these shading models describe
  const pugi::xml_node profile = effect.child("profile_COMMON");
  const pugi::xml_node technique = profile.child("technique");
  pugi::xml_node shading;
  for (const char* kind : {"constant", "lambert", "phong", "blinn"})
    if ((shading = technique.child(kind))) break;
  if (!shading) {
    asset.warnings.push_back(doc.where(effect) +
                             ": no profile_COMMON constant, lambert, phong or blinn technique; "
                             "drawn plain");
    return m;
  }
  m.unlit = std::string_view(shading.name()) == "constant";
  // Constant shading has only <emission>: its colour is the surface's.
  const pugi::xml_node colour_source =
      m.unlit ? shading.child("emission") : shading.child("diffuse");
  // A colour's numbers; a malformed one is a warning and the default, as looks are not structure.
  auto numbers = [&](pugi::xml_node c) {
    try {
      return doc.floats(c, false);
    } catch (const ColladaError& e) {
      asset.warnings.push_back(std::string(e.what()) + "; the default colour is used");
      return std::vector<float>{};
    }
  };
  if (const pugi::xml_node c = colour_source.child("color")) {
    const std::vector<float> v = numbers(c);
    if (v.size() >= 3) {
      for (int k = 0; k < 3; ++k) m.base_color_factor[k] = io::linear_from_display(v[k]);
      m.base_color_factor[3] = v.size() >= 4 ? std::clamp(v[3], 0.0f, 1.0f) : 1.0f;
    }
  } else if (const pugi::xml_node t = colour_source.child("texture")) {
    m.base_color = read_texture(doc, profile, t, asset);
  }
  if (!m.unlit) {
    if (const pugi::xml_node c = shading.child("emission").child("color")) {
      const std::vector<float> v = numbers(c);
      for (std::size_t k = 0; k < 3 && k < v.size(); ++k)
        m.emissive_factor[k] = io::linear_from_display(v[k]);
    } else if (const pugi::xml_node t = shading.child("emission").child("texture")) {
      m.emissive = read_texture(doc, profile, t, asset);
      m.emissive_factor = {1, 1, 1};
    }
  }
  if (m.base_color_factor[3] < 1) m.alpha_mode = AlphaMode::kBlend;
  for (const char* other : {"ambient", "specular", "shininess", "reflective", "reflectivity",
                            "transparent", "transparency", "index_of_refraction"})
    if (shading.child(other)) not_kept_.insert(other);
  // Max and Maya say so in an <extra> technique of their own: <double_sided>1</double_sided>.
  m.double_sided = effect.find_node([](pugi::xml_node n) {
    return std::string_view(n.name()) == "double_sided" && std::string_view(n.child_value()) == "1";
  });
  return m;
}

TextureRef MaterialTable::read_texture(const Document& doc, pugi::xml_node profile,
                                       pugi::xml_node texture, Asset& asset) {
  TextureRef ref;
  const std::string_view sampler_sid = texture.attribute("texture").as_string();
  pugi::xml_node image;
  if (const pugi::xml_node sampler = newparam(profile, sampler_sid).child("sampler2D")) {
    ref.wrap_u = wrap_of(sampler.child("wrap_s"));
    ref.wrap_v = wrap_of(sampler.child("wrap_t"));
    // Collada 1.4: sampler -> <source> surface newparam -> <init_from> image id.
    const pugi::xml_node surface =
        newparam(profile, sampler.child_value("source")).child("surface");
    image = doc.by_id(surface.child_value("init_from"));
  } else {
    image = doc.by_id(sampler_sid);  // exporters that name the <image> directly
  }
  if (!image || std::string_view(image.name()) != "image") {
    asset.warnings.push_back(doc.where(texture) + ": texture " + io::quote_token(sampler_sid) +
                             " leads to no <image>; left out");
    return ref;
  }
  ref.image = image_index(doc, image, asset);
  return ref;
}

// An <image>'s file, beside the document (io::image_path_beside: a path that is absolute or
// leaves the folder, as an exporter on another machine writes, is looked for by its name).
int MaterialTable::image_index(const Document& doc, pugi::xml_node image, Asset& asset) {
  const std::string id = image.attribute("id").as_string();
  if (const auto it = image_of_.find(id); it != image_of_.end()) return it->second;
  std::string uri = image.child_value("init_from");
  if (uri.empty()) uri = image.child("init_from").child_value("ref");  // Collada 1.5
  const std::string path = io::image_path_beside(doc.name(), uri, doc.where(image), asset.warnings);
  const int index = static_cast<int>(asset.images.size());
  asset.images.push_back({display_name(image, id), path, {}, ""});
  image_of_[id] = index;
  return index;
}

void MaterialTable::add_notes(const Document& doc, Asset& asset) const {
  if (not_kept_.empty()) return;
  std::string names;
  for (const std::string& n : not_kept_) names += (names.empty() ? "<" : ", <") + n + ">";
  asset.warnings.push_back(doc.name() + ": the effects' " + names +
                           " not kept (marrow's materials are metallic-roughness: a Collada "
                           "surface is read as a non-metal with its diffuse colour or texture)");
}

}  // namespace marrow::collada
