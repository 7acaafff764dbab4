// The character the controller's fuzz targets run scripts and state machines on: a small
// humanoid with Mixamo joint names (those the example scripts and docs use) and four clips,
// "Idle", "Walk", "Run" and "TPose", made in memory so the targets need no file.
#pragma once

#include <string>

#include "marrow/io/animation_script.h"
#include "marrow/io/asset.h"

namespace marrow::fuzz {

// Built once; the same asset for every input.
const Asset& script_character();

// The most frames a target steps a script (a script may ask for 240 fps over an hour).
inline constexpr int kMaxScriptFrames = 120;

// Runs `script` on the character as `marrow play` does (ScriptRunner), for up to
// kMaxScriptFrames frames. An error, when the script is built or at a timeline entry, must name
// `where`; every frame's model matrices must be finite. Returns 0 (a fuzz target's result).
int run_script(const AnimationScript& script, const std::string& where);

}  // namespace marrow::fuzz
