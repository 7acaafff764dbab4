#!/usr/bin/env python3
"""Converts every readable file of an asset folder to .glb, .gltf and .marrow and checks that
each conversion keeps what the source's materials and images were: `marrow info --format json`
of source and output compared member by member (numbers to 1e-6), each image's bytes compared
(glTF outputs read directly; the .marrow through a second conversion to .glb), and the Khronos
validator run over every glTF output. Prints one Markdown row per source (docs/formats.md keeps
the table) and exits 1 when any conversion loses something it was not expected to name.

    scripts/roundtrip_materials.py [--marrow build/bin/marrow] [--assets ../shared/assets]
"""

import argparse
import base64
import hashlib
import json
import os
import pathlib
import struct
import subprocess
import sys
import tempfile
import urllib.parse

READABLE = {".glb", ".gltf", ".x", ".dae", ".fbx", ".md5mesh", ".smd", ".bvh", ".obj"}
OUTPUTS = (".glb", ".gltf", ".marrow")


def run(args):
    return subprocess.run(args, capture_output=True, text=True)


def info(marrow, path):
    r = run([marrow, "info", str(path), "--format", "json", "--quiet"])
    if r.returncode != 0:
        return None, r.stderr.strip()
    return json.loads(r.stdout), ""


def gltf_document(path):
    """The JSON document and the binary chunk (GLB) of a glTF file."""
    data = path.read_bytes()
    if data[:4] != b"glTF":
        return json.loads(data), None
    offset, doc, binary = 12, None, None
    while offset + 8 <= len(data):
        length, kind = struct.unpack_from("<II", data, offset)
        chunk = data[offset + 8 : offset + 8 + length]
        if kind == 0x4E4F534A:
            doc = json.loads(chunk)
        elif kind == 0x004E4942:
            binary = chunk
        offset += 8 + length
    return doc, binary


def gltf_buffer(path, doc, binary, index):
    uri = doc["buffers"][index].get("uri")
    if uri is None:
        return binary
    if uri.startswith("data:"):
        return base64.b64decode(uri.split(",", 1)[1])
    return (path.parent / uri).read_bytes()


def gltf_image_bytes(path):
    """Each image's encoded bytes, in the document's order."""
    doc, binary = gltf_document(path)
    images = []
    for image in doc.get("images", []):
        if "bufferView" in image:
            view = doc["bufferViews"][image["bufferView"]]
            buffer = gltf_buffer(path, doc, binary, view["buffer"])
            start = view.get("byteOffset", 0)
            images.append(buffer[start : start + view["byteLength"]])
        elif image.get("uri", "").startswith("data:"):
            images.append(base64.b64decode(image["uri"].split(",", 1)[1]))
        else:  # a file beside the document; None where it is missing
            file = path.parent / urllib.parse.unquote(image["uri"])
            images.append(file.read_bytes() if file.is_file() else None)
    return images


def source_image_bytes(path, described):
    """The source's image bytes where they can be read outside marrow (None where embedded in a
    format other than glTF: their sizes are still compared)."""
    if path.suffix.lower() in (".glb", ".gltf"):
        return gltf_image_bytes(path)
    found = []
    for image in described:
        file = image.get("path")
        found.append(pathlib.Path(file).read_bytes() if file and os.path.isfile(file) else None)
    return found


def digest(data):
    return None if data is None else hashlib.sha256(data).hexdigest()[:12]


def same(a, b):
    if isinstance(a, float) or isinstance(b, float):
        return isinstance(a, (int, float)) and isinstance(b, (int, float)) and abs(a - b) <= 1e-6
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


def without_images(described, missing):
    """The materials and images a glTF writer should give for a source whose `missing` images
    (files that are not there) it must leave out with their textures."""
    keep = [i for i in range(len(described["images"])) if i not in missing]
    renumber = {old: new for new, old in enumerate(keep)}
    materials = json.loads(json.dumps(described["materials"]))
    for material in materials:
        for key, texture in material.items():
            if key.endswith("_texture") and texture is not None:
                material[key] = (None if texture["image"] in missing
                                 else dict(texture, image=renumber[texture["image"]]))
    return materials, [described["images"][i] for i in keep]


