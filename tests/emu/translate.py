#!/usr/bin/env python3
"""Translates a CUDA source for the CPU emulator (tests/emu/cuda_emu.hpp).

    translate.py IN.cu OUT.cpp

Every kernel launch `kernel<<<cfg>>>(args)` becomes
    ::scanmd_emu::run_grid(::scanmd_emu::config(cfg), "kernel", [&] { kernel(args); })
and a `#line` directive keeps compiler errors pointing at IN.cu. Nothing else changes: the
emulator's header supplies __global__, threadIdx, the warp intrinsics and the atomics.
"""
import re
import sys

# The kernel: a (qualified) name with optional template arguments, then <<<.
LAUNCH = re.compile(r"((?:::)?[A-Za-z_][\w:]*(?:<[^<>;{}]*>)?)\s*<<<")


def matching(text, start, open_ch, close_ch):
    """Index just past the close_ch matching the open_ch at text[start]."""
    depth = 0
    for k in range(start, len(text)):
        c = text[k]
        if c == open_ch:
            depth += 1
        elif c == close_ch:
            depth -= 1
            if depth == 0:
                return k + 1
    raise SystemExit(f"translate.py: unbalanced {open_ch}{close_ch} at offset {start}")


def translate(text, name):
    out = []
    pos = 0
    while True:
        m = LAUNCH.search(text, pos)
        if not m:
            break
        cfg_end = text.find(">>>", m.end())
        if cfg_end < 0:
            raise SystemExit(f"{name}: '<<<' without '>>>'")
        cfg = text[m.end():cfg_end]
        k = cfg_end + 3
        while text[k].isspace():
            k += 1
        if text[k] != "(":
            raise SystemExit(f"{name}: launch of {m.group(1)} without arguments in parentheses")
        args_end = matching(text, k, "(", ")")
        args = text[k + 1:args_end - 1]
        kernel = m.group(1)
        out.append(text[pos:m.start()])
        # Keep the line count: the replacement spans as many newlines as the original.
        newlines = text.count("\n", m.start(), args_end)
        call = (f'::scanmd_emu::run_grid(::scanmd_emu::config({cfg}), "{kernel}", '
                f"[&] {{ {kernel}({args}); }})")
        call = call.replace("\n", " ") + "\n" * newlines
        out.append(call)
        pos = args_end
    out.append(text[pos:])
    return "".join(out)


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: translate.py IN.cu OUT.cpp")
    src, dst = sys.argv[1], sys.argv[2]
    with open(src, encoding="utf-8") as f:
        text = f.read()
    body = translate(text, src)
    with open(dst, "w", encoding="utf-8") as f:
        f.write(f'#line 1 "{src}"\n')
        f.write(body)


if __name__ == "__main__":
    main()
