#!/usr/bin/env python3
"""Per-call cost of the Python bindings against the same work in C++, for a batch of 100
characters: each character samples Soldier.glb's Walk with its own cursor and runs the
hierarchy, writing into arrays made once (the bindings' `out=`), as a game loop in Python would.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_overhead.py [build/bin/marrow_bench]

Times are CPU time of the process (time.process_time_ns, Google Benchmark's cpu_time), so a busy
machine inflates neither side. Prints ns per character-frame through Python, the C++ figure of the same work
(BM_SoldierWalk_SampleAndLocalToModel/local_to_model:1 run by marrow_bench in the same process
tree, so under the same load), and their difference: the bindings' overhead per character,
spread over its two calls.
"""
import json
import os
import subprocess
import sys
import time

import numpy as np

import marrow

CHARACTERS = 100
FRAMES = 60


def python_ns_per_character_frame(asset, repeats=7):
    skeleton = asset.skeleton
    n = len(skeleton)
    samplers = [marrow.Sampler(asset, "Walk") for _ in range(CHARACTERS)]
    local = np.zeros((CHARACTERS, n, 10), dtype=np.float32)
    model = [marrow.local_to_model(skeleton, local[0]) for _ in range(CHARACTERS)]
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time_ns()
        for frame in range(FRAMES):
            t = frame / 60.0
            for c in range(CHARACTERS):
                samplers[c].sample(t, "loop", local[c])
                marrow.local_to_model(skeleton, local[c], model[c])
        best = min(best, (time.process_time_ns() - start) / (FRAMES * CHARACTERS))
    return best


def python_ns_animator_frame(asset, repeats=7):
    # The controller's frame, as BM_ControlFrame/players:1/compiled:0 runs it in C++: each
    # character's Animator plays Walk (exact clips) at its own phase; update, evaluate into an
    # array made once, local_to_model into another.
    skeleton = asset.skeleton
    n = len(skeleton)
    clip_set = marrow.ClipSet(asset)
    animators = []
    for c in range(CHARACTERS):
        animator = marrow.Animator(clip_set)
        animator.play("Walk", start_offset=0.0173 * c)
        animators.append(animator)
    local = np.zeros((CHARACTERS, n, 10), dtype=np.float32)
    model = [marrow.local_to_model(skeleton, local[0]) for _ in range(CHARACTERS)]
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time_ns()
        for _frame in range(FRAMES):
            for c in range(CHARACTERS):
                animators[c].update(1 / 60)
                animators[c].evaluate(local[c])
                marrow.local_to_model(skeleton, local[c], model[c])
        best = min(best, (time.process_time_ns() - start) / (FRAMES * CHARACTERS))
    return best


def python_ns_empty_call(asset, repeats=7):
    # The floor: a bound call that does almost nothing (Clip.duration).
    clip = asset.clips[0]
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time_ns()
        for _ in range(20000):
            clip.duration
        best = min(best, (time.process_time_ns() - start) / 20000)
    return best


def cpp_ns_per_character_frame(bench, name="BM_SoldierWalk_SampleAndLocalToModel/local_to_model:1$",
                               per_iteration=1):
    out = subprocess.run(
        [bench, "--benchmark_filter=" + name,
         "--benchmark_format=json", "--benchmark_min_time=0.5", "--benchmark_repetitions=3",
         "--benchmark_report_aggregates_only=true"],
        check=True, capture_output=True, text=True).stdout
    runs = json.loads(out)["benchmarks"]
    median = [r for r in runs if r.get("aggregate_name") == "median"][0]
    scale = {"ns": 1, "us": 1e3, "ms": 1e6}[median["time_unit"]]
    return median["cpu_time"] * scale / per_iteration


def bandwidth_gib_s(bench):
    out = subprocess.run([bench, "--benchmark_filter=BM_MemcpyBandwidth/268435456",
                          "--benchmark_format=json", "--benchmark_min_time=0.5"],
                         check=True, capture_output=True, text=True).stdout
    run = json.loads(out)["benchmarks"][0]
    return run["bytes_per_second"] / 2**30


def main():
    shared = os.environ.get("MARROW_SHARED_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "shared"))
    asset = marrow.load(os.path.join(shared, "assets", "gltf", "Soldier.glb"))
    bench = sys.argv[1] if len(sys.argv) > 1 else os.path.join("build", "bin", "marrow_bench")
    py = python_ns_per_character_frame(asset)
    py_animator = python_ns_animator_frame(asset)
    empty = python_ns_empty_call(asset)
    print(f"joints {len(asset.skeleton)}, batch of {CHARACTERS} characters x {FRAMES} frames")
    print(f"python: {py:9.0f} ns per character-frame (2 calls: sample, local_to_model)")
    print(f"python: {empty:9.0f} ns per call that does nothing (Clip.duration)")
    if os.path.exists(bench):
        cpp = cpp_ns_per_character_frame(bench)
        print(f"c++:    {cpp:9.0f} ns per character-frame")
        print(f"overhead: {py - cpp:7.0f} ns per character-frame, {(py - cpp) / 2:.0f} ns per call, "
              f"python / c++ = {py / cpp:.2f}")
        # BM_ControlFrame's iteration is a frame of 100 characters.
        cpp_animator = cpp_ns_per_character_frame(bench, "BM_ControlFrame/players:1/compiled:0$",
                                                  CHARACTERS)
        print(f"animator: python {py_animator:.0f} ns per character-frame (3 calls: update, "
              f"evaluate, local_to_model), c++ {cpp_animator:.0f} ns; overhead "
              f"{py_animator - cpp_animator:.0f} ns, {(py_animator - cpp_animator) / 3:.0f} ns per "
              f"call, python / c++ = {py_animator / cpp_animator:.2f}")
        print(f"memcpy bandwidth (256 MiB, same run): {bandwidth_gib_s(bench):.1f} GiB/s")
    else:
        print(f"({bench} not found: build it for the C++ figure)")


if __name__ == "__main__":
    main()
