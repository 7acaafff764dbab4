// `marrow render` and `marrow demo` run as processes: the files they write decode to what was
// asked for, and bad input fails with one "marrow: ..." line and leaves no file behind.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stb_image.h>
#include <filesystem>
#include <fstream>

#include "../common/whole_file.h"
#include "gif_decoder.h"
#include "shared_asset.h"

namespace fs = std::filesystem;

namespace {

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// A fresh empty folder for outputs; the process's stdout and stderr go elsewhere so the
// folder's listing shows only what marrow wrote.
struct Workspace {
  fs::path out, logs;
  explicit Workspace(const std::string& name) {
    const fs::path base =
        fs::temp_directory_path() / ("marrow_render_" + name + "_" + std::to_string(getpid()));
    fs::remove_all(base);
    out = base / "out";
    logs = base / "logs";
    fs::create_directories(out);
    fs::create_directories(logs);
  }
  ~Workspace() { fs::remove_all(out.parent_path()); }
  std::vector<std::string> listing() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(out)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
};

struct Outcome {
  int exit_code = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  return marrow::test::whole_file<std::string>(p);
}

Outcome run(const Workspace& ws, const std::vector<std::string>& args,
            const std::string& env = "") {
  std::string command = env + (env.empty() ? "" : " ") + quote(MARROW_BIN);
  for (const std::string& a : args) command += " " + quote(a);
  command +=
      " >" + quote((ws.logs / "stdout").string()) + " 2>" + quote((ws.logs / "stderr").string());
  const int status = std::system(command.c_str());
  Outcome o;
  if (status != -1 && WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
  o.out = slurp(ws.logs / "stdout");
  o.err = slurp(ws.logs / "stderr");
  return o;
}

void expect_clean_failure(const Workspace& ws, const Outcome& o,
                          const std::vector<std::string>& parts) {
  EXPECT_EQ(o.exit_code, 1) << o.err;
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err.rfind("marrow: ", 0), 0u) << o.err;
  for (const std::string& part : parts) {
    EXPECT_NE(o.err.find(part), std::string::npos) << "'" << part << "' not in: " << o.err;
  }
  EXPECT_EQ(o.err.find("runtime error"), std::string::npos) << o.err;
  EXPECT_EQ(o.err.find("Sanitizer"), std::string::npos) << o.err;
  EXPECT_TRUE(ws.listing().empty()) << "left behind: " << ws.listing().front();
}

std::vector<std::uint8_t> bytes_of(const fs::path& p) {
  const std::string s = slurp(p);
  return {s.begin(), s.end()};
}

std::string soldier() {
  return marrow::test::shared_asset_path("gltf/Soldier.glb");
}

// Pixels that differ between two frames (any channel by more than 24 levels).
int changed_pixels(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  int n = 0;
  for (std::size_t i = 0; i + 2 < a.size(); i += 3) {
    n += std::abs(a[i] - b[i]) + std::abs(a[i + 1] - b[i + 1]) + std::abs(a[i + 2] - b[i + 2]) > 24;
  }
  return n;
}

}  // namespace

