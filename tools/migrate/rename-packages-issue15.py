#!/usr/bin/env python3
"""The module split's package rename (issue 15), as a script: run it from the checkout after merging a branch
that was written against the old names (dev.javaep.harness.ort, .cli, .bench, .dist, .conformance, .models,
.vulkan, .jcuda, harness.FileDescriptors), then build. It rewrites references and fixes each file's package line
from its folder; it is idempotent and leaves ep-factory and ep-cuda-importer alone. Delete it once the branches of
that round are merged."""
import os, re, subprocess, sys

root = subprocess.check_output(["git", "rev-parse", "--show-toplevel"], text=True).strip()
os.chdir(root)

vulkan_main = sorted(f[:-5] for f in os.listdir("examples/vulkan-frames/src/main/java/dev/javaep/examples/vulkan") if f.endswith(".java") and f != "package-info.java")
conformance_main = sorted(f[:-5] for f in os.listdir("test-harness/conformance/src/main/java/dev/javaep/conformance") if f.endswith(".java"))

RULES = [
    (r"\bdev\.javaep\.harness\.ort\b", "dev.javaep.host"),
    (r"\bdev\.javaep\.harness\.FileDescriptors\b", "dev.javaep.host.FileDescriptors"),
    (r"\bdev\.javaep\.harness\.conformance\.(" + "|".join(conformance_main) + r")\b", r"dev.javaep.conformance.\1"),
    (r"\bdev\.javaep\.harness\.models\b", "dev.javaep.conformance.models"),
    (r"\bdev\.javaep\.harness\.cli\b", "dev.javaep.cli"),
    (r"\bdev\.javaep\.harness\.bench\.InteropBenchmark\b", "dev.javaep.examples.vulkan.InteropBenchmark"),
    (r"\bdev\.javaep\.harness\.bench\b", "dev.javaep.cli.bench"),
    (r"\bdev\.javaep\.harness\.dist\b", "dev.javaep.cli.dist"),
    (r"\bdev\.javaep\.harness\.vulkan\.(" + "|".join(vulkan_main) + r")\b", r"dev.javaep.examples.vulkan.\1"),
    (r"\bdev\.javaep\.harness\.jcuda\b", "dev.javaep.examples.jcuda"),
]

def package_of(path):
    m = re.search(r"src/(?:main|test)/java/(.*)/[^/]+\.java$", path)
    return m.group(1).replace("/", ".") if m else None

# ep-factory and ep-cuda-importer keep their packages and their files' contents
files = [f for f in subprocess.check_output(["git", "ls-files", "*.java"], text=True).split()
         if not f.startswith(("ep-factory/", "ep-cuda-importer/"))]

def sort_import_runs(text):
    """Sorts each run of adjacent non-static imports (a renamed import may now sort elsewhere)."""
    lines = text.split("\n")
    out, run = [], []
    for line in lines + [None]:
        if line is not None and line.startswith("import ") and not line.startswith("import static "):
            run.append(line)
            continue
        out.extend(sorted(run, key=lambda l: l[len("import "):].rstrip(";")))
        run = []
        if line is not None:
            out.append(line)
    return "\n".join(out)
changed = 0
for path in files:
    text = open(path, encoding="utf-8").read()
    new = text
    for pattern, repl in RULES:
        new = re.sub(pattern, repl, new)
    pkg = package_of(path)
    if pkg:
        new = re.sub(r"(?m)^package [\w.]+;", "package " + pkg + ";", new, count=1)
        # imports of the file's own package are redundant (javac accepts them; they read as a leftover)
        new = re.sub(r"(?m)^import " + re.escape(pkg) + r"\.[A-Z]\w*;\n", "", new)
    if new != text:
        new = sort_import_runs(new)
        open(path, "w", encoding="utf-8").write(new)
        changed += 1
print("rewrote", changed, "files")
