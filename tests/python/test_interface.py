"""The module in the shapes Python users expect: paths as os.PathLike, informative reprs,
Asset.info() as marrow info --format json gives it, Mesh arrays as read-only views, morph
weights faded by hand, and a clear ImportError without NumPy."""
import inspect
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import marrow
from conftest import asset_path


def test_paths_may_be_pathlib_paths(tmp_path, soldier_path):
    asset = marrow.load(pathlib.Path(soldier_path))
    assert asset.source == soldier_path
    out = tmp_path / "soldier.marrow"
    assert isinstance(asset.save(out), list)
    assert out.stat().st_size > 0
    glb = tmp_path / "soldier.glb"
    marrow.convert(pathlib.Path(soldier_path), glb)
    assert [c.name for c in marrow.load(glb).clips] == ["Idle", "Run", "TPose", "Walk"]
    with pytest.raises(TypeError):
        marrow.load(42)


def test_objects_say_what_they_are(soldier_path):
    asset = marrow.load(soldier_path)
    assert repr(asset) == (f"<marrow.Asset {soldier_path!r}: {len(asset.skeleton)} nodes, "
                           f"4 clips, {len(asset.meshes)} meshes>")
    assert repr(asset.clips[3]).startswith("<marrow.Clip 'Walk', 1.0 s, ")
    assert repr(asset.skeleton).startswith(f"<marrow.Skeleton {len(asset.skeleton)} joints")
    assert repr(asset.skins[0]) == (f"<marrow.Skin {asset.skins[0].name!r}, "
                                    f"{len(asset.skins[0].joints)} joints>")
    mesh = asset.meshes[0]
    assert repr(mesh).startswith(f"<marrow.Mesh {mesh.name!r}, {mesh.vertex_count} vertices, ")
    clip_set = marrow.ClipSet(asset)
    assert repr(clip_set) == f"<marrow.ClipSet 4 clips, {len(asset.skeleton)} joints, 0 morph weights>"
    animator = marrow.Animator(clip_set)
    animator.play("Walk")
    assert repr(animator) == "<marrow.Animator 1 players>"
    assert repr(marrow.Sampler(asset, 3)) == "<marrow.Sampler of 'Walk'>"
    assert repr(marrow.Layer(asset.skeleton.rest_pose, 0.5)) == "<marrow.Layer weight 0.5>"


def test_info_is_the_cli_document(soldier_path):
    asset = marrow.load(soldier_path)
    info = asset.info()
    assert info["schema"] == "marrow-info" and info["version"] == 1
    assert [c["name"] for c in info["clips"]] == [c.name for c in asset.clips]
    assert len(info["nodes"]) == len(asset.skeleton)
    binary = os.environ.get("MARROW_BIN")
    if binary is None:
        pytest.skip("MARROW_BIN is not set (ctest sets it)")
    cli = subprocess.run([binary, "info", soldier_path,
                          "--format", "json"], capture_output=True, text=True)
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout) == info
    assert "nodes" not in asset.info(clips_only=True)


def test_mesh_skin_weights_are_views_and_dense_weights_pad(soldier_path):
    mesh = marrow.load(soldier_path).meshes[0]
    offsets, joints, weights = mesh.influence_offsets, mesh.influence_joints, mesh.influence_weights
    assert offsets.shape == (mesh.vertex_count + 1,) and offsets[0] == 0
    assert offsets[-1] == joints.shape[0] == weights.shape[0]
    assert not weights.flags.writeable and not weights.flags.owndata  # a view, not a copy
    np.testing.assert_allclose(np.add.reduceat(weights, offsets[:-1]), 1, atol=1e-5)
    dense_joints, dense_weights = mesh.dense_weights()
    k = dense_weights.shape[1]
    assert dense_joints.shape == (mesh.vertex_count, k) and k == np.diff(offsets).max()
    np.testing.assert_allclose(dense_weights.sum(axis=1), 1, atol=1e-5)
    v = int(np.argmax(np.diff(offsets)))  # a vertex with the most influences
    np.testing.assert_array_equal(dense_joints[v], joints[offsets[v]:offsets[v + 1]])


