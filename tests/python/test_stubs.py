"""The type stubs (python/marrow/__init__.pyi) against the built module, by mypy's stubtest
(Debian's mypy, which `make deps` installs): every name the module has is in the stubs and every
name the stubs promise exists, with pybind11's own differences allowed in
stubtest_allowlist.txt."""
import os
import pathlib
import subprocess
import sys


def test_stubtest_finds_the_stubs_and_the_module_agree():
    allowlist = pathlib.Path(__file__).with_name("stubtest_allowlist.txt")
    run = subprocess.run([sys.executable, "-m", "mypy.stubtest", "marrow", "--allowlist",
                          str(allowlist)], capture_output=True, text=True, env=os.environ.copy())
    assert "No module named mypy" not in run.stderr, "mypy is missing: apt-get install mypy"
    assert run.returncode == 0, run.stdout + run.stderr
