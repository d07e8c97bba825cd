#!/usr/bin/env python3
"""Port IC-ALFA's file-system tasks (PyPI `icalfa` 0.3.6, MIT) into eval tasks.

    python3 tests/eval/external/icalfa/port.py [WHEEL_DIR]

WHEEL_DIR holds the unpacked wheel (`icalfa/assets/...`); without it the
wheel is fetched with `pip download icalfa==0.3.6` into a temp dir.
Writes `fixtures/fsN.sh` and one `.nuon` task per kept task into `dev/` or
`test/` beside this script (both emptied first). Deterministic: the same
wheel gives the same files.

Which tasks are kept (decided by rules, never by reading a task's outcome
with a model):
- the task's query or gold command names its fixture's root (`/testbed`,
  `/system`, `/workspace`): a task about the fixture, not about the
  machine it runs on (users, network, kernel, clock);
- no other absolute path, no `~`, no `$FILES` (the container's env);
- its gold command, run by bash on two fresh copies of the fixture here,
  exits 0, prints the same output on both (paths made relative), and
  changes a file or prints something.
Each task approves what the policy asks about (`approve: true`), as the
benchmark runs every command it is given; what the policy blocks stays
blocked.
The split: the kept tasks in their order, shuffled with
`random.Random(SEED)`, the first DEV_SHARE to `dev`, the rest to `test`.
"""

import json
import os
import random
import re
import subprocess
import sys
import tempfile
from pathlib import Path

VERSION = "0.3.6"
SEED = 44
DEV_SHARE = 0.3
ROOTS = {1: "/testbed", 2: "/system", 3: "/workspace", 5: "/testbed"}
# Other top-level dirs a fixture script makes: moved under its root.
MOVED = {3: ["/backup"]}
HERE = Path(__file__).resolve().parent
# Top-level dirs of the machine (a path in one is outside the fixture);
# /bin and /dev stay (`/bin/echo`, `/dev/null`), as does a pattern such as
# `/subdir1/` in a grep.
SYSTEM_DIRS = {"etc", "var", "usr", "tmp", "home", "root", "opt", "mnt", "srv", "proc",
               "sys", "boot", "media", "run", "lib", "backup"}


def fetch() -> Path:
    out = Path(tempfile.mkdtemp(prefix="icalfa-"))
    subprocess.run(
        [sys.executable, "-m", "pip", "download", f"icalfa=={VERSION}", "--no-deps", "-d", str(out)],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    wheel = next(out.glob("icalfa-*.whl"))
    subprocess.run(["python3", "-m", "zipfile", "-e", str(wheel), str(out)], check=True)
    return out


def ends_component(text: str, at: int) -> bool:
    return at >= len(text) or not (text[at].isalnum() or text[at] in "_-")


def replace_path(text: str, old: str, new: str) -> str:
    out, rest = [], text
    while (at := rest.find(old)) >= 0:
        after = at + len(old)
        out.append(rest[:at] + (new if ends_component(rest, after) else old))
        rest = rest[after:]
    out.append(rest)
    return "".join(out)


def move(text: str, fs: int) -> str:
    for path in MOVED.get(fs, []):
        text = replace_path(text, path, ROOTS[fs] + path)
    return text


def tree(root: Path) -> dict:
    found = {}
    for dirpath, dirs, files in os.walk(root):
        for name in dirs + files:
            p = Path(dirpath) / name
            rel = str(p.relative_to(root))
            if p.is_symlink():
                found[rel] = "link " + os.readlink(p).replace(str(root), "")
            elif p.is_dir():
                found[rel] = "dir"
            else:
                found[rel] = p.read_bytes()
    return found


def gold_run(setup: str, command: str, root: str, base: Path):
    """Build a copy in `base/root`, run the gold there: (exit, output, changed)."""
    copy = base / "root"
    home = base / "home"
    copy.mkdir(parents=True)
    home.mkdir()
    env = dict(os.environ, HOME=str(home))
    subprocess.run(["bash", "-c", replace_path(setup, root, str(copy))], cwd=copy, env=env,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    before = tree(copy)
    try:
        run = subprocess.run(["bash", "-c", replace_path(command, root, str(copy))], cwd=copy,
                             env=env, capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return 124, "", False
    output = run.stdout.decode(errors="replace").replace(str(copy), "")
    return run.returncode, output, tree(copy) != before


def foreign_path(text: str, root: str) -> bool:
    """An absolute path outside `root`, `~`, or the container's $FILES."""
    if "~" in text or "$FILES" in text:
        return True
    for match in re.finditer(r"(?<![\w.~$-])/([A-Za-z_][\w.-]*)", text):
        first = match.group(1).rstrip(".")
        if "/" + first == root:
            continue
        if first in SYSTEM_DIRS or "." in first:
            return True
    return False


def nuon_string(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)


def main() -> int:
    wheel = Path(sys.argv[1]) if len(sys.argv) > 1 else fetch()
    assets = wheel / "icalfa" / "assets"
    fixtures = HERE / "fixtures"
    fixtures.mkdir(exist_ok=True)
    for split in ("dev", "test"):
        (HERE / split).mkdir(exist_ok=True)
        for old in (HERE / split).glob("*.nuon"):
            old.unlink()
    kept, dropped = [], {}
    for fs, root in ROOTS.items():
        setup = move((assets / "docker" / f"setup_nl2b_fs_{fs}.sh").read_text(), fs)
        (fixtures / f"fs{fs}.sh").write_text(setup)
        tasks = json.loads((assets / "datasets" / f"nl2bash_fs_{fs}.json").read_text())
        for index, task in enumerate(tasks):
            query, gold = move(task["query"], fs), move(task["gold"], fs)
            name = f"icalfa-fs{fs}-{index:03d}"
            why = None
            if root not in query and root not in gold:
                why = "not about the fixture"
            elif foreign_path(query, root) or foreign_path(gold, root):
                why = "a path outside the fixture"
            else:
                with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
                    first = gold_run(setup, gold, root, Path(a))
                    second = gold_run(setup, gold, root, Path(b))
                if first[0] != 0:
                    why = "the gold command fails here"
                elif first[1] != second[1] or first[2] != second[2]:
                    why = "the gold outcome is not the same twice"
                elif not first[2] and not first[1].strip():
                    why = "the gold command changes nothing and prints nothing"
            if why:
                dropped.setdefault(why, []).append(name)
                continue
            kept.append((name, fs, root, query, gold, task.get("difficulty")))
    order = list(range(len(kept)))
    random.Random(SEED).shuffle(order)
    dev_count = round(len(kept) * DEV_SHARE)
    for rank, at in enumerate(order):
        name, fs, root, query, gold, difficulty = kept[at]
        split = "dev" if rank < dev_count else "test"
        text = (
            "{\n"
            f"    name: {nuon_string(name)}\n"
            f"    request: {nuon_string(query)}\n"
            f"    tags: [icalfa fs{fs} {split} difficulty-{difficulty}]\n"
            "    kind: gold\n"
            "    approve: true\n"
            "    gold: {\n"
            f"        root: {nuon_string(root)}\n"
            f"        fixture: \"../fixtures/fs{fs}.sh\"\n"
            f"        command: {nuon_string(gold)}\n"
            "    }\n"
            "}\n"
        )
        (HERE / split / f"{name}.nuon").write_text(text)
    summary = {"kept": len(kept), "dev": dev_count, "test": len(kept) - dev_count,
               "dropped": {why: len(names) for why, names in dropped.items()}}
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
