#include "materials.h"

#include <cmath>
#include <filesystem>

#include "gltf_error.h"

namespace marrow::gltf {
namespace {

// A non-negative integer member, or nullopt (missing or malformed).
std::optional<std::uint64_t> index_of(const Json& object, const char* key) {
  const Json* v = find_member(object, key);
  if (!v || !v->is_number_unsigned()) return std::nullopt;
  return v->get<std::uint64_t>();
}

TextureWrap wrap_of(const Json* mode) {
  if (!mode || !mode->is_number_integer()) return TextureWrap::kRepeat;
  switch (mode->get<std::int64_t>()) {
    case 33071:
      return TextureWrap::kClampToEdge;
    case 33648:
      return TextureWrap::kMirroredRepeat;
    default:
      return TextureWrap::kRepeat;  // 10497, and the default
  }
}

MaterialImage read_image(const Document& doc, const Json& image, std::size_t index) {
  const std::string where = path("images", index);
  MaterialImage out;
  if (const Json* n = find_member(image, "name"); n && n->is_string()) out.name = *n;
  if (out.name.empty()) out.name = where;
  if (const Json* m = find_member(image, "mimeType"); m && m->is_string()) out.mime_type = *m;
  if (const auto view = index_of(image, "bufferView")) {
    const std::span<const std::uint8_t> bytes =
        buffer_view_bytes(doc, *view, path(where, "bufferView"));
    out.bytes.assign(bytes.begin(), bytes.end());
    return out;
  }
  const Json* uri = find_member(image, "uri");
  if (!uri || !uri->is_string()) fail(doc.name, where + " has neither a bufferView nor a uri");
  const std::string& u = uri->get_ref<const std::string&>();
  if (u.rfind("data:", 0) == 0) {
    const std::size_t comma = u.find(',');
    if (comma == std::string::npos || u.substr(0, comma).find(";base64") == std::string::npos)
      fail(doc.name, path(where, "uri") + ": only base64 data URIs are supported");
    if (out.mime_type.empty()) out.mime_type = u.substr(5, u.find(';') - 5);
    out.bytes = decode_base64(doc, std::string_view(u).substr(comma + 1), path(where, "uri"));
    return out;
  }
  // Beside the file: kept as a path, read (or found missing) by whoever draws it.
  out.path = (std::filesystem::path(doc.base_dir) / percent_decode(u)).lexically_normal().string();
  return out;
}

}  // namespace

void read_materials(const Document& doc, Asset& asset) {
  const std::size_t image_count = array_size(doc, "images");
  for (std::size_t i = 0; i < image_count; ++i) {
    try {
      asset.images.push_back(read_image(doc, doc.json["images"][i], i));
    } catch (const GltfError& e) {
      // An image the file cannot give is a missing texture: a note, and an empty entry so
      // indices stay aligned.
      asset.warnings.push_back(std::string(e.what()) + " (texture ignored)");
      asset.images.push_back({path("images", i), "", {}, ""});
    }
  }
  const std::size_t texture_count = array_size(doc, "textures");
  const std::size_t sampler_count = array_size(doc, "samplers");
  const std::size_t material_count = array_size(doc, "materials");
  for (std::size_t m = 0; m < material_count; ++m) {
    const std::string mp = path("materials", m);
    const Json& json = doc.json["materials"][m];
    Material material;
    if (const Json* n = find_member(json, "name"); n && n->is_string()) material.name = *n;
    auto warn = [&](const std::string& what) {
      asset.warnings.push_back(mp + ": " + what + "; ignored");
    };
    if (const Json* pbr = find_member(json, "pbrMetallicRoughness")) {
      if (const Json* f = find_member(*pbr, "baseColorFactor")) {
        bool ok = f->is_array() && f->size() == 4;
        for (std::size_t k = 0; ok && k < 4; ++k) {
          ok = (*f)[k].is_number() && std::isfinite((*f)[k].get<double>()) &&
               (*f)[k].get<double>() >= 0 && (*f)[k].get<double>() <= 1;
          if (ok) material.base_color_factor[k] = (*f)[k].get<float>();
        }
        if (!ok) {
          material.base_color_factor = {1, 1, 1, 1};
          warn("baseColorFactor is not 4 numbers in [0, 1]");
        }
      }
      if (const Json* t = find_member(*pbr, "baseColorTexture")) {
        const auto texture = index_of(*t, "index");
        if (!texture || *texture >= texture_count) {
          warn("baseColorTexture.index is not a texture of the file");
        } else {
          const Json& tex = doc.json["textures"][*texture];
          const auto source = index_of(tex, "source");
          if (source && *source < image_count) {
            material.base_color_texture = static_cast<int>(*source);
          } else {
            warn(path("textures", *texture) + ".source is not an image of the file");
          }
          if (const auto sampler = index_of(tex, "sampler"); sampler && *sampler < sampler_count) {
            const Json& s = doc.json["samplers"][*sampler];
            material.wrap_u = wrap_of(find_member(s, "wrapS"));
            material.wrap_v = wrap_of(find_member(s, "wrapT"));
          }
          if (const auto set = index_of(*t, "texCoord"); set && *set != 0)
            warn("baseColorTexture uses TEXCOORD_" + std::to_string(*set) + ", marrow reads set 0");
        }
      }
    }
    if (const Json* a = find_member(json, "alphaMode"); a && a->is_string()) {
      if (*a == "MASK")
        material.alpha_mode = AlphaMode::kMask;
      else if (*a == "BLEND")
        material.alpha_mode = AlphaMode::kBlend;
      else if (*a != "OPAQUE")
        warn("alphaMode " + brief(*a) + " is unknown");
    }
    if (const Json* c = find_member(json, "alphaCutoff")) {
      if (c->is_number() && std::isfinite(c->get<double>()) && c->get<double>() >= 0)
        material.alpha_cutoff = c->get<float>();
      else
        warn("alphaCutoff is not a number >= 0");
    }
    if (const Json* d = find_member(json, "doubleSided"); d && d->is_boolean())
      material.double_sided = d->get<bool>();
    asset.materials.push_back(std::move(material));
  }
}

int primitive_material(const Json& primitive, const std::string& where, Asset& asset) {
  const Json* m = find_member(primitive, "material");
  if (!m) return -1;
  if (!m->is_number_unsigned() || m->get<std::uint64_t>() >= asset.materials.size()) {
    asset.warnings.push_back(where + ".material is not a material of the file; drawn plain");
    return -1;
  }
  return static_cast<int>(m->get<std::uint64_t>());
}

}  // namespace marrow::gltf
