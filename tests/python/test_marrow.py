"""marrow's Python bindings, checked against values computed independently: three.js's poses
(../shared/reference), transforms worked out by hand, and NumPy arithmetic; bad input raises."""
import json
import math

import numpy as np
import pytest

import marrow
from conftest import SHARED, asset_path

IDENTITY = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 1], dtype=np.float32)


def trs(t=(0, 0, 0), r=(0, 0, 0, 1), s=(1, 1, 1)):
    return np.array([*t, *r, *s], dtype=np.float32)


def test_load_and_inspect_a_character(soldier_path):
    asset = marrow.load(soldier_path)
    skeleton = asset.skeleton
    assert len(skeleton) == len(skeleton.names) == skeleton.parents.shape[0]
    # Parents come before children; roots are -1.
    for j, p in enumerate(skeleton.parents):
        assert p == -1 or 0 <= p < j
    assert skeleton.find("mixamorig:Hips") is not None
    assert skeleton.find("nobody") is None
    assert [c.name for c in asset.clips] == ["Idle", "Run", "TPose", "Walk"]
    assert asset.find_clip("Walk") == 3
    assert asset.clips[3].duration > 0
    rest = skeleton.rest_pose
    assert rest.shape == (len(skeleton), 10) and rest.dtype == np.float32
    assert not rest.flags.writeable
    np.testing.assert_allclose(np.linalg.norm(rest[:, 3:7], axis=1), 1, atol=1e-5)
    skin = asset.skins[0]
    assert skin.inverse_bind_matrices.shape == (len(skin.joints), 4, 4)
    mesh = asset.meshes[0]
    assert mesh.positions.shape == (mesh.vertex_count, 3)
    assert mesh.triangles.shape[1] == 3 and mesh.triangles.max() < mesh.vertex_count


def reference_files():
    folder = SHARED / "reference" / "gltf"
    return sorted(folder.glob("*.json")) if folder.exists() else []


@pytest.mark.parametrize("reference", reference_files(), ids=lambda p: p.name)
def test_poses_match_three_js(reference):
    ref = json.loads(reference.read_text())
    asset = marrow.load(asset_path("gltf/" + ref["file"]))
    sampler = marrow.Sampler(asset, ref["clip_index"])
    joint_of = {int(s): j for j, s in enumerate(asset.source_index) if s >= 0}
    positions = np.array([[w[12:15] for w in s["world"]] for s in ref["samples"]])
    extent = np.ptp(positions.reshape(-1, 3), axis=0).max() or 1.0
    for sample in ref["samples"]:
        model = marrow.local_to_model(asset.skeleton, sampler.sample(sample["t"]))
        for node, world in zip(ref["nodes"], sample["world"]):
            expected = np.array(world, dtype=np.float64).reshape(4, 4).T  # column-major
            got = model[joint_of[node["index"]]]
            assert np.abs(got[:3, 3] - expected[:3, 3]).max() <= 1e-3 * extent
            scale = np.linalg.norm(expected[:3, :3], axis=0).max()
            assert np.abs(got[:3, :3] - expected[:3, :3]).max() <= 1e-3 * max(scale, 1e-6)


def test_local_to_model_matches_hand_computed_transforms(tmp_path):
    # Root translated by (1, 2, 3) and turned 90 degrees about Z; child offset (2, 0, 0) scaled
    # by 2: the child sits at (1, 2, 3) + Rz(90) (2, 0, 0) = (1, 4, 3).
    asset = marrow.load(asset_path("gltf/rigged_simple.gltf"))
    n = len(asset.skeleton)
    local = np.tile(IDENTITY, (n, 1))
    h = math.sqrt(0.5)
    parents = asset.skeleton.parents
    root = int(np.where(parents == -1)[0][0])
    child = int(np.where(parents == root)[0][0])
    local[root] = trs((1, 2, 3), (0, 0, h, h))
    local[child] = trs((2, 0, 0), (0, 0, 0, 1), (2, 2, 2))
    model = marrow.local_to_model(asset.skeleton, local)
    assert model.shape == (n, 4, 4) and model.dtype == np.float32
    np.testing.assert_allclose(model[root][:3, 3], [1, 2, 3], atol=1e-6)
    np.testing.assert_allclose(model[root][:3, :3], [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-6)
    np.testing.assert_allclose(model[child][:3, 3], [1, 4, 3], atol=1e-6)
    np.testing.assert_allclose(model[child][:3, :3], 2 * np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1]]),
                               atol=1e-6)
    # Written in place into the same memory when given `out`: no new array.
    again = marrow.local_to_model(asset.skeleton, local, out=model)
    assert again is model or np.shares_memory(again, model)


