#include "encodings.h"

#include <zlib.h>

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

namespace marrow::fuzz {
namespace {

enum : std::uint16_t {
  kName = 1,
  kString = 2,
  kInteger = 3,
  kGuid = 5,
  kIntegerList = 6,
  kFloatList = 7,
  kOpenBrace = 10,
  kCloseBrace = 11,
  kOpenParen = 12,
  kCloseParen = 13,
  kOpenBracket = 14,
  kCloseBracket = 15,
  kOpenAngle = 16,
  kCloseAngle = 17,
  kDot = 18,
  kComma = 19,
  kSemicolon = 20,
  kTemplate = 31,
};

std::uint16_t keyword(std::string_view w) {
  static const struct {
    const char* word;
    std::uint16_t token;
  } table[] = {{"WORD", 40},  {"DWORD", 41},   {"FLOAT", 42},   {"DOUBLE", 43}, {"CHAR", 44},
               {"UCHAR", 45}, {"SWORD", 46},   {"SDWORD", 47},  {"VOID", 48},   {"STRING", 49},
               {"LPSTR", 49}, {"UNICODE", 50}, {"CSTRING", 51}, {"array", 52}};
  for (const auto& k : table)
    if (w == k.word) return k.token;
  return 0;
}

class Writer {
 public:
  explicit Writer(bool float64) : float64_(float64) {
    const char* header = float64 ? "xof 0303bin 0064" : "xof 0303bin 0032";
    bytes_.assign(header, header + 16);
  }
  void word(std::uint16_t v) {
    bytes_.push_back(static_cast<std::uint8_t>(v));
    bytes_.push_back(static_cast<std::uint8_t>(v >> 8));
  }
  void dword(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) bytes_.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  void text(std::uint16_t token, std::string_view s) {
    word(token);
    dword(static_cast<std::uint32_t>(s.size()));
    bytes_.insert(bytes_.end(), s.begin(), s.end());
  }
  void number_run(const std::vector<std::string_view>& numbers) {
    // Split the run where integers and floats alternate.
    std::size_t i = 0;
    while (i < numbers.size()) {
      const bool is_float = looks_float(numbers[i]);
      std::size_t j = i;
      while (j < numbers.size() && looks_float(numbers[j]) == is_float) ++j;
      word(is_float ? kFloatList : kIntegerList);
      dword(static_cast<std::uint32_t>(j - i));
      for (; i < j; ++i) {
        const std::string s(numbers[i]);
        if (is_float) {
          const double d = std::strtod(s.c_str(), nullptr);
          if (float64_) {
            std::uint8_t b[8];
            std::memcpy(b, &d, 8);
            bytes_.insert(bytes_.end(), b, b + 8);
          } else {
            const float f = static_cast<float>(d);
            std::uint8_t b[4];
            std::memcpy(b, &f, 4);
            bytes_.insert(bytes_.end(), b, b + 4);
          }
        } else {
          dword(static_cast<std::uint32_t>(std::strtoll(s.c_str(), nullptr, 10)));
        }
      }
    }
  }
  static bool looks_float(std::string_view s) {
    return s.find_first_of(".eE") != std::string_view::npos;
  }
  std::vector<std::uint8_t>& bytes() { return bytes_; }