def test_morph_targets_are_exposed_and_faded_by_hand():
    cube = marrow.load(asset_path("gltf/morph/AnimatedMorphCube.gltf"))
    targets = cube.meshes[0].morph_targets
    assert len(targets) == 2
    for t in targets:
        assert t["vertices"].dtype == np.uint32
        assert t["position_deltas"].shape == (t["vertices"].shape[0], 3)
        assert not t["position_deltas"].flags.writeable
    assert repr(cube.meshes[0]).endswith(", 2 morph targets>")
    # A slot faded by hand from its default (0) to 1 over 1 s is halfway after 0.5 s, whatever
    # no clip plays.
    clip_set = marrow.ClipSet(cube)
    animator = marrow.Animator(clip_set)
    animator.fade_morph_weight(1, 1.0, 1.0)
    animator.update(0.5)
    assert animator.evaluate_morph_weights()[1] == pytest.approx(0.5)
    animator.release_morph_weight(1, 0.5)
    animator.update(0.25)
    assert animator.evaluate_morph_weights()[1] == pytest.approx(0.25)
    with pytest.raises(ValueError):
        animator.fade_morph_weight(1, 1.0, -1.0)
    with pytest.raises(IndexError):
        animator.fade_morph_weight(7, 1.0, 1.0)


def test_importing_without_numpy_says_what_to_install():
    # A Python where `import numpy` fails: marrow's import names the package to install.
    code = "import sys; sys.modules['numpy'] = None; import marrow"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=os.environ.copy())
    assert run.returncode != 0
    assert "ImportError: marrow needs NumPy" in run.stderr, run.stderr


def test_sampling_and_the_hierarchy_over_an_array_of_times(soldier_path):
    asset = marrow.load(soldier_path)
    times = np.array([0.0, 0.25, 0.5, 0.9], dtype=np.float32)
    poses = marrow.sample(asset, "Walk", times)
    assert poses.shape == (4, len(asset.skeleton), 10)
    models = marrow.local_to_model(asset.skeleton, poses)
    assert models.shape == (4, len(asset.skeleton), 4, 4)
    sampler = marrow.Sampler(asset, "Walk")
    for k, t in enumerate(times):
        one = marrow.sample(asset, "Walk", float(t))
        np.testing.assert_array_equal(poses[k], one)
        np.testing.assert_array_equal(models[k], marrow.local_to_model(asset.skeleton, one))
    np.testing.assert_array_equal(sampler.sample(times), poses)
    with pytest.raises(ValueError):
        marrow.sample(asset, "Walk", np.array([0.0, np.nan], dtype=np.float32))


def test_pose_jobs_refuse_in_the_jobs_own_words(soldier_path):
    asset = marrow.load(soldier_path)
    sk = asset.skeleton
    walk = marrow.sample(asset, "Walk", 0.3)
    bad = walk[3].copy()
    bad[3:7] = np.nan  # a rotation that is not finite
    with pytest.raises(marrow.Error, match=r"force: ForceJob: forces\[0\]\.transform: is not finite"):
        marrow.force(sk, walk.copy(), [(3, bad, "local", 1.0)])
    # No frames: nothing to check and nothing to compute.
    empty = marrow.local_to_model(sk, np.zeros((0, len(sk), 10), dtype=np.float32))
    assert empty.shape == (0, len(sk), 4, 4)


def test_a_players_info_names_its_clip_or_its_blend_space(soldier_path):
    asset = marrow.load(soldier_path)
    clip_set = marrow.ClipSet(asset, blend_spaces_1d={"move": [("Walk", 1.0), ("Run", 2.0)]})
    animator = marrow.Animator(clip_set)
    walk = animator.play("Walk")
    move = animator.play_blend_space("move", 1.5)
    animator.update(0.1)
    assert animator.info(walk)["clip"] == "Walk" and animator.info(walk)["blend_space"] is None
    assert animator.info(move)["blend_space"] == "move" and animator.info(move)["clip"] is None