def test_blend_layers_of_every_kind(soldier_path):
    asset = marrow.load(soldier_path)
    sk = asset.skeleton
    n = len(sk)
    walk = marrow.sample(asset, "Walk", 0.3)
    run = marrow.sample(asset, "Run", 0.3)
    # Normal layers: weights 1 and 1 average translations (NumPy's own mean).
    both = marrow.blend(sk, [marrow.Layer(walk, 1.0), marrow.Layer(run, 1.0)])
    np.testing.assert_allclose(both[:, :3], (walk[:, :3] + run[:, :3]) / 2, atol=1e-5)
    # An override at weight 1, masked to the left arm: the arm from run, the rest from walk.
    arm = marrow.mask_from_subtree(sk, "mixamorig:LeftArm")
    assert arm.shape == (n,) and set(np.unique(arm)) == {0.0, 1.0}
    over = marrow.blend(sk, [marrow.Layer(walk)], overrides=[marrow.Layer(run, 1.0, arm)])
    inside = arm == 1
    np.testing.assert_allclose(over[inside], run[inside], atol=1e-5)
    np.testing.assert_allclose(over[~inside], walk[~inside], atol=1e-5)
    np.testing.assert_allclose(marrow.mask_inverse(arm), 1 - arm)
    # Additive: the delta of a pose against itself adds nothing.
    delta = marrow.make_additive(sk, walk, walk)
    np.testing.assert_allclose(delta[:, :3], 0, atol=1e-6)
    added = marrow.blend(sk, [marrow.Layer(run)], additives=[marrow.Layer(delta, 1.0)])
    np.testing.assert_allclose(added, run, atol=1e-5)
    # A translation delta of (0, 5, 0) on the hips at weight 0.5 moves them by 2.5.
    shifted = walk.copy()
    hips = sk.find("mixamorig:Hips")
    shifted[hips, 1] += 5
    moved = marrow.blend(sk, [marrow.Layer(walk)],
                         additives=[marrow.Layer(marrow.make_additive(sk, walk, shifted), 0.5)])
    np.testing.assert_allclose(moved[hips, :3], walk[hips, :3] + [0, 2.5, 0], atol=1e-4)
    # Forced joint in local space replaces the hips' transform.
    forced = marrow.force(sk, walk.copy(), [(hips, trs((1, 2, 3)), "local", 1.0)])
    np.testing.assert_allclose(forced[hips], trs((1, 2, 3)), atol=1e-6)


def test_skin_follows_the_pose(soldier_path):
    asset = marrow.load(soldier_path)
    rest_model = marrow.local_to_model(asset.skeleton, np.ascontiguousarray(asset.skeleton.rest_pose))
    mesh = asset.meshes[0]
    # Skinning at the rest pose of a glTF skin gives back the bind-pose vertices, up to the
    # mesh's placement; moving every root by (0, 10, 0) moves every vertex by the same.
    base = marrow.skin(asset, 0, rest_model)
    assert base.shape == (mesh.vertex_count, 3) and base.dtype == np.float32
    local = np.ascontiguousarray(asset.skeleton.rest_pose).copy()
    for j in np.where(asset.skeleton.parents == -1)[0]:
        local[j, 1] += 10
    lifted = marrow.skin(asset, 0, marrow.local_to_model(asset.skeleton, local))
    np.testing.assert_allclose(lifted - base, np.tile([0, 10, 0], (mesh.vertex_count, 1)), atol=1e-3)
    # Dual quaternions: the same translation moves every vertex by the same (0, 10, 0), and at
    # the rest pose, which is close to the bind pose, they agree with linear blending to 2 mm.
    dq_base = marrow.skin(asset, 0, rest_model, method="dq")
    dq = marrow.skin(asset, 0, marrow.local_to_model(asset.skeleton, local), method="dq")
    np.testing.assert_allclose(dq - dq_base, np.tile([0, 10, 0], (mesh.vertex_count, 1)), atol=1e-3)
    np.testing.assert_allclose(dq_base, base, atol=2e-3)