TEST(RenderCli, SoldierRunGif) {
  if (!fs::exists(soldier())) GTEST_SKIP() << soldier() << " absent";
  Workspace ws("gif");
  const std::string out = (ws.out / "run.gif").string();
  const Outcome o = run(ws, {"render", soldier(), "--clip", "Run", "--out", out, "--size", "64x48",
                             "--fps", "10", "--seconds", "1.2"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("wrote " + out), std::string::npos) << o.out;
  EXPECT_EQ(ws.listing(), std::vector<std::string>{"run.gif"});  // no temporary left
  const gif_test::DecodedGif gif = gif_test::decode_gif(bytes_of(out));
  ASSERT_EQ(gif.error, "");
  EXPECT_EQ(gif.width, 64);
  EXPECT_EQ(gif.height, 48);
  EXPECT_EQ(gif.loop_count, 0);
  ASSERT_EQ(gif.frames.size(), 12u);  // 1.2 s at 10 fps
  for (int d : gif.delays) EXPECT_EQ(d, 10);
  // The running character moves between frames.
  int moving = 0;
  for (std::size_t f = 1; f < gif.frames.size(); ++f) {
    moving += changed_pixels(gif.frames[f - 1], gif.frames[f]) > 20;
  }
  EXPECT_GE(moving, 10);
}

TEST(RenderCli, SoldierPngAtATime) {
  if (!fs::exists(soldier())) GTEST_SKIP() << soldier() << " absent";
  Workspace ws("png");
  const std::string a = (ws.out / "a.png").string(), b = (ws.out / "b.png").string();
  ASSERT_EQ(run(ws, {"render", soldier(), "--clip", "Walk", "--time", "0", "--out", a, "--size",
                     "80x100", "--skeleton"})
                .exit_code,
            0);
  ASSERT_EQ(run(ws, {"render", soldier(), "--clip", "Walk", "--time", "0.5", "--out", b, "--size",
                     "80x100", "--skeleton"})
                .exit_code,
            0);
  int w = 0, h = 0, c = 0;
  unsigned char* pa = stbi_load(a.c_str(), &w, &h, &c, 3);
  ASSERT_NE(pa, nullptr);
  EXPECT_EQ(w, 80);
  EXPECT_EQ(h, 100);
  unsigned char* pb = stbi_load(b.c_str(), &w, &h, &c, 3);
  ASSERT_NE(pb, nullptr);
  const std::vector<std::uint8_t> va(pa, pa + 80 * 100 * 3), vb(pb, pb + 80 * 100 * 3);
  EXPECT_GT(changed_pixels(va, vb), 100);  // another pose
  stbi_image_free(pa);
  stbi_image_free(pb);
}

TEST(RenderCli, BadInputLeavesNoFile) {
  Workspace ws("bad");
  const std::string gif = (ws.out / "x.gif").string();
  const std::string missing = (ws.out / "missing.glb").string();
  expect_clean_failure(ws, run(ws, {"render", missing, "--out", gif}), {missing});
  expect_clean_failure(ws, run(ws, {"render", soldier(), "--out", (ws.out / "x.bmp").string()}),
                       {"x.bmp", "unknown output format", ".png, .gif or .mp4"});
  expect_clean_failure(ws, run(ws, {"render", soldier(), "--out", gif, "--size", "100"}),
                       {"--size '100'", "WIDTHxHEIGHT"});
  expect_clean_failure(ws, run(ws, {"render", soldier(), "--out", gif, "--size", "0x50"}),
                       {"--size '0x50'"});
  expect_clean_failure(ws, run(ws, {"render", soldier(), "--out", gif, "--size", "64x-3"}),
                       {"--size '64x-3'"});
  expect_clean_failure(ws, run(ws, {"render", soldier(), "--out", gif, "--size", "99999x64"}),
                       {"--size"});
  expect_clean_failure(ws, run(ws, {"render", soldier(), "--out", gif, "--size", "8000x8000"}),
                       {"--size", "16,777,216"});
  expect_clean_failure(ws, run(ws, {"render", soldier(), "--out", gif, "--camera", "diagonal"}),
                       {"--camera 'diagonal'", "three-quarter"});
  expect_clean_failure(ws, run(ws, {"render", soldier(), "--out", gif, "--fps", "60"}),
                       {"--fps", "50"});
  expect_clean_failure(ws, run(ws, {"render", soldier(), "--out", gif, "--seconds", "-1"}),
                       {"--seconds"});
  if (fs::exists(soldier())) {
    expect_clean_failure(ws, run(ws, {"render", soldier(), "--out", gif, "--seconds", "1e300"}),
                         {"--seconds x --fps", "100000"});
  }
  expect_clean_failure(
      ws, run(ws, {"render", soldier(), "--out", (ws.out / "no/such/dir/x.gif").string()}),
      {"does not exist"});
  if (fs::exists(soldier())) {
    expect_clean_failure(ws, run(ws, {"render", soldier(), "--out", gif, "--clip", "Fly"}),
                         {"no clip 'Fly'", "Walk"});
    expect_clean_failure(ws, run(ws, {"render", soldier(), "--out", gif, "--weights", "Tail"}),
                         {"--weights", "'Tail'"});
    expect_clean_failure(
        ws, run(ws, {"render", soldier(), "--out", gif, "--layer", "Walk:mode=sideways"}),
        {"mode='sideways'"});
  }
  // A file that is not a model at all.
  const fs::path junk = ws.logs / "junk.glb";
  std::ofstream(junk) << "this is not glTF";
  expect_clean_failure(ws, run(ws, {"render", junk.string(), "--out", gif}), {"junk.glb"});
}

TEST(RenderCli, Mp4NeedsFfmpeg) {
  if (!fs::exists(soldier())) GTEST_SKIP() << soldier() << " absent";
  Workspace ws("mp4");
  const std::string mp4 = (ws.out / "walk.mp4").string();
  // No ffmpeg on PATH: a clear message, nothing written.
  const fs::path empty_bin = ws.logs / "empty_bin";
  fs::create_directories(empty_bin);
  expect_clean_failure(ws,
                       run(ws, {"render", soldier(), "--clip", "Walk", "--out", mp4},
                           "PATH=" + quote(empty_bin.string())),
                       {"walk.mp4", "ffmpeg", "not installed"});

  // A stand-in ffmpeg that stores what it reads on stdin into its last argument: the raw RGB
  // frames arrive whole and the output is renamed into place.
  const fs::path fake_bin = ws.logs / "fake_bin";
  fs::create_directories(fake_bin);
  const fs::path fake = fake_bin / "ffmpeg";
  std::ofstream(fake) << "#!/bin/sh\nfor last; do :; done\ncat > \"$last\"\n";
  fs::permissions(fake, fs::perms::owner_all);
  const Outcome ok = run(ws,
                         {"render", soldier(), "--clip", "Walk", "--out", mp4, "--size", "32x24",
                          "--fps", "10", "--seconds", "0.5"},
                         "PATH=" + quote(fake_bin.string() + ":/usr/bin:/bin"));
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ws.listing(), std::vector<std::string>{"walk.mp4"});
  EXPECT_EQ(fs::file_size(mp4), 5u * 32 * 24 * 3);
  fs::remove(mp4);

  // A stand-in that fails: an error naming ffmpeg, no output left.
  std::ofstream(fake) << "#!/bin/sh\nexit 3\n";
  expect_clean_failure(ws,
                       run(ws,
                           {"render", soldier(), "--clip", "Walk", "--out", mp4, "--size", "32x24",
                            "--fps", "10", "--seconds", "2"},
                           "PATH=" + quote(fake_bin.string() + ":/usr/bin:/bin")),
                       {"walk.mp4", "ffmpeg"});
}