def test_skin_and_render_mix_morph_targets_in(tmp_path):
    path = asset_path("gltf/morph/AnimatedMorphCube.gltf")
    cube = marrow.load(path)
    model = marrow.local_to_model(cube.skeleton, cube.skeleton.rest_pose)
    target = cube.meshes[0].morph_targets[0]
    plain = marrow.skin(cube, 0, model)
    morphed = marrow.skin(cube, 0, model, morph_weights=np.array([0.5, 0.0], dtype=np.float32))
    # Half of target 0's deltas, carried by the mesh's placement (the cube's one node: a
    # rotation and a scale of 100), on the vertices it moves; the others stay.
    moved = target["vertices"]
    placement = model[0, :3, :3]
    expected = (0.5 * target["position_deltas"]) @ placement.T
    np.testing.assert_allclose(morphed[moved] - plain[moved], expected, rtol=1e-4, atol=1e-5)
    still = np.setdiff1d(np.arange(plain.shape[0]), moved)
    np.testing.assert_array_equal(morphed[still], plain[still])
    with pytest.raises(ValueError):
        marrow.skin(cube, 0, model, morph_weights=np.zeros(5, dtype=np.float32))
    # A weight that is not a number is refused in the morph job's own words, naming the slot.
    with pytest.raises(marrow.Error, match=r"skin: MorphJob: weights\[0\]: is not finite"):
        marrow.skin(cube, 0, model, morph_weights=np.array([np.nan, 0.0], dtype=np.float32))
    # The same picture as the command line's --rest --morph #0=1.
    out = tmp_path / "python.png"
    marrow.render(cube, out, model, morph_weights=np.array([1.0, 0.0], dtype=np.float32))
    cli = tmp_path / "cli.png"
    run = subprocess.run([os.environ["MARROW_BIN"], "render", path, "--rest", "--morph", "#0=1",
                          "--out", str(cli)], capture_output=True, text=True) \
        if "MARROW_BIN" in os.environ else None
    if run is None:
        pytest.skip("MARROW_BIN is not set (ctest sets it)")
    assert run.returncode == 0, run.stderr
    assert out.read_bytes() == cli.read_bytes()
    unmorphed = tmp_path / "plain.png"
    marrow.render(cube, unmorphed, model)
    assert unmorphed.read_bytes() != out.read_bytes()


MACHINE = {
    "parameters": [{"name": "speed"}, {"name": "wave", "type": "trigger"}],
    "states": [{"name": "Stand", "clip": "Idle"}, {"name": "Walk", "clip": "Walk"},
               {"name": "Pose", "clip": "Run", "wrap": "clamp"}],
    "transitions": [
        {"from": "Stand", "to": "Walk", "when": [{"parameter": "speed", "op": ">", "value": 0.5}],
         "duration": 0.2, "curve": "linear"},
        {"from": "*", "to": "Pose", "when": [{"parameter": "wave", "op": "triggered"}],
         "duration": 0},
        {"from": "Pose", "to": "Stand", "on_finish": True, "duration": 0.25, "curve": "linear"}],
}