def test_automatic_weights_on_a_bar():
    # A bar along X from 0 to 2 over a two-bone chain (rigged_simple's bones lie along Y; build a
    # bar along its bones): vertices near one bone's middle get its weight.
    asset = marrow.load(asset_path("gltf/rigged_simple.gltf"))
    model = marrow.local_to_model(asset.skeleton, np.ascontiguousarray(asset.skeleton.rest_pose))
    positions = asset.meshes[0].positions.copy()
    triangles = asset.meshes[0].triangles.copy()
    bones, weights = marrow.automatic_weights(positions, triangles, asset, method="proximity")
    assert weights.shape == (positions.shape[0], len(bones))
    np.testing.assert_allclose(weights.sum(axis=1), 1, atol=1e-4)
    assert (weights >= 0).all()
    # The vertex nearest each bone's joint is weighted mostly to a bone that starts there or ends
    # there (the chain's two joints).
    for b, joint in enumerate(bones):
        head = model[joint][:3, 3]
        nearest = np.argmin(np.linalg.norm(positions - head, axis=1))
        assert weights[nearest].max() > 0.4


def test_convert_and_render_to_files(tmp_path, soldier_path):
    out = tmp_path / "soldier.marrow"
    notes = marrow.convert(soldier_path, str(out))
    assert isinstance(notes, list)
    again = marrow.load(str(out))
    original = marrow.load(soldier_path)
    assert len(again.skeleton) == len(original.skeleton)
    assert [c.name for c in again.clips] == [c.name for c in original.clips]
    sampler = marrow.Sampler(again, "Run")
    frames = np.stack([marrow.local_to_model(again.skeleton, sampler.sample(t / 10, wrap="loop"))
                       for t in range(5)])
    gif = tmp_path / "run.gif"
    marrow.render(original, str(gif), frames, size=(48, 48), fps=10)
    assert gif.read_bytes()[:6] == b"GIF89a"
    png = tmp_path / "one.png"
    marrow.render(original, str(png), frames[0], size=(32, 32), ground=False)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_errors_carry_marrows_message(tmp_path):
    with pytest.raises(marrow.Error, match="no such file"):
        marrow.load(str(tmp_path / "missing.glb"))
    bad = tmp_path / "bad.gltf"
    bad.write_text('{"asset": {"version": "2.0"}, "nodes": [{"children": [0]}]}')
    with pytest.raises(marrow.Error, match="bad.gltf"):
        marrow.load(str(bad))


def test_bad_input_raises_and_never_crashes(soldier_path):
    asset = marrow.load(soldier_path)
    sk = asset.skeleton
    n = len(sk)
    pose = marrow.sample(asset, 0, 0.0)
    with pytest.raises(marrow.Error, match="no clip 'Dance'"):
        marrow.sample(asset, "Dance", 0.0)
    with pytest.raises(marrow.Error, match="no clip 99"):
        marrow.Sampler(asset, 99)
    with pytest.raises(ValueError, match=r"expected shape \(%d, 10\)" % n):
        marrow.local_to_model(sk, np.zeros((n, 9), dtype=np.float32))
    with pytest.raises(TypeError, match="float32, got float64"):
        marrow.local_to_model(sk, np.zeros((n, 10), dtype=np.float64))
    with pytest.raises(TypeError, match="numpy float32 array"):
        marrow.local_to_model(sk, [[0] * 10] * n)
    with pytest.raises(ValueError, match="weight"):
        marrow.blend(sk, [marrow.Layer(pose, float("nan"))])
    with pytest.raises(ValueError, match="mask"):
        marrow.blend(sk, [marrow.Layer(pose, 1.0, np.full(n, np.nan, dtype=np.float32))])
    with pytest.raises(ValueError, match=r"mask: expected shape"):
        marrow.blend(sk, [marrow.Layer(pose, 1.0, np.ones(3, dtype=np.float32))])
    with pytest.raises(ValueError, match="wrap"):
        marrow.sample(asset, 0, 0.0, wrap="bounce")
    with pytest.raises(ValueError, match="finite"):
        marrow.sample(asset, 0, float("inf"))
    with pytest.raises(ValueError, match="model"):
        marrow.skin(asset, 0, np.zeros((n, 3, 3), dtype=np.float32))
    with pytest.raises(IndexError):
        marrow.skin(asset, 99, np.zeros((n, 4, 4), dtype=np.float32))
    with pytest.raises(ValueError, match="out of range"):
        marrow.force(sk, pose.copy(), [(n + 5, trs(), "local", 1.0)])
    with pytest.raises(ValueError, match="read-only"):
        marrow.sample(asset, 0, 0.0, out=sk.rest_pose)
    with pytest.raises(marrow.Error, match="unknown output format"):
        marrow.render(asset, "x.bmp", np.zeros((n, 4, 4), dtype=np.float32))


def test_type_stubs_name_everything_the_module_has():
    import pathlib
    stub = (pathlib.Path(marrow.__file__).parent / "__init__.pyi").read_text()
    public = [n for n in dir(marrow) if not n.startswith("_")]
    missing = [n for n in public if f"def {n}(" not in stub and f"class {n}" not in stub]
    assert missing == []
    assert (pathlib.Path(marrow.__file__).parent / "py.typed").exists()


