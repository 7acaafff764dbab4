"""marrow: skeletal animation from the files artists export.

Load any file marrow reads, inspect its skeleton, clips, skins and meshes, sample and blend
clips into NumPy arrays, run the hierarchy, skin meshes, bind meshes to skeletons
automatically, convert and render. Local poses are (joints, 10) float32 arrays (translation
xyz, rotation xyzw, scale xyz); model poses are (joints, 4, 4) float32 matrices indexed
[joint, row, column]. Failures raise marrow.Error with marrow's message. See docs/python.md.
"""

try:
    import numpy as _numpy  # noqa: F401  (every array marrow hands out is a NumPy array)
except ImportError as missing:
    raise ImportError(
        "marrow needs NumPy: install it (Debian: apt-get install python3-numpy; "
        "pip: pip install numpy)"
    ) from missing

from ._marrow import *  # noqa: F401,F403,E402
from ._marrow import __version__  # noqa: F401,E402
