#!/usr/bin/env python3
"""Compile time of ctmc on large kernels of several shapes (docs/scaling.md).

Usage: scripts/scaling-times.py CTMC [OLD_CTMC]
Writes the shapes to a temporary directory, runs each through
`CTMC --target T --emit ir|asm` on both targets (best of two wall times,
timeout 120 s), and prints the result (ok or the CK code). With OLD_CTMC,
both binaries run interleaved, for before/after tables. Not a test: the
test suite never times anything (ir/tests/scaling.rs counts work).
"""
import os, re, subprocess, sys, tempfile, time


def lets(n):
    body = "".join(f" let v{i} = v{i-1} * 1.5 + x;\n" for i in range(1, n + 1))
    return f"kernel k(x: In<f32>, r: Out<f32>) {{\n let v0 = x;\n{body} r = v{n};\n}}\n"


def tree(n):
    out = [f" let t{i} = x * {i}.5;" for i in range(n)]
    names, k = [f"t{i}" for i in range(n)], 0
    while len(names) > 1:
        nxt = []
        for j in range(0, len(names) - 1, 2):
            out.append(f" let u{k} = {names[j]} + {names[j+1]};")
            nxt.append(f"u{k}")
            k += 1
        if len(names) % 2:
            nxt.append(names[-1])
        names = nxt
    return "kernel k(x: In<f32>, r: Out<f32>) {\n" + "\n".join(out) + f"\n r = {names[0]};\n}}\n"


def loops(d):
    return ("kernel k(x: In<f32>, r: Out<f32>) {\n let mut acc = 0.0;\n"
            + "".join(f"for i{i} in 0..2 {{\n" for i in range(d))
            + " acc = acc + x;\n" + "}\n" * d + " r = acc;\n}\n")


SHAPES = [("lets", lets, [1000, 10000, 20000]), ("tree", tree, [1000, 10000]),
          ("loops", loops, [32, 64, 128])]


def run(ctmc, target, emit, path, timeout=120):
    best, result = None, ""
    for _ in range(2):
        t0 = time.perf_counter()
        try:
            p = subprocess.run([ctmc, "--target", target, "--emit", emit, path, "-o", os.devnull],
                               capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return f">{timeout}", "timeout"
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
        m = re.search(r"error\[(CK\d+)\]", p.stderr)
        result = m.group(1) if m else ("ok" if p.returncode == 0 else f"exit {p.returncode}")
    return f"{best:.2f}", result


def main():
    bins = sys.argv[1:3]
    if not bins:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as d:
        for name, make, sizes in SHAPES:
            for n in sizes:
                path = os.path.join(d, f"{name}{n}.ck")
                with open(path, "w") as f:
                    f.write(make(n))
                for target in ["x1k", "r700"]:
                    for emit in ["ir", "asm"]:
                        cols = [f"{name} {n}", target, emit]
                        for b in reversed(bins):
                            t, r = run(b, target, emit, path)
                            cols += [f"{t} s", r]
                        print(" | ".join(cols), flush=True)


if __name__ == "__main__":
    main()
