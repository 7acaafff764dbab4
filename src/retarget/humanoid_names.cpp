#include "humanoid_names.h"

#include <algorithm>
#include <cctype>

namespace marrow::humanoid_detail {
namespace {

using P = HumanoidPart;

bool in(std::string_view s, std::initializer_list<std::string_view> list) {
  return std::find(list.begin(), list.end(), s) != list.end();
}

bool all_digits(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

// Part words, written as the concatenation of a name's words ("up"+"leg" is "upleg").
enum class Kind : std::uint8_t {
  kHips,
  kSpine,
  kNeck,
  kHead,
  kShoulder,
  kUpperArm,
  kForearm,
  kHand,
  kThigh,
  kShin,
  kFoot,
  kToe
};
struct Keyword {
  std::string_view word;
  Kind kind;
};
constexpr Keyword kKeywords[] = {
    {"hips", Kind::kHips},
    {"hip", Kind::kHips},
    {"pelvis", Kind::kHips},
    {"spine", Kind::kSpine},
    {"lowerback", Kind::kSpine},
    {"chest", Kind::kSpine},
    {"upperchest", Kind::kSpine},
    {"ab", Kind::kSpine},
    {"abdomen", Kind::kSpine},
    {"torso", Kind::kSpine},
    {"waist", Kind::kSpine},
    {"neck", Kind::kNeck},
    {"head", Kind::kHead},
    {"shoulder", Kind::kShoulder},
    {"clavicle", Kind::kShoulder},
    {"collar", Kind::kShoulder},
    {"collarbone", Kind::kShoulder},
    {"scapula", Kind::kShoulder},
    {"arm", Kind::kUpperArm},
    {"upperarm", Kind::kUpperArm},
    {"uparm", Kind::kUpperArm},
    {"forearm", Kind::kForearm},
    {"lowerarm", Kind::kForearm},
    {"elbow", Kind::kForearm},
    {"hand", Kind::kHand},
    {"wrist", Kind::kHand},
    {"upleg", Kind::kThigh},
    {"upperleg", Kind::kThigh},
    {"thigh", Kind::kThigh},
    {"leg", Kind::kShin},
    {"lowerleg", Kind::kShin},
    {"calf", Kind::kShin},
    {"shin", Kind::kShin},
    {"knee", Kind::kShin},
    {"foot", Kind::kFoot},
    {"ankle", Kind::kFoot},
    {"toebase", Kind::kToe},
    {"toe", Kind::kToe},
    {"toes", Kind::kToe},
    {"ball", Kind::kToe},
    {"footthumb", Kind::kToe},
};

std::optional<Kind> keyword_kind(std::string_view w) {
  for (const Keyword& k : kKeywords) {
    if (k.word == w) return k.kind;
  }
  return std::nullopt;
}
bool is_sided_keyword(std::string_view w) {
  const std::optional<Kind> k = keyword_kind(w);
  return k && *k != Kind::kSpine && *k != Kind::kNeck && *k != Kind::kHead &&
         (*k != Kind::kHips || w == "hip");
}

// Words that make a joint something other than the bone it is named after.
bool is_rig_helper_word(std::string_view w) {
  return in(w, {"ik",     "fk",     "pole",   "target",  "tgt",       "ctrl",     "control",
                "ctl",    "mch",    "org",    "ref",     "reference", "socket",   "prop",
                "weapon", "attach", "dummy",  "pv",      "goal",      "effector", "aim",
                "lookat", "helper", "driver", "locator", "grip",      "gun"});
}
bool is_segment_word(std::string_view w) {
  return in(w, {"twist", "roll", "share", "sharebone", "bend", "corrective", "fix", "adjust",
                "bulge", "muscle", "jiggle"});
}
bool is_digit_word(std::string_view w) {
  return in(w, {"thumb", "index", "middle", "mid", "ring", "pinky", "little", "finger", "fingers",
                "digit", "metacarpal", "carpal", "big", "nail"});
}
// Words a scheme puts after the part word without changing it ("Hips_JNT", "collar bone").
bool is_noise_word(std::string_view w) {
  return in(w,
            {"jnt", "jt", "joint", "bone", "bn", "bind", "skin", "def", "deform", "sk", "m", "c"});
}

Side side_word(std::string_view w) {
  if (w == "left" || w == "l" || w == "lt") return Side::kLeft;
  if (w == "right" || w == "r" || w == "rt") return Side::kRight;
  return Side::kNone;
}

// A side glued to a part word: "Lefthand" (ProAnimationBank), "thighleft", "lhand".
Side unglue_side(std::string& w) {
  for (const auto& [side, text] : {std::pair{Side::kLeft, std::string_view("left")},
                                   std::pair{Side::kRight, std::string_view("right")}}) {
    if (w.size() > text.size() && w.starts_with(text) && keyword_kind(w.substr(text.size()))) {
      w = w.substr(text.size());
      return side;
    }
    if (w.size() > text.size() && w.ends_with(text) &&
        keyword_kind(w.substr(0, w.size() - text.size()))) {
      w = w.substr(0, w.size() - text.size());
      return side;
    }
  }
  if (w.size() > 3 && (w[0] == 'l' || w[0] == 'r') && !keyword_kind(w) &&
      is_sided_keyword(w.substr(1))) {
    const Side s = w[0] == 'l' ? Side::kLeft : Side::kRight;
    w = w.substr(1);
    return s;
  }
  return Side::kNone;
}

bool is_bip_prefix(const std::string& w) {
  return w.rfind("bip", 0) == 0 && w.size() > 3 && all_digits(std::string_view(w).substr(3));
}

}  // namespace

std::vector<std::string> split_words(std::string_view name) {
  std::vector<std::string> words;
  std::string word;
  const auto flush = [&] {
    if (!word.empty()) words.push_back(word);
    word.clear();
  };
  for (std::size_t i = 0; i < name.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (!std::isalnum(c)) {
      flush();
      continue;
    }
    if (!word.empty()) {
      const unsigned char prev = static_cast<unsigned char>(name[i - 1]);
      const bool next_lower =
          i + 1 < name.size() && std::islower(static_cast<unsigned char>(name[i + 1]));
      // camelCase, a capital starting a word after capitals ("LHip"), a letter after digits.
      if ((std::islower(prev) && std::isupper(c)) ||
          (std::isupper(prev) && std::isupper(c) && next_lower) ||
          (std::isdigit(prev) && std::isalpha(c))) {
        flush();
      }
    }
    word.push_back(static_cast<char>(std::tolower(c)));
  }
  flush();
  return words;
}

ParsedName parse_name(std::string_view full) {
  ParsedName out;
  // Namespaces ("mixamorig:") and DAG paths ("|root|hips") end at the last ':' or '|'.
  const std::size_t cut = full.find_last_of(":|");
  std::vector<std::string> words =
      split_words(cut == std::string_view::npos ? full : full.substr(cut + 1));
  if (!words.empty() && is_bip_prefix(words.front())) words.erase(words.begin());
  // Numbers carry no meaning here ("Spine1", "spine_01", "Toe0", "b_Hip_01").
  for (std::string& w : words) {
    while (!w.empty() && std::isdigit(static_cast<unsigned char>(w.back()))) w.pop_back();
  }
  std::erase_if(words, [](const std::string& w) { return w.empty(); });
  if (words.empty()) return out;
  const std::string& last = words.back();
  out.marker = in(last, {"end", "nub", "tip", "top", "endsite", "site"}) ||
               (last.size() > 3 && (last.ends_with("end") || last.ends_with("nub")));
  for (auto it = words.begin(); it != words.end(); ++it) {
    out.side = side_word(*it);
    if (out.side != Side::kNone) {
      words.erase(it);
      break;
    }
  }
  for (std::string& w : words) {
    if (out.side != Side::kNone) break;
    out.side = unglue_side(w);
  }
  // The part word: the longest run of words that spells one (then the rightmost).
  std::size_t begin = 0, end = 0;
  for (std::size_t length = std::min<std::size_t>(3, words.size()); length > 0 && end == 0;
       --length) {
    for (std::size_t b = words.size() - length + 1; b-- > 0;) {
      std::string joined;
      for (std::size_t i = b; i < b + length; ++i) joined += words[i];
      if (keyword_kind(joined)) {
        out.keyword = joined;
        begin = b;
        end = b + length;
        break;
      }
    }
  }
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (i >= begin && i < end) continue;
    out.helper = out.helper || is_rig_helper_word(w);
    out.segment = out.segment || is_segment_word(w);
    out.digit = out.digit || is_digit_word(w);
    // After the part word only noise and segment words may follow: "LeftHandIndex" is a finger,
    // "LeftShoulderPad" no shoulder. Before it, prefixes of any kind ("CC_Base_", "null_").
    if (!out.keyword.empty() && i >= end && !is_noise_word(w) && !is_segment_word(w)) {
      out.keyword.clear();
    }
  }
  return out;
}

std::optional<HumanoidPart> part_of(const ParsedName& n) {
  if (n.marker || n.helper || n.digit || n.keyword.empty()) return std::nullopt;
  const std::optional<Kind> kind = keyword_kind(n.keyword);
  if (!kind) return std::nullopt;
  if (n.side == Side::kNone) {
    switch (*kind) {
      case Kind::kHips:
        return n.segment ? std::nullopt : std::optional(P::kHips);
      case Kind::kHead:
        return n.segment ? std::nullopt : std::optional(P::kHead);
      case Kind::kSpine:  // a chain: twist joints of a neck or spine are its joints
        return P::kSpine;
      case Kind::kNeck:
        return P::kNeck;
      default:
        return std::nullopt;
    }
  }
  if (n.segment) return std::nullopt;
  const bool left = n.side == Side::kLeft;
  switch (*kind) {
    case Kind::kShoulder:
      return left ? P::kLeftShoulder : P::kRightShoulder;
    case Kind::kUpperArm:
      return left ? P::kLeftUpperArm : P::kRightUpperArm;
    case Kind::kForearm:
      return left ? P::kLeftForearm : P::kRightForearm;
    case Kind::kHand:
      return left ? P::kLeftHand : P::kRightHand;
    case Kind::kThigh:
      return left ? P::kLeftThigh : P::kRightThigh;
    case Kind::kHips:  // a sided hip is a thigh ("LeftHip"); a sided pelvis is nothing
      return n.keyword == "hip" ? std::optional(left ? P::kLeftThigh : P::kRightThigh)
                                : std::nullopt;
    case Kind::kShin:
      return left ? P::kLeftShin : P::kRightShin;
    case Kind::kFoot:
      return left ? P::kLeftFoot : P::kRightFoot;
    case Kind::kToe:
      return left ? P::kLeftToe : P::kRightToe;
    default:
      return std::nullopt;
  }
}

}  // namespace marrow::humanoid_detail