TEST(RenderCli, DemoGifShowsAMovingCharacter) {
  Workspace ws("demo");
  const std::string out = (ws.out / "demo.gif").string();
  // Without the ground, whose grid and moving shadow would count as background changing.
  const Outcome o = run(ws, {"demo", "--out", out, "--size", "64x64", "--fps", "5", "--no-ground"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  for (const char* stage : {"sample", "blend", "local-to-model", "skin", "draw", "wrote",
                            "marrow render ../shared/assets/gltf/Soldier.glb --clip Run"}) {
    EXPECT_NE(o.out.find(stage), std::string::npos) << stage << " not in:\n" << o.out;
  }
  EXPECT_EQ(ws.listing(), std::vector<std::string>{"demo.gif"});
  const gif_test::DecodedGif gif = gif_test::decode_gif(bytes_of(out));
  ASSERT_EQ(gif.error, "");
  EXPECT_EQ(gif.width, 64);
  EXPECT_EQ(gif.height, 64);
  ASSERT_EQ(gif.frames.size(), 30u);  // 6 s at 5 fps
  // A character is there: the first frame has pixels far from its corner (background) colour.
  const std::vector<std::uint8_t>& first = gif.frames[0];
  int figure = 0;
  for (std::size_t i = 0; i < first.size(); i += 3) {
    const std::size_t row = (i / 3) / 64 * 64 * 3;  // same row, first column: background
    figure += std::abs(first[i] - first[row]) + std::abs(first[i + 1] - first[row + 1]) +
                  std::abs(first[i + 2] - first[row + 2]) >
              40;
  }
  EXPECT_GT(figure, 64 * 64 / 30);
  // And it moves: nearly every frame differs from the one before.
  int moving = 0;
  for (std::size_t f = 1; f < gif.frames.size(); ++f) {
    moving += changed_pixels(gif.frames[f - 1], gif.frames[f]) > 10;
  }
  EXPECT_GT(moving, static_cast<int>(gif.frames.size()) * 9 / 10);
  // Where it moves: pixels that change between two frames belong to the character in one of
  // them (within a pixel), never to the background alone.
  auto is_figure = [](const std::vector<std::uint8_t>& frame, int x, int y) {
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        const int cx = std::clamp(x + dx, 0, 63), cy = std::clamp(y + dy, 0, 63);
        const std::size_t i = (static_cast<std::size_t>(cy) * 64 + cx) * 3, bg = cy * 64 * 3;
        if (std::abs(frame[i] - frame[bg]) + std::abs(frame[i + 1] - frame[bg + 1]) +
                std::abs(frame[i + 2] - frame[bg + 2]) >
            40)
          return true;
      }
    }
    return false;
  };
  int stray = 0;
  for (std::size_t f = 1; f < gif.frames.size(); ++f) {
    const auto& a = gif.frames[f - 1];
    const auto& b = gif.frames[f];
    for (int y = 0; y < 64; ++y) {
      for (int x = 0; x < 64; ++x) {
        const std::size_t i = (static_cast<std::size_t>(y) * 64 + x) * 3;
        if (std::abs(a[i] - b[i]) + std::abs(a[i + 1] - b[i + 1]) + std::abs(a[i + 2] - b[i + 2]) <=
            24)
          continue;
        stray += !is_figure(a, x, y) && !is_figure(b, x, y);
      }
    }
  }
  EXPECT_EQ(stray, 0);

  // A PNG is not an animation; a bad size is refused; neither leaves a file.
  Workspace bad("demo_bad");
  expect_clean_failure(bad, run(bad, {"demo", "--out", (bad.out / "d.png").string()}), {"d.png"});
  expect_clean_failure(
      bad, run(bad, {"demo", "--out", (bad.out / "d.gif").string(), "--size", "axb"}), {"--size"});
}