def test_a_state_machine_from_a_dict_drives_an_animator(soldier_path, tmp_path):
    asset = marrow.load(soldier_path)
    clip_set = marrow.ClipSet(asset)
    animator = marrow.Animator(clip_set)
    machine = marrow.StateMachine(clip_set, MACHINE)
    machine.start(animator)
    assert machine.state == "Stand" and repr(machine) == "<marrow.StateMachine in 'Stand'>"
    machine.set_float("speed", 1.0)
    machine.update(animator, 0.1)
    # 0.1 s into a 0.2 s linear fade: the new state at half weight.
    assert machine.state == "Walk" and machine.in_transition
    assert animator.info(machine.player)["effective_weight"] == pytest.approx(0.5, abs=1e-5)
    machine.trigger("wave")
    machine.update(animator, 0.2)  # the fade ends this update; the trigger waits for the next
    machine.update(animator, 0.1)
    assert machine.state == "Pose"
    # Run is 0.667 s (clamped): on_finish leaves 0.25 s before its end, at 0.417 s in; Pose
    # began at the start of the last update (a switch without a fade), so it has played 0.1 s.
    duration = asset.clips[asset.find_clip("Run")].duration
    machine.update(animator, duration - 0.25 - 0.1 - 0.05)
    assert machine.state == "Pose"
    machine.update(animator, 0.1)
    assert machine.state == "Stand"
    # JSON text and a file give the same machine; a bad one names the JSON place.
    path = tmp_path / "machine.json"
    path.write_text(json.dumps(MACHINE))
    assert marrow.StateMachine(clip_set, path).state == "Stand"
    assert marrow.StateMachine(clip_set, json.dumps(MACHINE)).state == "Stand"
    with pytest.raises(marrow.Error, match=r"states\[0\]\.clip"):
        marrow.StateMachine(clip_set, {"states": [{"name": "A", "clip": "Fly"}]})
    with pytest.raises(ValueError):
        machine.set_float("velocity", 1.0)


def test_compile_reports_what_the_command_line_reports_and_saves(soldier_path, tmp_path):
    asset = marrow.load(soldier_path)
    reports = marrow.compile(asset, ["Walk", "Run"])
    assert [r["clip"] for r in reports] == ["Walk", "Run"]
    walk = reports[0]
    assert walk["max_error"] <= walk["error_bound"]
    assert walk["ratio"] == pytest.approx(walk["exact_bytes"] / walk["compiled_bytes"])
    cli = subprocess.run([os.environ["MARROW_BIN"], "compile", soldier_path, "--clip", "Walk",
                          "--format", "json"], capture_output=True, text=True) \
        if "MARROW_BIN" in os.environ else None
    if cli is not None:
        assert cli.returncode == 0, cli.stderr
        same = json.loads(cli.stdout)["clips"][0]
        assert same["compiled_bytes"] == walk["compiled_bytes"]
        assert same["raw_bytes"] == walk["raw_bytes"]
        assert walk["raw_ratio"] == pytest.approx(walk["raw_bytes"] / walk["compiled_bytes"])
        assert same["compiler_max_error"] == pytest.approx(walk["max_error"], rel=1e-6)
    out = tmp_path / "soldier.marrow"
    asset.save(out)
    kept = marrow.load(out).info(clips_only=True)["clips"]
    assert [c["name"] for c in kept if c["compiled"]] == ["Run", "Walk"]
    assert [c["compiled"]["bytes"] for c in kept if c["name"] == "Walk"] == [walk["compiled_bytes"]]
    # pack=False is the command line's --no-pack: the same clip, larger, byte for byte the same.
    unpacked = marrow.compile(asset, ["Walk"], pack=False)[0]
    assert unpacked["compiled_bytes"] > walk["compiled_bytes"]
    assert unpacked["max_error"] <= unpacked["error_bound"]
    if "MARROW_BIN" in os.environ:
        cli = subprocess.run([os.environ["MARROW_BIN"], "compile", soldier_path, "--clip", "Walk",
                              "--no-pack", "--format", "json"], capture_output=True, text=True)
        assert cli.returncode == 0, cli.stderr
        assert json.loads(cli.stdout)["clips"][0]["compiled_bytes"] == unpacked["compiled_bytes"]
    with pytest.raises(marrow.Error, match="no clip 'Swim'"):
        marrow.compile(asset, ["Swim"])
    with pytest.raises(ValueError):
        marrow.compile(asset, error_mm=0)


