#include "materials.h"

#include <array>
#include <cmath>
#include <filesystem>
#include <functional>

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

// A number member within [lo, hi], or `fallback` with a warning when present but malformed.
float number_in(const Json& object, const char* key, float lo, float hi, float fallback,
                const std::function<void(const std::string&)>& warn) {
  const Json* v = find_member(object, key);
  if (!v) return fallback;
  if (v->is_number() && std::isfinite(v->get<double>()) && v->get<double>() >= lo &&
      v->get<double>() <= hi)
    return v->get<float>();
  warn(std::string(key) + " is not a number in [" + brief(Json(lo)) + ", " + brief(Json(hi)) + "]");
  return fallback;
}

// `n` numbers in [lo, hi] into `out`, or `out` unchanged with a warning.
template <std::size_t n>
void numbers_in(const Json& object, const char* key, float lo, float hi, std::array<float, n>& out,
                const std::function<void(const std::string&)>& warn) {
  const Json* f = find_member(object, key);
  if (!f) return;
  std::array<float, n> read{};
  bool ok = f->is_array() && f->size() == n;
  for (std::size_t k = 0; ok && k < n; ++k) {
    ok = (*f)[k].is_number() && std::isfinite((*f)[k].get<double>()) &&
         (*f)[k].get<double>() >= lo && (*f)[k].get<double>() <= hi;
    if (ok) read[k] = (*f)[k].get<float>();
  }
  if (ok)
    out = read;
  else
    warn(std::string(key) + " is not " + std::to_string(n) + " numbers in [" + brief(Json(lo)) +
         ", " + brief(Json(hi)) + "]");
}

// A textureInfo (index, texCoord, KHR_texture_transform) with its texture's image and sampler.
TextureRef read_texture(const Document& doc, const Json& info, const std::string& what,
                        const std::function<void(const std::string&)>& warn) {
  TextureRef ref;
  auto warn_here = [&](const std::string& text) { warn(what + "." + text); };
  const auto texture = index_of(info, "index");
  if (!texture || *texture >= array_size(doc, "textures")) {
    warn(what + ".index is not a texture of the file");
    return ref;
  }
  const Json& tex = doc.json["textures"][*texture];
  const auto source = index_of(tex, "source");
  if (!source || *source >= array_size(doc, "images")) {
    warn(path("textures", *texture) + ".source is not an image of the file");
    return ref;
  }
  ref.image = static_cast<int>(*source);
  if (const auto sampler = index_of(tex, "sampler")) {
    if (*sampler < array_size(doc, "samplers")) {
      const Json& sm = doc.json["samplers"][*sampler];
      ref.wrap_u = wrap_of(find_member(sm, "wrapS"));
      ref.wrap_v = wrap_of(find_member(sm, "wrapT"));
      ref.mag_filter = static_cast<int>(index_of(sm, "magFilter").value_or(0) & 0xFFFF);
      ref.min_filter = static_cast<int>(index_of(sm, "minFilter").value_or(0) & 0xFFFF);
    } else {
      warn(path("textures", *texture) + ".sampler is not a sampler of the file");
    }
  }
  if (const Json* set = find_member(info, "texCoord")) {
    if (set->is_number_unsigned() && set->get<std::uint64_t>() < 0x10000)
      ref.texcoord = set->get<std::uint32_t>();
    else
      warn_here("texCoord is not a set number");
  }
  const Json* ext = find_member(info, "extensions");
  const Json* t = ext ? find_member(*ext, "KHR_texture_transform") : nullptr;
  if (t && t->is_object()) {
    TextureTransform transform;
    numbers_in(*t, "offset", -1e9f, 1e9f, transform.offset, warn_here);
    transform.rotation = number_in(*t, "rotation", -1e9f, 1e9f, 0, warn_here);
    numbers_in(*t, "scale", -1e9f, 1e9f, transform.scale, warn_here);
    if (const Json* set = find_member(*t, "texCoord");
        set && set->is_number_unsigned() && set->get<std::uint64_t>() < 0x10000)
      ref.texcoord = set->get<std::uint32_t>();
    ref.transform = transform;
  }
  return ref;
}