TEST(RenderCli, InterruptedRenderLeavesNoTemporary) {
  const std::string bvh = marrow::test::shared_asset_path("bvh/01_01.bvh");
  if (!fs::exists(bvh)) GTEST_SKIP() << bvh << " absent";
  Workspace ws("signal");
  const std::string out = (ws.out / "long.gif").string();
  // A render far longer than the test: wait until its temporary exists, then SIGTERM it.
  const std::string script =
      quote(MARROW_BIN) + " render " + quote(bvh) + " --seconds 3000 --fps 25 " +
      "--size 64x64 --out " + quote(out) + " >/dev/null 2>&1 & pid=$!; seen=no; " +
      "for i in $(seq 400); do if ls -A " + quote(ws.out.string()) +
      " | grep -q tmp; then seen=yes; break; fi; sleep 0.05; done; " +
      "kill -TERM $pid; wait $pid; echo $seen > " + quote((ws.logs / "seen").string());
  ASSERT_EQ(std::system(script.c_str()), 0);
  EXPECT_EQ(slurp(ws.logs / "seen"), "yes\n");
  EXPECT_TRUE(ws.listing().empty()) << "left behind: " << ws.listing().front();
}

TEST(RenderCli, LayersAndClipFiles) {
  const std::string wuson = marrow::test::shared_asset_path("x/Testwuson.X");
  const std::string anim = marrow::test::shared_asset_path("x/anim_test.x");
  if (!fs::exists(soldier()) || !fs::exists(wuson) || !fs::exists(anim)) {
    GTEST_SKIP() << "shared assets absent";
  }
  Workspace ws("layers");
  const std::string walk = (ws.out / "walk.png").string(), mix = (ws.out / "mix.png").string();
  ASSERT_EQ(run(ws, {"render", soldier(), "--clip", "Walk", "--time", "0.3", "--out", walk,
                     "--size", "64x64", "--camera", "side"})
                .exit_code,
            0);
  // The same time with Run blended in at equal weight: another pose, so another picture.
  const Outcome o = run(ws, {"render", soldier(), "--clip", "Walk", "--layer", "Run:weight=1",
                             "--time", "0.3", "--out", mix, "--size", "64x64", "--camera", "side"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("1 layer(s)"), std::string::npos) << o.out;
  int w = 0, h = 0, c = 0;
  unsigned char* a = stbi_load(walk.c_str(), &w, &h, &c, 3);
  unsigned char* b = stbi_load(mix.c_str(), &w, &h, &c, 3);
  ASSERT_TRUE(a && b);
  EXPECT_GT(changed_pixels({a, a + 64 * 64 * 3}, {b, b + 64 * 64 * 3}), 20);
  stbi_image_free(a);
  stbi_image_free(b);
  // A clip from another file, bound by joint name: its missing joints are a note, not an error.
  const Outcome other = run(ws, {"render", wuson, "--clip-file", anim, "--out",
                                 (ws.out / "other.gif").string(), "--size", "32x32"});
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_NE(other.err.find("note"), std::string::npos) << other.err;
}

TEST(RenderCli, Mp4WithTheRealFfmpeg) {
  // `make deps` installs ffmpeg, so this runs wherever the suite does.
  ASSERT_EQ(std::system("command -v ffmpeg >/dev/null 2>&1"), 0)
      << "ffmpeg is not on PATH: `make deps` installs it (apt-get install ffmpeg)";
  if (!fs::exists(soldier())) GTEST_SKIP() << soldier() << " absent";
  Workspace ws("mp4_real");
  const std::string mp4 = (ws.out / "run.mp4").string();
  // An odd width: ffmpeg's yuv420p needs even sizes, so marrow pads by one pixel.
  const Outcome o = run(ws, {"render", soldier(), "--clip", "Run", "--out", mp4, "--size", "33x24",
                             "--fps", "10", "--seconds", "0.6"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(ws.listing(), std::vector<std::string>{"run.mp4"});
  const std::string bytes = slurp(mp4);
  ASSERT_GT(bytes.size(), 32u);
  EXPECT_EQ(bytes.substr(4, 4), "ftyp");  // an ISO base media file
  if (std::system("command -v ffprobe >/dev/null 2>&1") == 0) {
    const std::string probe =
        "ffprobe -v error -count_frames -select_streams v:0 "
        "-show_entries stream=nb_read_frames,width,height -of csv=p=0 " +
        quote(mp4) + " > " + quote((ws.logs / "probe").string());
    ASSERT_EQ(std::system(probe.c_str()), 0);
    EXPECT_EQ(slurp(ws.logs / "probe"), "34,24,6\n");
  }
}

TEST(RenderCli, TexturesAndGroundAreOnByDefaultAndCanBeTurnedOff) {
  if (!fs::exists(soldier())) GTEST_SKIP() << soldier() << " absent";
  Workspace ws("textures");
  auto render = [&](const std::string& name, std::vector<std::string> extra) {
    std::vector<std::string> args = {
        "render", soldier(), "--clip", "Walk",  "--time",
        "0.2",    "--size",  "96x96",  "--out", (ws.out / name).string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const Outcome o = run(ws, args);
    EXPECT_EQ(o.exit_code, 0) << o.err;
    EXPECT_EQ(o.err, "");  // Soldier's textures are embedded and readable: no note
    int w = 0, h = 0, c = 0;
    unsigned char* p = stbi_load((ws.out / name).string().c_str(), &w, &h, &c, 3);
    std::vector<std::uint8_t> pixels(p, p + (p ? 96 * 96 * 3 : 0));
    stbi_image_free(p);
    return pixels;
  };
  const auto full = render("full.png", {});
  const auto flat = render("flat.png", {"--no-textures"});
  const auto bare = render("bare.png", {"--no-ground"});
  ASSERT_EQ(full.size(), 96u * 96 * 3);
  ASSERT_EQ(flat.size(), full.size());
  ASSERT_EQ(bare.size(), full.size());
  // The texture changes the character's pixels: untextured, Soldier is one flat material colour
  // under lighting, so its hues barely vary; textured, they do.
  EXPECT_GT(changed_pixels(full, flat), 300);
  // Without the ground, the bottom row is the background gradient: one colour across.
  const std::size_t bottom = 95 * 96 * 3;
  for (int x = 0; x < 96; ++x) {
    EXPECT_EQ(bare[bottom + x * 3], bare[bottom]) << x;
  }
  EXPECT_GT(changed_pixels(full, bare), 300);
}

TEST(RenderCli, MissingTextureIsOneNoteNotAFailure) {
  Workspace ws("missing_texture");
  const fs::path gltf = ws.logs / "tri.gltf";
  // One triangle with UVs and a material whose image is not there.
  std::ofstream(gltf) << R"({"asset": {"version": "2.0"}, "nodes": [{"mesh": 0}],
    "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "TEXCOORD_0": 1}, "material": 0}]}],
    "materials": [{"pbrMetallicRoughness": {"baseColorTexture": {"index": 0}}}],
    "textures": [{"source": 0}], "images": [{"uri": "gone.png"}],
    "buffers": [{"byteLength": 60, "uri": "data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAAAAAAAAAAAAAAAIA/AAAAAAAAAAAAAIA/"}],
    "bufferViews": [{"buffer": 0, "byteLength": 36}, {"buffer": 0, "byteOffset": 36, "byteLength": 24}],
    "accessors": [{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                   "min": [0, 0, 0], "max": [1, 1, 0]},
                  {"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC2"}]})";
  const Outcome o = run(ws, {"render", gltf.string(), "--out", (ws.out / "t.png").string()});
  EXPECT_EQ(o.exit_code, 0) << o.err;
  EXPECT_EQ(ws.listing(), std::vector<std::string>{"t.png"});
  std::size_t notes = 0;
  for (std::size_t at = o.err.find("marrow: note:"); at != std::string::npos;
       at = o.err.find("marrow: note:", at + 1))
    ++notes;
  EXPECT_EQ(notes, 1u) << o.err;
  EXPECT_NE(o.err.find("gone.png"), std::string::npos) << o.err;
}

// `marrow render --script` draws the frames `marrow play` steps: a GIF with one frame per script
// frame at the script's rate, and a PNG at --time whose pose is the one worked out by hand.
TEST(RenderCli, AScriptIsDrawnFrameByFrame) {
  if (!fs::exists(soldier())) GTEST_SKIP() << soldier() << " absent";
  Workspace ws("script");
  // Idle, then a cross-fade into Run at 0.2 s over 0.3 s. Commands act at their time, so at
  // t = 1.0 Run has played 0.8 s: 0.8 - 2/3 = 2/15 s into its second loop, alone.
  const fs::path script = ws.logs / "fade.json";
  std::ofstream(script) << R"({"fps": 10, "duration": 1.9, "compile": false,
      "timeline": [{"t": 0, "play": "Idle"},
                   {"t": 0.2, "cross_fade": {"from": "Idle", "to": "Run", "duration": 0.3}}]})";
  const std::string gif_out = (ws.out / "fade.gif").string();
  Outcome o = run(
      ws, {"render", soldier(), "--script", script.string(), "--out", gif_out, "--size", "64x64"});
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_NE(o.out.find("script '" + script.string() + "'"), std::string::npos) << o.out;
  EXPECT_EQ(ws.listing(), std::vector<std::string>{"fade.gif"});
  const gif_test::DecodedGif gif = gif_test::decode_gif(bytes_of(gif_out));
  ASSERT_EQ(gif.error, "");
  ASSERT_EQ(gif.frames.size(), 20u);  // 0, 0.1, ..., 1.9 s
  for (int d : gif.delays) EXPECT_EQ(d, 10);
  int moving = 0;
  for (std::size_t f = 11; f < gif.frames.size(); ++f) {
    moving += changed_pixels(gif.frames[f - 1], gif.frames[f]) > 20;
  }
  EXPECT_GE(moving, 7);  // running

  const std::string at_one = (ws.out / "script.png").string();
  const std::string same = (ws.out / "same.png").string();
  const std::string other = (ws.out / "other.png").string();
  ASSERT_EQ(run(ws, {"render", soldier(), "--script", script.string(), "--time", "1", "--out",
                     at_one, "--size", "80x100"})
                .exit_code,
            0);
  ASSERT_EQ(run(ws, {"render", soldier(), "--clip", "Run", "--time", "0.133333", "--out", same,
                     "--size", "80x100"})
                .exit_code,
            0);
  ASSERT_EQ(run(ws, {"render", soldier(), "--clip", "Run", "--time", "0.4", "--out", other,
                     "--size", "80x100"})
                .exit_code,
            0);
  const auto load = [](const std::string& path) {
    int w = 0, h = 0, c = 0;
    unsigned char* p = stbi_load(path.c_str(), &w, &h, &c, 3);
    EXPECT_NE(p, nullptr) << path;
    std::vector<std::uint8_t> v;
    if (p) v.assign(p, p + w * h * 3);
    stbi_image_free(p);
    return v;
  };
  const std::vector<std::uint8_t> a = load(at_one), b = load(same), c = load(other);
  ASSERT_EQ(a.size(), 80u * 100 * 3);
  ASSERT_EQ(b.size(), a.size());
  ASSERT_EQ(c.size(), a.size());
  EXPECT_LE(changed_pixels(a, b), 10);   // the same pose (float time: an edge pixel or two)
  EXPECT_GT(changed_pixels(a, c), 100);  // another one

  // The script owns what plays and its timing; a bad script names its file and place.
  Workspace bad("script_bad");
  const std::string x = (bad.out / "x.gif").string();
  expect_clean_failure(
      bad,
      run(bad, {"render", soldier(), "--script", script.string(), "--clip", "Run", "--out", x}),
      {"--script", "--clip"});
  expect_clean_failure(
      bad, run(bad, {"render", soldier(), "--script", script.string(), "--fps", "5", "--out", x}),
      {"--fps"});
  expect_clean_failure(bad,
                       run(bad, {"render", soldier(), "--script", script.string(), "--time", "5",
                                 "--out", (bad.out / "x.png").string()}),
                       {"--time"});
  const fs::path broken = bad.logs / "broken.json";
  std::ofstream(broken) << R"({"timeline": [{"t": 0, "play": "Jog"}]})";
  expect_clean_failure(bad,
                       run(bad, {"render", soldier(), "--script", broken.string(), "--out", x}),
                       {"broken.json", "timeline[0]", "'Jog'"});
}

