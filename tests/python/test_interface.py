"""The module in the shapes Python users expect: paths as os.PathLike, informative reprs,
Asset.info() as marrow info --format json gives it, Mesh arrays as read-only views, morph
weights faded by hand, and a clear ImportError without NumPy."""
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
