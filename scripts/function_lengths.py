#!/usr/bin/env python3
"""Lists the functions of C++ sources longer than a limit, from the line their signature starts
to their closing brace, and exits 1 when there is one (a function a reader cannot hold).

    scripts/function_lengths.py --max 120 --runtime src/CMakeLists.txt
    scripts/function_lengths.py --max 80 src/control/animator.cpp

--runtime reads the sources of the marrow_runtime library (and its SIMD kernel lists) from the
CMake file. The scanner strips comments and literals, then takes every brace-block that follows
a parameter list at namespace or class level as a function body; lambdas count inside the
function that holds them.
"""
import argparse
import pathlib
import re
import sys


def strip_comments_and_literals(text):
    """The text with comments and string/char literals blanked, newlines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
            continue
        raw = re.match(r'R"([^(\s]*)\(', text[i:i + 20])
        if raw:
            end = text.find(")" + raw.group(1) + '"', i)
            end = n if end < 0 else end + len(raw.group(1)) + 2
            out.append('""' + "\n" * text.count("\n", i, end))
            i = end
            continue
        c = text[i]
        if c == '"' or (c == "'" and not (i > 0 and text[i - 1].isalnum())):
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out)


SIGNATURE_END = re.compile(
    r"\)\s*(const)?\s*(noexcept)?\s*(override)?\s*(->\s*[\w:<>,\s*&]+)?$|\)\s*:\s*\w")
NOT_A_FUNCTION = re.compile(r"^\s*(namespace|class|struct|enum|union|extern)\b")


def functions(path):
    """(length in lines, first line, name) of each function body in the file."""
    text = strip_comments_and_literals(pathlib.Path(path).read_text())
    found, stack = [], []  # stack: (is_function, first_line, name)
    head_start, line = 0, 1
    for i, c in enumerate(text):
        if c == "\n":
            line += 1
        elif c == ";":
            head_start = i + 1
        elif c == "{":
            head = text[head_start:i]
            squeezed = " ".join(head.split())
            inside_function = any(f for f, _, _ in stack)
            is_function = (not inside_function and not NOT_A_FUNCTION.match(squeezed)
                           and bool(SIGNATURE_END.search(squeezed)))
            leading = len(head) - len(head.lstrip())
            first = line - head.count("\n") + head[:leading].count("\n")
            names = re.findall(r"([\w:~]+)\s*\(", head)
            stack.append((is_function, first, names[0] if names else "?"))
            head_start = i + 1
        elif c == "}":
            if stack:
                is_function, first, name = stack.pop()
                if is_function:
                    found.append((line - first + 1, first, name))
            head_start = i + 1
    return found


def runtime_sources(cmake_file):
    cmake = pathlib.Path(cmake_file)
    text = cmake.read_text()
    lists = re.findall(r"add_library\(marrow_runtime STATIC(.*?)\n\)", text, re.S)
    lists += re.findall(r"set\(MARROW_SIMD_\w+_SOURCES(.*?)\)", text, re.S)
    names = []
    for block in lists:
        for word in block.split():
            if word.endswith(".cpp"):
                names.append(cmake.parent / word)
    return sorted(set(names))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--max", type=int, default=120)
    parser.add_argument("--runtime", help="a CMakeLists.txt listing marrow_runtime's sources")
    parser.add_argument("files", nargs="*")
    args = parser.parse_args()
    files = [pathlib.Path(f) for f in args.files]
    if args.runtime:
        files += runtime_sources(args.runtime)
    if not files:
        parser.error("no sources given")
    long_ones = []
    for f in files:
        for length, first, name in functions(f):
            if length > args.max:
                long_ones.append((length, f"{f}:{first}", name))
    for length, where, name in sorted(long_ones, reverse=True):
        print(f"{where}: {name}: {length} lines (at most {args.max})")
    print(f"{len(files)} files, {len(long_ones)} functions over {args.max} lines")
    return 1 if long_ones else 0


if __name__ == "__main__":
    sys.exit(main())