def test_retarget_gives_what_the_command_line_writes(soldier_path, tmp_path):
    soldier = marrow.load(soldier_path)
    xbot_path = asset_path("gltf/Xbot.glb")
    xbot = marrow.load(xbot_path)
    result = marrow.retarget(soldier, xbot, ["Walk"])
    assert [c.name for c in result.clips] == ["Walk"]
    assert len(result.skeleton) == len(xbot.skeleton)
    if "MARROW_BIN" not in os.environ:
        pytest.skip("MARROW_BIN is not set (ctest sets it)")
    out = tmp_path / "xbot_walk.glb"
    run = subprocess.run([os.environ["MARROW_BIN"], "retarget", soldier_path, xbot_path, "-o",
                          str(out), "--clip", "Walk", "--quiet"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    written = marrow.load(out)
    times = np.linspace(0, result.clips[0].duration, 7, dtype=np.float32)
    np.testing.assert_allclose(marrow.sample(result, "Walk", times),
                               marrow.sample(written, "Walk", times), atol=1e-5)
    # A map as a dict (the JSON map's members); its mistakes name the place.
    with pytest.raises(marrow.Error, match="Nope"):
        marrow.retarget(soldier, xbot, ["Walk"], map={"source": {"hips": "Nope"}})
    with pytest.raises(ValueError):
        marrow.retarget(soldier, xbot, root_scale=-1.0)


def test_a_script_runs_frame_by_frame_as_marrow_play_runs_it(soldier_path):
    script = os.path.join(os.environ.get("MARROW_SOURCE_DIR", "."), "examples", "scripts",
                          "soldier_walk_to_run.json")
    asset = marrow.load(soldier_path)
    runner = marrow.ScriptRunner(asset, pathlib.Path(script))
    frames = list(runner)
    assert len(frames) == runner.frame_count and frames[-1]["index"] == runner.frame_count - 1
    if "MARROW_BIN" not in os.environ:
        pytest.skip("MARROW_BIN is not set (ctest sets it)")
    run = subprocess.run([os.environ["MARROW_BIN"], "play", soldier_path, "--script", script,
                          "--format", "json", "--pose"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    play = json.loads(run.stdout)
    assert len(play["frames"]) == len(frames)
    hips = asset.skeleton.find("mixamorig:Hips")
    column = [n["name"] for n in play["nodes"]].index("mixamorig:Hips")
    for ours, theirs in zip(frames, play["frames"]):
        assert [(e["type"], e["name"], e["player"]) for e in ours["events"]] == \
            [(e["type"], e.get("name", ""), e["player"]) for e in theirs["events"]]
        assert [p["id"] for p in ours["players"]] == [p["id"] for p in theirs["players"]]
        world = np.array(theirs["world"][column], dtype=np.float32).reshape(4, 4).T
        np.testing.assert_allclose(ours["model"][hips], world, atol=1e-5)
    with pytest.raises(marrow.Error, match=r"timeline\[0\]"):
        list(marrow.ScriptRunner(asset, {"timeline": [{"t": 0, "play": "Swim"}]}))


def test_a_runner_takes_commands_one_at_a_time_on_the_callers_clock(soldier_path):
    # The timeline's frames at 4 fps, and the same commands run by hand with steps of 0.25 s.
    asset = marrow.load(soldier_path)
    timed = list(marrow.ScriptRunner(asset, {"fps": 4, "duration": 1, "timeline": [
        {"t": 0, "play": "Walk"}, {"t": 0.5, "set_speed": {"id": "Walk", "speed": 2}}]}))
    runner = marrow.ScriptRunner(asset, {"fps": 4})
    runner.run({"play": "Walk"})
    frames = [runner.step(0)]
    for k in range(1, 5):
        frames.append(runner.step(0.25))
        if k == 2:
            runner.run('{"set_speed": {"id": "Walk", "speed": 2}}')
            frames[-1] = runner.step(0)
    assert len(frames) == len(timed) == 5
    for ours, theirs in zip(frames, timed):
        assert ours["time"] == pytest.approx(theirs["time"])
        assert ours["players"] == []  # step() lists no players
        np.testing.assert_allclose(ours["model"], theirs["model"], atol=1e-5)
    with pytest.raises(marrow.Error, match=r"command: play\.clip: must be a string"):
        runner.run({"play": {"clip": 3}})
    with pytest.raises(marrow.Error, match=r"no player 'Jog' is playing"):
        runner.run({"stop": "Jog"})


def test_ik_edits_a_local_pose_in_place(soldier_path):
    asset = marrow.load(soldier_path)
    skeleton = asset.skeleton
    local = marrow.sample(asset, "Walk", 0.3)
    model = marrow.local_to_model(skeleton, local)
    hip, knee, foot = (skeleton.find(f"mixamorig:{n}") for n in ("LeftUpLeg", "LeftLeg", "LeftFoot"))
    thigh = np.linalg.norm(model[knee, :3, 3] - model[hip, :3, 3])
    # Lift the foot by a fifth of the thigh: reachable, so the foot lands on the target.
    target = model[foot, :3, 3] + np.array([0, 0.2 * thigh, 0], dtype=np.float32)
    forward = model[knee, :3, 3] - model[hip, :3, 3]
    assert marrow.two_bone_ik(skeleton, local, "mixamorig:LeftUpLeg", knee, foot, tuple(target),
                              pole_vector=tuple(np.cross(forward, [1, 0, 0]) + [0, 0, 1]))
    solved = marrow.local_to_model(skeleton, local)
    np.testing.assert_allclose(solved[foot, :3, 3], target, atol=1e-4 * thigh)
    # Aim the head's forward (+z in Mixamo's head frame is the face's front) at a point ahead.
    head = skeleton.find("mixamorig:Head")
    point = tuple(solved[head, :3, 3] + np.array([1.0, 0.0, 1.0], dtype=np.float32) * thigh)
    assert marrow.aim_ik(skeleton, local, head, point)
    aimed = marrow.local_to_model(skeleton, local)
    axis = aimed[head, :3, 2] / np.linalg.norm(aimed[head, :3, 2])
    to_point = np.asarray(point) - aimed[head, :3, 3]
    assert np.dot(axis, to_point / np.linalg.norm(to_point)) == pytest.approx(1.0, abs=1e-4)
    # A chain: the left arm's hand to a point the arm can reach.
    shoulder, hand = skeleton.find("mixamorig:LeftArm"), skeleton.find("mixamorig:LeftHand")
    reach = aimed[hand, :3, 3] + np.array([0, 0.3 * thigh, 0.1 * thigh], dtype=np.float32)
    assert marrow.chain_ik(skeleton, local, shoulder, hand, tuple(reach), tolerance=1e-3 * thigh)
    chained = marrow.local_to_model(skeleton, local)
    assert np.linalg.norm(chained[hand, :3, 3] - reach) <= 1e-3 * thigh
    with pytest.raises(ValueError, match="no joint 'Nope'"):
        marrow.aim_ik(skeleton, local, "Nope", point)
    with pytest.raises(ValueError, match="TwoBoneIkJob: mid: is not a joint below start"):
        marrow.two_bone_ik(skeleton, local, foot, knee, hip, tuple(target))  # upside down


def test_feet_are_found_planted_and_held(soldier_path):
    asset = marrow.load(soldier_path)
    skeleton = asset.skeleton
    left = ("mixamorig:LeftFoot", "mixamorig:LeftToeBase")
    contacts = marrow.detect_foot_contacts(
        asset, "Walk", [left, ("mixamorig:RightFoot", "mixamorig:RightToeBase")])
    assert contacts.foot_count == 2 and repr(contacts).startswith("<marrow.FootContacts 2 feet")
    leg = contacts.leg_length(0)
    # The detector's definition: in a contact the ankle or the toe is within 5% of the leg's
    # length of its lowest point over the clip (sampled here at 60 Hz, as it samples).
    times = np.linspace(0, contacts.duration, int(contacts.duration * 60) + 1, dtype=np.float32)
    model = marrow.local_to_model(skeleton, marrow.sample(asset, "Walk", times))
    ankle, toe = skeleton.find(left[0]), skeleton.find(left[1])
    low = (model[:, ankle, 1, 3] <= model[:, ankle, 1, 3].min() + 0.05 * leg) | \
          (model[:, toe, 1, 3] <= model[:, toe, 1, 3].min() + 0.05 * leg)
    planted = [k for k, t in enumerate(times) if contacts.in_contact(0, float(t))]
    assert 0 < len(planted) < len(times)
    assert all(low[k] for k in planted)
    # Plant the left foot at a time it is down on a ground a tenth of a leg higher: it rises by
    # that much (the pelvis comes up with it).
    t = float(times[planted[len(planted) // 2]])
    assert contacts.contact_weight(0, t) == 1.0
    local = marrow.sample(asset, "Walk", t)
    before = marrow.local_to_model(skeleton, local)
    offset, reached = marrow.plant_feet(skeleton, local, "mixamorig:Hips",
                                        [{"ankle": ankle, "contact": 1.0}], ground=0.1 * leg)
    after = marrow.local_to_model(skeleton, local)
    assert reached == [True] and offset == pytest.approx(0.1 * leg, rel=1e-3)
    assert after[ankle, 1, 3] - before[ankle, 1, 3] == pytest.approx(0.1 * leg, abs=1e-4 * leg)
    with pytest.raises(ValueError, match=r"legs\[0\]: unknown key 'foot'"):
        marrow.plant_feet(skeleton, local, "mixamorig:Hips", [{"foot": ankle}])
    with pytest.raises(TypeError, match="ground: expected a height or a \\(point, normal\\)"):
        marrow.plant_feet(skeleton, local, "mixamorig:Hips", [{"ankle": ankle}], ground=(1, 2))
    lock = marrow.FootLock()
    lock.update(1.0, (1.0, 2.0, 3.0))
    assert lock.locked and lock.position == pytest.approx((1.0, 2.0, 3.0))
    lock.update(0.5, (5.0, 5.0, 5.0), ground_motion=(0.5, 0.0, 0.0))
    assert lock.locked and lock.position == pytest.approx((1.5, 2.0, 3.0))
    lock.update(0.0, (5.0, 5.0, 5.0))
    assert not lock.locked


def test_a_scripts_ik_reaches_python_frames(soldier_path):
    asset = marrow.load(soldier_path)
    frames = list(marrow.ScriptRunner(asset, {"fps": 10, "duration": 0.5, "timeline": [
        {"t": 0, "play": "Walk"},
        {"t": 0, "ik": {"id": "look", "solver": "aim", "joint": "mixamorig:Head",
                        "target": [0.0, 0.3, 0.2], "forward": [0, 1, 0], "fade": 0.2}}]}))
    assert [f["ik"][0]["weight"] for f in frames[:3]] == pytest.approx([0.0, 0.5, 1.0])
    assert frames[2]["ik"][0]["reached"] and frames[2]["foot_contacts"] == []


def test_a_motion_matching_script_hands_out_where_the_character_walks():
    takes = [asset_path(f"bvh/cmu_iclone/{t}.bvh") for t in ("007_01", "002_01", "006_10")]
    if not all(os.path.exists(t) for t in takes):
        pytest.skip("the CMU takes are absent")
    script = {"fps": 10, "duration": 3,
              "motion_matching": {"files": takes[1:], "root": "CC_Base_Hip",
                                  "left_foot": "CC_Base_L_Foot", "right_foot": "CC_Base_R_Foot",
                                  "exclude_start": 0.05},
              "timeline": [{"t": 0, "stick": {"speed": 130, "direction": 0}}]}
    frames = list(marrow.ScriptRunner(marrow.load(takes[0]), script))
    assert len(frames) == 31
    walked = frames[-1]["motion_matching"]
    assert walked["position"][2] > 200 and abs(walked["facing"]) < 0.4  # along +Z, in cm
    assert any(f["motion_matching"]["searched"] for f in frames)
    plain = next(iter(marrow.ScriptRunner(marrow.load(takes[0]), {"duration": 0})))
    assert plain["motion_matching"] is None


def test_check_reports_what_the_command_line_reports(soldier_path):
    xbot = asset_path("gltf/Xbot.glb")
    if not os.path.exists(xbot):
        pytest.skip(f"{xbot} is absent")
    soldier, robot = marrow.load(soldier_path), marrow.load(xbot)
    [walk] = marrow.check(robot.skeleton, soldier, clip="Walk")
    assert walk["clip"] == "Walk" and walk["bound_tracks"] <= walk["total_tracks"]
    # Every joint name the clip animates either binds or is listed missing; and the same for the
    # skeleton's joints it leaves alone (the definitions, counted here from the names).
    animated = set(soldier.skeleton.names) & set(robot.skeleton.names)
    assert set(walk["missing_joints"]).isdisjoint(robot.skeleton.names)
    assert set(walk["unanimated_joints"]) <= set(robot.skeleton.names)
    assert walk["compatible"] == (walk["missing_joints"] == [])
    assert animated
    assert len(marrow.check(robot.skeleton, soldier)) == len(soldier.clips)
    if "MARROW_BIN" not in os.environ:
        pytest.skip("MARROW_BIN is not set (ctest sets it)")
    run = subprocess.run([os.environ["MARROW_BIN"], "check", xbot, soldier_path, "--clip", "Walk"],
                         capture_output=True, text=True)
    assert run.returncode == (0 if walk["compatible"] else 2), run.stderr
    assert f"{walk['bound_tracks']} of {walk['total_tracks']} tracks bind" in run.stdout
    with pytest.raises(marrow.Error, match="no clip 'Swim'"):
        marrow.check(robot.skeleton, soldier, clip="Swim")


def _public_callables():
    for name in dir(marrow):
        obj = getattr(marrow, name)
        if name.startswith("_") or name == "Error":
            continue
        if not inspect.isclass(obj):
            yield name, obj
            continue
        for member, value in vars(obj).items():
            if member.startswith("_") and member not in ("__init__", "__iter__", "__next__", "__len__"):
                continue
            yield f"{name}.{member}", value


def test_every_function_has_a_signature_and_a_docstring():
    # Classes Python receives but does not construct keep pybind11's refusing __init__.
    no_constructor = {"Asset", "Clip", "FootContacts", "Mesh", "Skeleton", "Skin"}
    checked = 0
    for name, value in _public_callables():
        if name.endswith(".__init__") and name.split(".")[0] in no_constructor:
            continue
        if isinstance(value, property):
            assert (value.__doc__ or "").strip(), f"{name} has no docstring"
            continue
        function = getattr(value, "__func__", value)
        if not callable(function):
            continue
        inspect.signature(function)  # raises when inspect cannot read it
        # pybind11's line "name(arg: type, ...) -> result" and, after it, what the binding says.
        text = [line for line in (function.__doc__ or "").splitlines() if line.strip()]
        assert len(text) >= 2, f"{name} has no docstring beyond its signature"
        checked += 1
    assert checked > 60
    sig = inspect.signature(marrow.two_bone_ik)
    assert list(sig.parameters)[:3] == ["skeleton", "local", "start"]
    assert sig.parameters["weight"].default == 1.0
    assert list(inspect.signature(marrow.Animator.update).parameters) == ["self", "dt"]
