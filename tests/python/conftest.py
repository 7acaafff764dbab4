# Shared fixtures: where the assets and references are (MARROW_SHARED_DIR, else ../shared
# beside the repository), skipping with a message when absent.
import os
import pathlib

import pytest

SHARED = pathlib.Path(
    os.environ.get("MARROW_SHARED_DIR", pathlib.Path(__file__).resolve().parents[2].parent / "shared"))


def asset_path(relative):
    path = SHARED / "assets" / relative
    if not path.exists():
        pytest.skip(f"{path} absent")
    return str(path)


@pytest.fixture
def soldier_path():
    return asset_path("gltf/Soldier.glb")