// A motion-matching script (docs/motion_matching.md, "In scripts") is drawn with the path its
// stick asks for (orange) and the path the character walked so far (blue) on the ground.
TEST(RenderCli, AMotionMatchingScriptDrawsBothPathsOnTheGround) {
  const std::string dir = marrow::test::shared_asset_path("bvh/cmu_iclone/");
  for (const char* take : {"007_01", "002_01", "006_10", "006_11"})
    if (!fs::exists(dir + take + ".bvh")) GTEST_SKIP() << dir << take << ".bvh absent";
  Workspace ws("matching");
  const fs::path script = ws.logs / "walk.json";
  std::ofstream(script) << R"({"fps": 10, "duration": 8, "motion_matching": {"files": [")" << dir
                        << R"(002_01.bvh", ")" << dir << R"(006_10.bvh", ")" << dir
                        << R"(006_11.bvh"], "root": "CC_Base_Hip", "left_foot": "CC_Base_L_Foot",
      "right_foot": "CC_Base_R_Foot", "exclude_start": 0.05},
      "timeline": [{"t": 0, "stick": {"speed": 130, "direction": 0}},
                   {"t": 4, "stick": {"speed": 130, "direction": 90}}]})";
  const auto pixels_near = [](const std::vector<std::uint8_t>& rgb, int r, int g, int b) {
    int n = 0;
    for (std::size_t i = 0; i + 2 < rgb.size(); i += 3)
      n += std::abs(rgb[i] - r) < 40 && std::abs(rgb[i + 1] - g) < 40 &&
           std::abs(rgb[i + 2] - b) < 40;
    return n;
  };
  const auto png_at = [&](const std::string& name, std::vector<std::string> more) {
    const std::string out = (ws.out / name).string();
    std::vector<std::string> args = {
        "render", dir + "007_01.bvh", "--script", script.string(), "--out",
        out,      "--size",           "200x200"};
    args.insert(args.end(), more.begin(), more.end());
    const Outcome o = run(ws, args);
    EXPECT_EQ(o.exit_code, 0) << o.err;
    int w = 0, h = 0, c = 0;
    unsigned char* p = stbi_load(out.c_str(), &w, &h, &c, 3);
    std::vector<std::uint8_t> v;
    if (p) v.assign(p, p + w * h * 3);
    stbi_image_free(p);
    return v;
  };
  // The colours are the renderer's: orange (255, 140, 26) desired, blue (26, 140, 255) actual.
  const std::vector<std::uint8_t> start = png_at("start.png", {"--time", "0"});
  const std::vector<std::uint8_t> end = png_at("end.png", {"--time", "8"});
  const std::vector<std::uint8_t> bare = png_at("bare.png", {"--time", "8", "--no-ground"});
  ASSERT_EQ(end.size(), 200u * 200 * 3);
  EXPECT_GT(pixels_near(start, 255, 140, 26), 40);  // the whole desired path from the start
  EXPECT_LT(pixels_near(start, 26, 140, 255), 10);  // and nothing walked yet
  EXPECT_GT(pixels_near(end, 26, 140, 255), 40);    // 8 s walked
  EXPECT_GT(pixels_near(end, 255, 140, 26), 20);    // beside the desired path
  EXPECT_LT(pixels_near(bare, 26, 140, 255) + pixels_near(bare, 255, 140, 26), 10);  // no ground
}

