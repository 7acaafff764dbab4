#include "archive/archive_material.h"

namespace marrow::archive_detail {
namespace {

constexpr std::uint8_t kMaxWrap = static_cast<std::uint8_t>(TextureWrap::kMirroredRepeat);
constexpr std::uint8_t kMaxAlphaMode = static_cast<std::uint8_t>(AlphaMode::kBlend);

void write_texture(Out& out, const TextureRef& t) {
  out.i32(t.image);
  out.u32(t.texcoord);
  out.u8(static_cast<std::uint8_t>(t.wrap_u));
  out.u8(static_cast<std::uint8_t>(t.wrap_v));
  out.u16(static_cast<std::uint16_t>(t.mag_filter));
  out.u16(static_cast<std::uint16_t>(t.min_filter));
  out.u8(t.transform ? 1 : 0);
  if (t.transform) {
    out.f32(t.transform->offset[0]);
    out.f32(t.transform->offset[1]);
    out.f32(t.transform->rotation);
    out.f32(t.transform->scale[0]);
    out.f32(t.transform->scale[1]);
  }
}

// A finite float, or a failure at its byte naming `what` and `field`.
float finite(In& in, const std::string& what, const char* field) {
  const std::size_t at = in.pos();
  const float v = in.f32(field);
  if (!std::isfinite(v)) in.fail(at, what + ": " + field + " is not finite");
  return v;
}

std::uint8_t enum_at_most(In& in, std::uint8_t most, const std::string& what, const char* field) {
  const std::size_t at = in.pos();
  const std::uint8_t v = in.u8(field);
  if (v > most) in.fail(at, what + ": " + field + " " + std::to_string(v) + " is unknown");
  return v;
}

TextureRef read_texture(In& in, const std::string& what, const char* slot) {
  const std::string w = what + ": " + slot + " texture";
  TextureRef t;
  const std::size_t at = in.pos();
  t.image = in.i32("texture image");
  if (t.image < -1) in.fail(at, w + ": image " + std::to_string(t.image) + " is invalid");
  t.texcoord = in.u32("texture coordinate set");
  t.wrap_u = static_cast<TextureWrap>(enum_at_most(in, kMaxWrap, w, "wrap u"));
  t.wrap_v = static_cast<TextureWrap>(enum_at_most(in, kMaxWrap, w, "wrap v"));
  t.mag_filter = in.u16("texture magnification filter");
  t.min_filter = in.u16("texture minification filter");
  if (enum_at_most(in, 1, w, "transform flag") == 1) {
    TextureTransform x;
    x.offset[0] = finite(in, w, "transform offset u");
    x.offset[1] = finite(in, w, "transform offset v");
    x.rotation = finite(in, w, "transform rotation");
    x.scale[0] = finite(in, w, "transform scale u");
    x.scale[1] = finite(in, w, "transform scale v");
    t.transform = x;
  }
  return t;
}

}  // namespace

void write_image(Out& out, const MaterialImage& image, bool read_files, std::string& note) {
  if (!read_files && image.bytes.empty()) {
    out.string(image.name);
    out.string(image.mime_type);
    out.string(image.path);
    out.u32(0);
    return;
  }
  Result<std::vector<std::uint8_t>> bytes = image_bytes(image);
  if (bytes && bytes->size() > 0xFFFFFFFFull)
    throw WriteError{"image '" + image.name + "' over 4 GiB"};
  out.string(image.name);
  out.string(image.mime_type.empty() && bytes ? image_mime_type(*bytes) : image.mime_type);
  out.string(bytes ? std::string() : image.path);
  if (!bytes) {
    note = image.path.empty()
               ? "image '" + image.name + "': no data; kept by its name only"
               : "image '" + image.name + "': " + bytes.error().message + "; kept by its path only";
    out.u32(0);
    return;
  }
  out.u32(static_cast<std::uint32_t>(bytes->size()));
  out.array(bytes->data(), bytes->size());
}

MaterialImage read_image(In& in, const std::string& what) {
  MaterialImage image;
  image.name = in.string("image name");
  image.mime_type = in.string("image mime type");
  image.path = in.string("image path");
  const std::uint32_t n = in.count("image byte count", 1);
  image.bytes.resize(n);
  in.array(image.bytes.data(), n, "image bytes");
  if (n > 0 && !image.path.empty())
    in.fail(what + ": an image holds its bytes or the path of its file, not both");
  return image;
}

void write_material(Out& out, const Material& m) {
  out.string(m.name);
  for (float f : m.base_color_factor) out.f32(f);
  write_texture(out, m.base_color);
  out.f32(m.metallic_factor);
  out.f32(m.roughness_factor);
  write_texture(out, m.metallic_roughness);
  write_texture(out, m.normal);
  out.f32(m.normal_scale);
  write_texture(out, m.occlusion);
  out.f32(m.occlusion_strength);
  write_texture(out, m.emissive);
  for (float f : m.emissive_factor) out.f32(f);
  out.f32(m.emissive_strength);
  out.u8(static_cast<std::uint8_t>(m.alpha_mode));
  out.f32(m.alpha_cutoff);
  out.u8(m.double_sided ? 1 : 0);
  out.u8(m.unlit ? 1 : 0);
}

Material read_material(In& in, const std::string& what) {
  Material m;
  m.name = in.string("material name");
  const std::string w = what + " '" + m.name + "'";
  for (float& f : m.base_color_factor) f = finite(in, w, "base colour factor");
  m.base_color = read_texture(in, w, "base colour");
  m.metallic_factor = finite(in, w, "metallic factor");
  m.roughness_factor = finite(in, w, "roughness factor");
  m.metallic_roughness = read_texture(in, w, "metallic-roughness");
  m.normal = read_texture(in, w, "normal");
  m.normal_scale = finite(in, w, "normal scale");
  m.occlusion = read_texture(in, w, "occlusion");
  m.occlusion_strength = finite(in, w, "occlusion strength");
  m.emissive = read_texture(in, w, "emissive");
  for (float& f : m.emissive_factor) f = finite(in, w, "emissive factor");
  m.emissive_strength = finite(in, w, "emissive strength");
  m.alpha_mode = static_cast<AlphaMode>(enum_at_most(in, kMaxAlphaMode, w, "alpha mode"));
  m.alpha_cutoff = finite(in, w, "alpha cutoff");
  m.double_sided = enum_at_most(in, 1, w, "double-sided flag") == 1;
  m.unlit = enum_at_most(in, 1, w, "unlit flag") == 1;
  return m;
}

void check_material_images(const In& in, std::size_t at, const std::string& what,
                           const Material& material, std::size_t image_count) {
  const std::pair<const char*, const TextureRef*> slots[] = {
      {"base colour", &material.base_color},
      {"metallic-roughness", &material.metallic_roughness},
      {"normal", &material.normal},
      {"occlusion", &material.occlusion},
      {"emissive", &material.emissive}};
  for (const auto& [slot, texture] : slots) {
    if (texture->image >= 0 && static_cast<std::size_t>(texture->image) >= image_count)
      in.fail(at, what + " '" + material.name + "': " + slot + " texture names image " +
                      std::to_string(texture->image) + " of " + std::to_string(image_count));
  }
}

void write_mesh_surface(Out& out, const SkinnedMesh& mesh, const std::string& what) {
  out.i32(mesh.material);
  if (!mesh.colors.empty() && mesh.colors.size() != mesh.vertex_count())
    throw WriteError{what + ": vertex colour count differs from the vertex count"};
  out.u32(static_cast<std::uint32_t>(mesh.colors.size()));
  for (const auto& c : mesh.colors) out.array(c.data(), 4);
}

void read_mesh_surface(In& in, SkinnedMesh& mesh, const std::string& what) {
  const std::size_t at = in.pos();
  mesh.material = in.i32("mesh material");
  if (mesh.material < -1)
    in.fail(at, what + ": material " + std::to_string(mesh.material) + " is invalid");
  const std::size_t count_at = in.pos();
  const std::uint32_t n = in.count("vertex colour count", 16);
  if (n != 0 && n != mesh.vertex_count())
    in.fail(count_at, what + ": " + std::to_string(n) + " vertex colours for " +
                          std::to_string(mesh.vertex_count()) + " vertices");
  mesh.colors.resize(n);
  const std::size_t colors_at = in.pos();
  in.array(reinterpret_cast<float*>(mesh.colors.data()), std::size_t{n} * 4, "vertex colours");
  const std::size_t bad =
      In::first_non_finite(reinterpret_cast<const float*>(mesh.colors.data()), std::size_t{n} * 4);
  if (bad != std::size_t{n} * 4)
    in.fail(colors_at + bad * 4,
            what + ": colour of vertex " + std::to_string(bad / 4) + " is not finite");
}

}  // namespace marrow::archive_detail