def compare(src_info, src_bytes, missing, out_info, out_bytes, notes):
    """What differs between the source's materials and images and an output's; `missing` are
    the source's image files that are not there, which the output may leave out if a note
    names each."""
    materials, src_images = src_info["materials"], src_info["images"]
    problems, named = [], []
    if missing and len(out_info["images"]) < len(src_images):
        for i in missing:
            if any(src_images[i]["name"] in note for note in notes):
                named.append(src_images[i]["name"])
            else:
                problems.append(f"image {i} left out without a note")
        materials, src_images = without_images(src_info, missing)
        src_bytes = [b for i, b in enumerate(src_bytes) if i not in missing]
    if not same(materials, out_info["materials"]):
        problems.append("materials differ")
    out_images = out_info["images"]
    if len(src_images) != len(out_images):
        return problems + [f"{len(src_images)} images became {len(out_images)}"], named
    for i, (a, b) in enumerate(zip(src_images, out_images)):
        if a["mime_type"] != b["mime_type"]:
            problems.append(f"image {i}: {a['mime_type']} became {b['mime_type']}")
        want = src_bytes[i] if i < len(src_bytes) else None
        got = out_bytes[i] if i < len(out_bytes) else None
        if want is not None and want != got:
            problems.append(f"image {i}: bytes differ")
        elif want is None and a["bytes"] is not None and got is not None and len(got) != a["bytes"]:
            problems.append(f"image {i}: {a['bytes']} bytes became {len(got)}")
    return problems, named


def convert(marrow, source, out):
    r = run([marrow, "convert", str(source), str(out)])
    notes = [line for line in r.stderr.splitlines() if line.strip()]
    return r.returncode == 0, notes


def validate(node_modules, script, files):
    if not files or not (node_modules / "gltf-validator").is_dir():
        return None
    env = dict(os.environ, NODE_PATH=str(node_modules))
    # Into a file: node cuts a long report short when it exits writing to a pipe.
    with tempfile.TemporaryFile("w+") as out:
        r = subprocess.run(["node", str(script)] + [str(f) for f in files], env=env, stdout=out,
                           stderr=subprocess.PIPE, text=True)
        out.seek(0)
        text = out.read()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return {"fatal": (text + r.stderr)[-300:]}


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--marrow", default=str(root / "build/bin/marrow"))
    parser.add_argument("--assets", default=str(root.parent / "shared/assets"))
    parser.add_argument("--npm", default=str(root / "build/npm/node_modules"))
    args = parser.parse_args()
    assets = pathlib.Path(args.assets)
    sources = sorted(p for p in assets.rglob("*") if p.suffix.lower() in READABLE)
    failed = 0
    rows, written = [], []
    with tempfile.TemporaryDirectory(prefix="marrow_roundtrip_") as tmp:
        for n, source in enumerate(sources):
            name = str(source.relative_to(assets))
            src_info, error = info(args.marrow, source)
            if src_info is None:
                rows.append((name, "refused by the reader: " + error.splitlines()[0][:80], "", ""))
                continue
            src_bytes = source_image_bytes(source, src_info["images"])
            missing = {i for i, image in enumerate(src_info["images"])
                       if not image["embedded"] and src_bytes[i] is None}
            results, notes, left_out = [], set(), set()
            for ext in OUTPUTS:
                out = pathlib.Path(tmp) / f"{n}{ext}"
                ok, said = convert(args.marrow, source, out)
                said = [s.split(": ", 3)[-1] for s in said if "image" in s or "material" in s
                        or "texture" in s]
                notes.update(said)
                if not ok:
                    results.append(f"{ext}: conversion failed")
                    continue
                out_info, error = info(args.marrow, out)
                if out_info is None:
                    results.append(f"{ext}: not read back ({error})")
                    continue
                if ext == ".marrow":
                    glb = pathlib.Path(tmp) / f"{n}.marrow.glb"
                    ok, _ = convert(args.marrow, out, glb)
                    out_bytes = gltf_image_bytes(glb) if ok else []
                else:
                    out_bytes = gltf_image_bytes(out)
                    written.append(out)
                problems, named = compare(src_info, src_bytes, missing, out_info, out_bytes, said)
                results += [f"{ext}: {p}" for p in problems]
                left_out.update(f"{ext} leaves out the missing image '{i}' (named)" for i in named)
            kept = (f"{len(src_info['materials'])} / {len(src_info['images'])}"
                    + (" (" + ", ".join(filter(None, map(digest, src_bytes))) + ")"
                       if any(src_bytes) else ""))
            failed += bool(results)
            verdict = "; ".join(results) or "kept in all three"
            if left_out and not results:
                verdict = "kept; " + "; ".join(sorted(left_out))
            rows.append((name, kept, verdict, "; ".join(sorted(notes))))
        report = validate(pathlib.Path(args.npm), root / "tests/io/export/validate_gltf.js", written)
    print("| source | materials / images (sha-256) | .glb, .gltf, .marrow read back | notes |")
    print("|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")
    if report is None:
        print("\nvalidator: not run (node or build/npm/node_modules/gltf-validator missing)")
    elif "fatal" in report:
        print("\nvalidator: failed to run: " + report["fatal"])
        failed += 1
    else:
        print(f"\nvalidator: {len(written)} glTF outputs, {report.get('errors')} errors, "
              f"{report.get('warnings')} warnings")
        failed += report.get("errors", 1) != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
