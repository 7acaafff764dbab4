#!/bin/sh
# Rebuilds the evaluation table of docs/autoskin.md: every rigged file of ../shared/assets,
# both methods. Usage: scripts/autoskin_table.sh [build/bin/marrow]
set -e
MARROW=${1:-build/bin/marrow}
ASSETS=$(dirname "$0")/../../shared/assets
[ -d "$ASSETS" ] || ASSETS=../shared/assets
echo "| file | method | bones | vertices | mean L1 | precision | recall | clips / frames | mean dist. | max dist. | time |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
# "Xbot+" is Xbot.glb animated by Soldier.glb's clips (same Mixamo joint names, rotations only):
# Xbot's own clip is three frames next to its bind pose. "arnaud+" is arnaud.fbx (no clips of its
# own) animated by fbx/walk.fbx (ProAnimationBank, the same skeleton).
for f in gltf/Soldier.glb gltf/Xbot.glb Xbot+ gltf/cesium_man.gltf gltf/rigged_simple.gltf \
         gltf/simple_skin.gltf x/Testwuson.X fbx/arnaud.fbx arnaud+; do
  for m in proximity heat; do
    if [ "$f" = "Xbot+" ]; then
      set -- --evaluate "$ASSETS/gltf/Xbot.glb" --clips "$ASSETS/gltf/Soldier.glb"
      label="gltf/Xbot.glb with Soldier's clips"
    elif [ "$f" = "arnaud+" ]; then
      set -- --evaluate "$ASSETS/fbx/arnaud.fbx" --clips "$ASSETS/fbx/walk.fbx"
      label="fbx/arnaud.fbx with walk.fbx"
    else
      set -- --evaluate "$ASSETS/$f"
      label=$f
    fi
    "$MARROW" autoskin "$@" --method "$m" --format json --quiet |
      python3 -c '
import json, sys
d = json.load(sys.stdin)
for s in d["skins"]:
    frames = "%d / %d" % (s["clips"], s["frames"]) if s["frames"] else "no clips"
    dist = lambda x: ("%.3f %%" % (100 * x)) if s["frames"] else "-"
    print("| %s | %s | %d | %d | %.3f | %.3f | %.3f | %s | %s | %s | %.3f s |" % (
        sys.argv[1], d["method"], s["bones"], s["vertices"], s["mean_l1"], s["precision"],
        s["recall"], frames, dist(s["mean_distance"]), dist(s["max_distance"]), s["seconds"]))
' "$label"
  done
done
