"""Every ```python example of docs/python.md runs, in a folder where Soldier.glb (and the CMU takes,
as cmu_iclone/) are at hand, and checks what it shows with an assert (an example that only prints proves only that it ran)."""
import os
import pathlib
import re

import pytest

from conftest import asset_path

DOC = pathlib.Path(os.environ.get("MARROW_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2])) / "docs" / "python.md"
EXAMPLES = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)


def test_the_page_has_examples():
    assert len(EXAMPLES) >= 7
    for index, example in enumerate(EXAMPLES):
        assert "assert " in example, f"docs/python.md example {index + 1} checks nothing"


@pytest.mark.parametrize("index", range(len(EXAMPLES)))
def test_example_runs(index, tmp_path, monkeypatch):
    soldier = asset_path("gltf/Soldier.glb")
    (tmp_path / "Soldier.glb").symlink_to(soldier)
    if "cmu_iclone/" in EXAMPLES[index]:  # the motion-matching example's takes
        (tmp_path / "cmu_iclone").symlink_to(asset_path("bvh/cmu_iclone"))
    monkeypatch.chdir(tmp_path)
    exec(compile(EXAMPLES[index], f"docs/python.md example {index + 1}", "exec"), {})