 private:
  bool float64_;
  std::vector<std::uint8_t> bytes_;
};

bool is_number(std::string_view w) {
  if (w.empty()) return false;
  std::size_t i = (w[0] == '-' || w[0] == '+') ? 1 : 0;
  if (i == w.size()) return false;
  return std::isdigit(static_cast<unsigned char>(w[i])) ||
         (w[i] == '.' && i + 1 < w.size() && std::isdigit(static_cast<unsigned char>(w[i + 1])));
}

bool ends_word(char c) {
  return std::isspace(static_cast<unsigned char>(c)) || std::strchr("{}()[]<>,;\"", c) != nullptr;
}

// "XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX" as a binary GUID: DWORD, WORD, WORD, 8 bytes.
bool put_guid(Writer& w, std::string_view g) {
  std::string hex;
  for (char c : g)
    if (c != '-') hex += c;
  if (hex.size() != 32) return false;
  std::uint8_t b[16];
  for (int i = 0; i < 16; ++i) {
    unsigned v = 0;
    const auto [p, ec] = std::from_chars(hex.data() + 2 * i, hex.data() + 2 * i + 2, v, 16);
    if (ec != std::errc()) return false;
    b[i] = static_cast<std::uint8_t>(v);
  }
  w.word(kGuid);
  // The first three fields are little-endian numbers; the text spells them big-endian.
  const std::uint8_t order[16] = {3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15};
  for (std::uint8_t k : order) w.bytes().push_back(b[k]);
  return true;
}

}  // namespace

std::optional<std::vector<std::uint8_t>> x_text_to_binary(std::string_view text, bool float64) {
  if (text.size() < 16 || text.substr(0, 4) != "xof " || text.substr(8, 4) != "txt ")
    return std::nullopt;
  Writer w(float64);
  std::vector<std::string_view> run;  // numbers waiting to be written as a list
  int template_depth = 0;             // inside a template declaration, numbers are single
  bool in_template = false;
  auto flush = [&] {
    if (!run.empty()) w.number_run(run);
    run.clear();
  };
  std::size_t i = 16;
  while (i < text.size()) {
    const char c = text[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '#' || (c == '/' && i + 1 < text.size() && text[i + 1] == '/')) {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if ((c == ',' || c == ';') && !run.empty()) {
      ++i;  // separators inside a number list are implicit in binary
    } else if (c == '"') {
      const std::size_t end = text.find('"', i + 1);
      if (end == std::string_view::npos) return std::nullopt;
      flush();
      w.text(kString, text.substr(i + 1, end - i - 1));
      w.word(kSemicolon);  // the string's terminator
      i = end + 1;
      if (i < text.size() && (text[i] == ';' || text[i] == ',')) ++i;
    } else if (c == '<' && in_template) {
      const std::size_t end = text.find('>', i + 1);
      if (end == std::string_view::npos || !put_guid(w, text.substr(i + 1, end - i - 1)))
        return std::nullopt;
      i = end + 1;
    } else if (std::strchr("{}()[]<>,;", c)) {
      flush();
      static const char punct[] = "{}()[]<>,;";
      static const std::uint16_t tokens[] = {kOpenBrace,   kCloseBrace,   kOpenParen, kCloseParen,
                                             kOpenBracket, kCloseBracket, kOpenAngle, kCloseAngle,
                                             kComma,       kSemicolon};
      w.word(tokens[std::strchr(punct, c) - punct]);
      if (c == '{' && in_template) ++template_depth;
      if (c == '}' && in_template && --template_depth == 0) in_template = false;
      ++i;
    } else if (c == '.' && i + 2 < text.size() && text.substr(i, 3) == "...") {
      flush();
      for (int k = 0; k < 3; ++k) w.word(kDot);
      i += 3;
    } else {
      std::size_t end = i;
      while (end < text.size() && !ends_word(text[end])) ++end;
      const std::string_view word = text.substr(i, end - i);
      i = end;
      if (is_number(word)) {
        if (in_template) {
          w.word(kInteger);
          w.dword(static_cast<std::uint32_t>(std::strtoul(std::string(word).c_str(), nullptr, 10)));
        } else {
          run.push_back(word);
        }
        continue;
      }
      flush();
      if (word == "template") {
        w.word(kTemplate);
        in_template = true;
        template_depth = 0;
      } else if (const std::uint16_t k = in_template ? keyword(word) : 0) {
        w.word(k);
      } else {
        w.text(kName, word);
      }
    }
  }
  flush();
  return std::move(w.bytes());
}

std::pair<std::string, std::string> obj_and_mtl(const Asset& a, const std::string& mtl_name) {
  std::ostringstream obj, mtl;
  obj << "# " << a.source << "\nmtllib " << mtl_name << "\n";
  std::size_t base = 1;
  for (std::size_t m = 0; m < a.meshes.size(); ++m) {
    const marrow::SkinnedMesh& mesh = a.meshes[m];
    obj << "o " << (mesh.name.empty() ? "mesh" : mesh.name) << "\nusemtl material" << m << "\n";
    mtl << "newmtl material" << m << "\nKa 0.1 0.1 0.1\nKd 0.8 0.6 0." << m % 10
        << "\nKs 0 0 0\nNs 10\nd 1\nillum 2\nPr 0.5\nPm 0." << m % 10 << "\nmap_Kd texture" << m
        << ".png\n\n";
    for (const auto& p : mesh.positions) obj << "v " << p.x << " " << p.y << " " << p.z << "\n";
    for (const auto& t : mesh.uvs) obj << "vt " << t[0] << " " << 1 - t[1] << "\n";
    for (const auto& n : mesh.normals) obj << "vn " << n.x << " " << n.y << " " << n.z << "\n";
    for (std::size_t i = 0; i + 2 < mesh.indices.size(); i += 3) {
      obj << "f";
      for (std::size_t k = 0; k < 3; ++k) {
        const std::size_t v = base + mesh.indices[i + k];
        obj << " " << v;
        if (!mesh.uvs.empty() || !mesh.normals.empty()) obj << "/";
        if (!mesh.uvs.empty()) obj << v;
        if (!mesh.normals.empty()) obj << "/" << v;
      }
      obj << "\n";
    }
    base += mesh.positions.size();
  }
  return {obj.str(), mtl.str()};
}

std::vector<std::uint8_t> x_mszip(const std::vector<std::uint8_t>& file, std::size_t block) {
  if (file.size() < 16) return file;
  block = std::min<std::size_t>(std::max<std::size_t>(block, 1), 32768);
  std::vector<std::uint8_t> out(file.begin(), file.begin() + 16);
  const bool binary = std::memcmp(file.data() + 8, "bin ", 4) == 0;
  std::memcpy(out.data() + 8, binary ? "bzip" : "tzip", 4);
  const auto total = static_cast<std::uint32_t>(file.size());
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(total >> (8 * i)));
  for (std::size_t pos = 16; pos < file.size(); pos += block) {
    const std::size_t n = std::min(block, file.size() - pos);
    z_stream z{};
    deflateInit2(&z, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    if (pos > 16) {
      const std::size_t dict = std::min<std::size_t>(pos - 16, 32768);
      deflateSetDictionary(&z, file.data() + pos - dict, static_cast<uInt>(dict));
    }
    std::vector<std::uint8_t> buf(deflateBound(&z, static_cast<uLong>(n)) + 16);
    z.next_in = const_cast<Bytef*>(file.data() + pos);
    z.avail_in = static_cast<uInt>(n);
    z.next_out = buf.data();
    z.avail_out = static_cast<uInt>(buf.size());
    deflate(&z, Z_FINISH);
    const std::size_t c = buf.size() - z.avail_out;
    deflateEnd(&z);
    out.push_back(static_cast<std::uint8_t>(n & 0xff));
    out.push_back(static_cast<std::uint8_t>(n >> 8));
    out.push_back(static_cast<std::uint8_t>((c + 2) & 0xff));
    out.push_back(static_cast<std::uint8_t>((c + 2) >> 8));
    out.push_back('C');
    out.push_back('K');
    out.insert(out.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(c));
  }
  return out;
}

}  // namespace marrow::fuzz