// What a conversion keeps renders as the file did: each file with meshes and materials of
// ../shared/assets (textures embedded, beside the file, in .mtl-free formats), converted to
// .glb, .gltf and .marrow, renders at its first clip's start within 8 of 255 levels of the
// source's render in every pixel and channel (measured: at most 5; docs/formats.md).
TEST(RenderCli, ConversionsRenderLikeTheirSource) {
  const std::string assets = marrow::test::shared_asset_path("");
  Workspace ws("conversions");
  const auto render = [&](const std::string& file, const std::string& png) {
    const Outcome o = run(ws, {"render", file, "--size", "64x64", "--quiet", "--out", png});
    EXPECT_EQ(o.exit_code, 0) << file << ": " << o.err;
    int w = 0, h = 0, c = 0;
    unsigned char* p = stbi_load(png.c_str(), &w, &h, &c, 3);
    std::vector<std::uint8_t> pixels(p, p + (p && w == 64 && h == 64 ? 64 * 64 * 3 : 0));
    stbi_image_free(p);
    return pixels;
  };
  int tried = 0;
  for (const char* relative :
       {"gltf/Soldier.glb", "gltf/cesium_man.gltf", "x/Testwuson.X", "smd/WusonSMD.smd",
        "fbx/animation_with_skeleton.fbx", "collada/pab/walk.dae"}) {
    const std::string source = assets + relative;
    if (!fs::exists(source)) continue;
    ++tried;
    const std::vector<std::uint8_t> want = render(source, (ws.out / "source.png").string());
    ASSERT_EQ(want.size(), 64u * 64 * 3) << relative;
    for (const char* extension : {".glb", ".gltf", ".marrow"}) {
      SCOPED_TRACE(std::string(relative) + " -> " + extension);
      const std::string converted = (ws.out / (std::string("converted") + extension)).string();
      const Outcome c = run(ws, {"convert", source, converted, "--quiet"});
      ASSERT_EQ(c.exit_code, 0) << c.err;
      const std::vector<std::uint8_t> got = render(converted, (ws.out / "converted.png").string());
      ASSERT_EQ(got.size(), want.size());
      int worst = 0;
      for (std::size_t i = 0; i < got.size(); ++i)
        worst = std::max(worst, std::abs(got[i] - want[i]));
      EXPECT_LE(worst, 8);
    }
  }
  if (tried == 0) GTEST_SKIP() << assets << " absent";
}

