/// @file
/// A character built in code, so `marrow demo` (and tests) need no file: a 21-joint humanoid
/// (Y up, facing +Z, metres), a skinned mesh of capsules around its bones with weights blended
/// smoothly across each joint, vertex colours for skin and clothes, a striped shirt (an embedded
/// PNG texture), and walk, run and wave clips made with ClipBuilder. Content, not library code:
/// it lives in src/demo.
#pragma once

#include "marrow/io/asset.h"

namespace marrow::demo {

/// Clips in the asset, in this order.
enum DemoClip { kDemoWalk = 0, kDemoRun = 1, kDemoWave = 2 };

/// The character as an Asset: skeleton, one skin over every joint, one skinned mesh, three
/// clips (walk and run loop with the left foot forward at normalized time 0, so they can be
/// blended phase by phase; wave moves the right arm only).
Asset make_demo_character();

}  // namespace marrow::demo