// The material extensions marrow keeps; any other one present is named in a warning.
constexpr const char* kKeptExtensions[] = {"KHR_materials_emissive_strength",
                                           "KHR_materials_unlit"};

Material read_material(const Document& doc, std::size_t index, Asset& asset) {
  const std::string mp = path("materials", index);
  const Json& json = doc.json["materials"][index];
  const std::function<void(const std::string&)> warn = [&](const std::string& what) {
    asset.warnings.push_back(mp + "." + what + "; ignored");
  };
  Material material;
  material.metallic_factor = 1;  // glTF's defaults, which a file that says nothing means
  material.roughness_factor = 1;
  if (const Json* n = find_member(json, "name"); n && n->is_string()) material.name = *n;
  if (const Json* pbr = find_member(json, "pbrMetallicRoughness"); pbr && pbr->is_object()) {
    numbers_in(*pbr, "baseColorFactor", 0, 1, material.base_color_factor, warn);
    if (const Json* t = find_member(*pbr, "baseColorTexture"))
      material.base_color = read_texture(doc, *t, "baseColorTexture", warn);
    material.metallic_factor = number_in(*pbr, "metallicFactor", 0, 1, 1, warn);
    material.roughness_factor = number_in(*pbr, "roughnessFactor", 0, 1, 1, warn);
    if (const Json* t = find_member(*pbr, "metallicRoughnessTexture"))
      material.metallic_roughness = read_texture(doc, *t, "metallicRoughnessTexture", warn);
  }
  if (const Json* t = find_member(json, "normalTexture")) {
    material.normal = read_texture(doc, *t, "normalTexture", warn);
    material.normal_scale = number_in(*t, "scale", -1e9f, 1e9f, 1, warn);
  }
  if (const Json* t = find_member(json, "occlusionTexture")) {
    material.occlusion = read_texture(doc, *t, "occlusionTexture", warn);
    material.occlusion_strength = number_in(*t, "strength", 0, 1, 1, warn);
  }
  if (const Json* t = find_member(json, "emissiveTexture"))
    material.emissive = read_texture(doc, *t, "emissiveTexture", warn);
  numbers_in(json, "emissiveFactor", 0, 1, material.emissive_factor, warn);
  if (const Json* a = find_member(json, "alphaMode"); a && a->is_string()) {
    if (*a == "MASK")
      material.alpha_mode = AlphaMode::kMask;
    else if (*a == "BLEND")
      material.alpha_mode = AlphaMode::kBlend;
    else if (*a != "OPAQUE")
      warn("alphaMode " + brief(*a) + " is unknown");
  }
  material.alpha_cutoff = number_in(json, "alphaCutoff", 0, 1e9f, 0.5f, warn);
  if (const Json* d = find_member(json, "doubleSided"); d && d->is_boolean())
    material.double_sided = d->get<bool>();
  if (const Json* ext = find_member(json, "extensions"); ext && ext->is_object()) {
    for (const auto& [name, value] : ext->items()) {
      if (name == "KHR_materials_emissive_strength" && value.is_object())
        material.emissive_strength = number_in(value, "emissiveStrength", 0, 1e9f, 1, warn);
      else if (name == "KHR_materials_unlit")
        material.unlit = true;
      else
        asset.warnings.push_back(mp + ".extensions." + name + ": not kept (marrow keeps " +
                                 kKeptExtensions[0] + " and " + kKeptExtensions[1] + ")");
    }
  }
  return material;
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
  const std::size_t material_count = array_size(doc, "materials");
  for (std::size_t m = 0; m < material_count; ++m)
    asset.materials.push_back(read_material(doc, m, asset));
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