// --rest draws the file's node transforms whatever its clips do; --morph holds a target at a
// weight over what the clip gives it. AnimatedMorphCube's clip animates only target 0's weight
// (0.68 at 1 s, 0 at rest), so at 1 s with target 0 held at 0 the picture is the rest picture,
// and holding it at 1 moves the cube away from both.
TEST(RenderCli, RestPoseAndHeldMorphWeights) {
  const std::string cube = marrow::test::shared_asset_path("gltf/morph/AnimatedMorphCube.gltf");
  if (!fs::exists(cube)) GTEST_SKIP() << cube << " absent";
  Workspace ws("morph");
  const auto png = [&](const std::string& name, std::vector<std::string> extra) {
    const std::string out = (ws.out / name).string();
    std::vector<std::string> args = {"render",      cube,    "--size", "96x96",
                                     "--no-ground", "--out", out};
    args.insert(args.end(), extra.begin(), extra.end());
    const Outcome o = run(ws, args);
    EXPECT_EQ(o.exit_code, 0) << name << ": " << o.err;
    return bytes_of(out);
  };
  const auto rest = png("rest.png", {"--rest"});
  const auto animated = png("animated.png", {"--time", "1"});
  const auto held_zero = png("held0.png", {"--time", "1", "--morph", "#0=0"});
  const auto held_one = png("held1.png", {"--rest", "--morph", "#0=1"});
  EXPECT_NE(animated, rest);
  EXPECT_EQ(held_zero, rest);
  EXPECT_NE(held_one, rest);
  EXPECT_NE(held_one, animated);

  const Outcome unknown =
      run(ws, {"render", cube, "--morph", "smile=1", "--out", (ws.out / "x.png").string()});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.err.find("no morph target 'smile' (targets: all unnamed; by slot: #0..#1)"),
            std::string::npos)
      << unknown.err;
  const Outcome malformed =
      run(ws, {"render", cube, "--morph", "#0", "--out", (ws.out / "y.png").string()});
  EXPECT_EQ(malformed.exit_code, 1);
  EXPECT_NE(malformed.err.find("expected NAME=WEIGHT"), std::string::npos) << malformed.err;
  const Outcome rest_and_clip =
      run(ws, {"render", cube, "--rest", "--clip", "0", "--out", (ws.out / "z.png").string()});
  EXPECT_EQ(rest_and_clip.exit_code, 1);
  EXPECT_NE(rest_and_clip.err.find("--rest draws the rest pose"), std::string::npos);
}
