#!/usr/bin/env bash
# The documents name only files of the repository: every Markdown file
# (README.md, docs/*.md, scenarios/**/README*, python/**/*.md and any other
# tracked *.md) is read for
#   - relative Markdown links [text](path) and ![alt](path): the path, taken
#     from the file's directory, exists (web links and #anchors are skipped);
#   - paths in backticks or in fenced code blocks that start with docs/,
#     scripts/, scenarios/, tests/, src/, include/, python/ or bench/: the path,
#     taken from the repository's root, exists (a glob or {a,b} alternatives:
#     some file matches; a <placeholder> matches any name; a trailing ":LINE"
#     or punctuation is dropped). What a command writes is not checked: a
#     study's output directory (scenarios/studies/NAME/... beside NAME.yaml)
#     and the scenarios inside one (scenarios/0003.yaml, scenarios/<id>.yaml);
#   - the names of files that are not in the repository: ../shared, DESIGN.md,
#     MODELS.md.
# Usage: docs_links_test.sh SOURCE_DIR
set -euo pipefail
src=$(realpath "$1")
exec /usr/bin/python3 - "$src" <<'PY'
import glob, itertools, os, re, subprocess, sys

root = sys.argv[1]
try:
    tracked = subprocess.run(["git", "-C", root, "ls-files"], check=True, capture_output=True,
                             text=True).stdout.split("\n")
except (OSError, subprocess.CalledProcessError):  # not a git checkout: walk it
    tracked = []
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith((".", "build"))]
        tracked += [os.path.relpath(os.path.join(d, f), root) for f in files]
docs = sorted(p for p in tracked if p and (p.endswith(".md") or
              (p.startswith("scenarios/") and os.path.basename(p).startswith("README"))))
if "README.md" not in docs or not any(p.startswith("docs/") for p in docs):
    sys.exit(f"FAIL: no Markdown files found under {root}")

PREFIXES = ("docs/", "scripts/", "scenarios/", "tests/", "src/", "include/", "python/", "bench/")
FORBIDDEN = ("../shared", "DESIGN.md", "MODELS.md")
link_re = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
tick_re = re.compile(r"`([^`]+)`")
failures = []


def expand(path):  # {a,b} alternatives, possibly several
    m = re.search(r"\{([^{}]*)\}", path)
    if not m:
        return [path]
    return list(itertools.chain.from_iterable(
        expand(path[:m.start()] + alt + path[m.end():]) for alt in m.group(1).split(",")))


def generated(path):  # written by sipsim sweep (docs/studies.md), not shipped
    m = re.match(r"scenarios/studies/([^/]+)(/|$)", path)
    if m and os.path.exists(os.path.join(root, "scenarios/studies", m.group(1) + ".yaml")):
        return True
    return re.fullmatch(r"scenarios/(\d{4}|<id>)\.yaml", path) is not None


def exists(path):
    if generated(path):
        return True
    path = re.sub(r"<[^<>/]*>", "*", path)
    for p in expand(path):
        full = os.path.join(root, p)
        if any(c in p for c in "*?["):
            if not glob.glob(full, recursive=True):
                return False
        elif not os.path.exists(full):
            return False
    return True


for doc in docs:
    text = open(os.path.join(root, doc), encoding="utf-8").read()
    fenced = False
    for n, line in enumerate(text.split("\n"), 1):
        where = f"{doc}:{n}"
        for word in FORBIDDEN:
            if word in line:
                failures.append(f"{where}: mentions {word}, which is not in the repository")
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        for target in ([] if fenced else link_re.findall(line)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue  # a web link, mailto:, or an anchor in this file
            path = target.split("#", 1)[0]
            full = os.path.normpath(os.path.join(root, os.path.dirname(doc), path))
            if not full.startswith(root + os.sep) and full != root:
                failures.append(f"{where}: links to {target}, outside the repository")
            elif not os.path.exists(full):
                failures.append(f"{where}: links to {target}, which does not exist")
        spans = [line] if fenced else tick_re.findall(line)
        for span in spans:
            for token in re.split(r"[\s=\"'(]+", span):
                token = re.sub(r"(:\d+(-\d+)?)?[.,;:)]*$", "", token)
                if not token.startswith(PREFIXES):
                    continue
                if not exists(token):
                    failures.append(f"{where}: names {token}, which does not exist")

for f in failures:
    print("FAIL " + f)
if failures:
    print(f"{len(failures)} failed")
    sys.exit(1)
print(f"{len(docs)} Markdown files name only files of the repository")
PY