def test_an_animator_with_one_player_gives_the_exact_sampled_pose(soldier_path):
    asset = marrow.load(soldier_path)
    clips = marrow.ClipSet(asset)
    animator = marrow.Animator(clips)
    animator.play("Walk")
    duration = clips.duration("Walk")
    t = 0.0
    for _ in range(50):
        animator.update(0.05)
        t += 0.05
    # One player at full weight: the pose is the clip's, sampled at the wrapped time.
    expected = marrow.sample(asset, "Walk", math.fmod(t, duration), wrap="loop")
    np.testing.assert_allclose(animator.evaluate(), expected, atol=2e-5)


def test_a_linear_cross_fade_is_half_way_at_half_its_duration(soldier_path):
    animator = marrow.Animator(marrow.ClipSet(marrow.load(soldier_path)))
    walk = animator.play("Walk")
    run = animator.play("Run")
    animator.cross_fade(walk, run, 0.5)
    animator.update(0.25)
    assert animator.info(walk)["effective_weight"] == pytest.approx(0.5, abs=1e-5)
    assert animator.info(run)["effective_weight"] == pytest.approx(0.5, abs=1e-5)
    animator.update(0.25)
    assert animator.info(run)["effective_weight"] == pytest.approx(1.0, abs=1e-5)
    # The faded-out player is stopped when its fade reaches 0.
    assert not animator.info(walk)["active"]


def test_events_fire_once_per_crossing_in_time_order(soldier_path):
    asset = marrow.load(soldier_path)
    # 0.45 s: no crossing falls on an update's boundary (Walk lasts 1 s), where float sums of
    # 0.1 could land on either side.
    clips = marrow.ClipSet(asset, events=[("Walk", 0.45, "step")])
    duration = clips.duration("Walk")
    animator = marrow.Animator(clips)
    animator.play("Walk")
    fired = []
    for _ in range(25):  # 2.5 s in steps of 0.1 s
        fired += animator.update(0.1)
    steps = [e for e in fired if e["type"] != "looped"]
    loops = [e for e in fired if e["type"] == "looped"]
    # By hand: the event at 0.45 s is crossed at 0.45 + k * duration for every such time <= 2.5 s.
    assert len(steps) == sum(1 for k in range(10) if 0.45 + k * duration <= 2.5)
    assert all(e["name"] == "step" and e["clip"] == "Walk" for e in steps)
    assert len(loops) == int(2.5 // duration)
    # One big update (a hitch) passes the same crossings exactly once each.
    animator = marrow.Animator(clips)
    animator.play("Walk")
    hitch = [e for e in animator.update(2.5) if e["type"] != "looped"]
    assert len(hitch) == len(steps)
    assert [e["time"] for e in hitch] == sorted(e["time"] for e in hitch)


def test_the_animator_refuses_what_it_cannot_play(soldier_path):
    clips = marrow.ClipSet(marrow.load(soldier_path))
    animator = marrow.Animator(clips)
    with pytest.raises(marrow.Error, match="Swim"):
        animator.play("Swim")
    with pytest.raises(ValueError, match="dt"):
        animator.update(float("nan"))
    with pytest.raises(ValueError, match="wrap"):
        animator.play("Walk", wrap="bounce")
    with pytest.raises(marrow.Error):
        marrow.ClipSet(marrow.load(soldier_path), events=[("Walk", 99.0, "late")])


def gltf_linear_weights(path, t):
    """The `weights` channel of a glTF's first animation at time t, read with NumPy from the file
    itself (accessors, buffer views) and interpolated as the spec says for LINEAR."""
    import pathlib
    doc = json.loads(pathlib.Path(path).read_text())
    data = (pathlib.Path(path).parent / doc["buffers"][0]["uri"]).read_bytes()
    animation = doc["animations"][0]
    channel = next(c for c in animation["channels"] if c["target"]["path"] == "weights")
    sampler = animation["samplers"][channel["sampler"]]
    assert sampler.get("interpolation", "LINEAR") == "LINEAR"

    def floats(index):
        accessor = doc["accessors"][index]
        view = doc["bufferViews"][accessor["bufferView"]]
        offset = view.get("byteOffset", 0) + accessor.get("byteOffset", 0)
        width = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}[accessor["type"]]
        return np.frombuffer(data, np.float32, accessor["count"] * width, offset)

    times = floats(sampler["input"])
    values = floats(sampler["output"]).reshape(len(times), -1)
    k = int(np.searchsorted(times, t, side="right")) - 1
    u = (t - times[k]) / (times[k + 1] - times[k])
    return values[k] * (1 - u) + values[k + 1] * u


def test_the_animator_drives_morph_weights_and_holds_one_by_hand():
    path = asset_path("gltf/morph/AnimatedMorphCube.gltf")
    clips = marrow.ClipSet(marrow.load(path))
    assert clips.morph_weight_count == 2
    animator = marrow.Animator(clips)
    animator.play(clips.clip_names[0])
    animator.update(1.3)
    np.testing.assert_allclose(animator.evaluate_morph_weights(), gltf_linear_weights(path, 1.3),
                               atol=1e-5)
    animator.set_morph_weight(1, 0.25)
    weights = animator.evaluate_morph_weights()
    assert weights[1] == 0.25
    assert weights[0] == pytest.approx(gltf_linear_weights(path, 1.3)[0], abs=1e-5)
    animator.release_morph_weight(1)
    np.testing.assert_allclose(animator.evaluate_morph_weights(), gltf_linear_weights(path, 1.3),
                               atol=1e-5)
    with pytest.raises(IndexError, match="the character has 2 morph weights"):
        animator.set_morph_weight(2, 1.0)
    with pytest.raises(ValueError, match="finite"):
        animator.set_morph_weight(0, float("nan"))


def test_motion_database_search_and_its_errors():
    takes = [marrow.load(asset_path(f"bvh/cmu_iclone/{t}.bvh")) for t in ("002_01", "007_01")]
    database = marrow.MotionDatabase(takes, "CC_Base_Hip", "CC_Base_L_Foot", "CC_Base_R_Foot",
                                     exclude_start=0.05)
    assert database.dims == 27 and database.searchable_count < database.frame_count
    frame = 30
    for mode in ("tree", "brute"):
        found = database.search(database.features(frame), mode=mode)
        assert found["frame"] == frame and found["distance"] == 0 and found["exact"]
    # A start frame (the one playing, as the controller gives it) leaves the answer as it is.
    query = np.asarray(database.features(frame)) + 0.3
    plain = database.search(query)
    for start in (frame, plain["frame"], 5, database.frame_count + 7):
        started = database.search(query, start=start)
        assert (started["frame"], started["distance"]) == (plain["frame"], plain["distance"])
    with pytest.raises(ValueError, match="mode"):
        database.search(database.features(frame), mode="kd")
    with pytest.raises(ValueError, match="27"):
        database.search([0.0, 1.0])
    with pytest.raises(IndexError):
        database.features(database.frame_count)
    with pytest.raises(marrow.Error, match="'LeftFoot'"):
        marrow.MotionDatabase(takes, "CC_Base_Hip", "LeftFoot", "CC_Base_R_Foot")
    with pytest.raises(ValueError):
        marrow.MotionDatabase([], "CC_Base_Hip", "CC_Base_L_Foot", "CC_Base_R_Foot")
    mirrored = marrow.MotionDatabase(takes, "CC_Base_Hip", "CC_Base_L_Foot", "CC_Base_R_Foot",
                                     exclude_start=0.05, mirror=True)
    assert mirrored.frame_count == 2 * database.frame_count
    assert mirrored.frame(database.frame_count)["clip"] == "002_01 (mirrored)"
    with pytest.raises(marrow.Error, match=r"steps\[0\]\.speed"):
        marrow.run_motion_course(database, {"steps": [{"duration": 1, "speed": -1, "direction": 0}]})


def test_motion_database_saved_and_loaded_searches_as_built(tmp_path):
    takes = [marrow.load(asset_path("bvh/cmu_iclone/002_01.bvh"))]
    database = marrow.MotionDatabase(takes, "CC_Base_Hip", "CC_Base_L_Foot", "CC_Base_R_Foot",
                                     exclude_start=0.05)
    path = tmp_path / "walk.marrow"
    database.save(path)
    loaded = marrow.MotionDatabase.load(path)
    assert (loaded.frame_count, loaded.searchable_count, loaded.dims) == (
        database.frame_count, database.searchable_count, database.dims)
    for frame in (10, 60, 120):  # the last is past the searchable frames: found elsewhere
        query = database.features(frame)
        np.testing.assert_array_equal(loaded.features(frame), query)
        assert loaded.search(query) == database.search(query)
    assert loaded.search(database.features(60))["frame"] == 60
    takes[0].save(tmp_path / "asset.marrow")
    with pytest.raises(marrow.Error, match="holds no motion-matching database"):
        marrow.MotionDatabase.load(tmp_path / "asset.marrow")
