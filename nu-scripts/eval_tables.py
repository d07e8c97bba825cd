#!/usr/bin/env python3
"""The tables and the plot of nu-scripts/eval-models.sh.

    eval_tables.py OUT_DIR [PLOT.png]

Reads OUT_DIR/runs.txt (one run name per line) and OUT_DIR/NAME.json (the
reports of `nu-agent eval --json`); prints markdown tables on stdout; draws
PLOT.png with gnuplot (installed from Debian when missing and possible).
"""
import json
import os
import shutil
import statistics
import subprocess
import sys

out, plot = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else "")
names = [n.strip() for n in open(os.path.join(out, "runs.txt")) if n.strip()]
reports = {}
for name in names:
    try:
        reports[name] = json.load(open(os.path.join(out, f"{name}.json")))
    except (OSError, ValueError) as error:
        print(f"eval_tables: {name}: no report ({error})", file=sys.stderr)
names = [n for n in names if n in reports]
if not names:
    sys.exit("eval_tables: no reports")


def label(name):
    run = reports[name]["run"]
    known = {"qwen1.5b": "Qwen2.5-Coder-1.5B", "qwen0.5b": "Qwen2.5-Coder-0.5B", "smollm2": "SmolLM2-135M", "gemma3": "Gemma 3 270M"}
    model = next((m for key, m in known.items() if key in name), run["model"])
    if run["backend"] == "scripted":
        return "the tasks' transcripts", "scripted", run["observe"], "n/a"
    where = "llama-cpp-python server" if run["backend"] == "openai" else "local"
    return model, where, run["observe"], "on" if run["grammar"] and run["backend"] == "local" else ("n/a" if run["backend"] == "openai" else "off")


def tokens(result):
    return result["prompt_tokens"] + result["completion_tokens"]


first = reports[names[0]]["run"]
tasks = [r["task"] for r in reports[names[0]]["results"]]
print(f"{len(tasks)} tasks of `{first['tasks']}`, one run each, {first['date']}; "
      f"greedy, at most {os.environ.get('EVAL_MAX_STEPS', '6')} model turns per task.\n")
print("| model | backend | observations | grammar | success | turns | repairs | parse errors | approvals asked | blocked | median tokens per task | time |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
def median_tokens(t):
    # A server that sends no usage (llama-cpp-python's stream) reports 0.
    return f"{t['median_tokens']:,}" if t["prompt_tokens"] + t["completion_tokens"] else "– (not reported)"


def turns(t):
    # Reports before the per-step records called the model turns "steps".
    return t["turns"] if "turns" in t else t["steps"]


for name in names:
    t = reports[name]["totals"]
    model, where, observe, grammar = label(name)
    print(f"| {model} | {where} | {observe} | {grammar} | **{t['succeeded']}/{t['runs']}** | {turns(t)} | "
          f"{t['repairs']} | {t['parse_errors']} | {t['approvals']} | {t['blocked']} | {median_tokens(t)} | {t['seconds']:.0f} s |")

if any(reports[n]["run"]["backend"] == "scripted" for n in names):
    print("\nTokens are the model's own for the local runs; the scripted runs (the tasks' transcripts) estimate "
          "4 characters per token; llama-cpp-python's server does not report usage when streaming.")

# Compact against raw on the same model, backend and grammar.
pairs = [(n, n.replace("-compact", "-raw")) for n in names if "-compact" in n and n.replace("-compact", "-raw") in reports]
if pairs:
    print("\n| model | backend | grammar | median tokens per task, compact | raw | compact/raw | all tasks, compact | raw | compact/raw | success compact | raw |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for compact, raw in pairs:
        model, where, _, grammar = label(compact)
        c = statistics.median(tokens(r) for r in reports[compact]["results"])
        r = statistics.median(tokens(r) for r in reports[raw]["results"])
        tc, tr = reports[compact]["totals"], reports[raw]["totals"]
        sc = tc["prompt_tokens"] + tc["completion_tokens"]
        sr = tr["prompt_tokens"] + tr["completion_tokens"]
        if not (c and r and sc and sr):
            cells = ["–"] * 6
        else:
            cells = [f"{c:,.0f}", f"{r:,.0f}", f"{c / r:.2f}×", f"{sc:,}", f"{sr:,}", f"{sc / sr:.2f}×"]
        print(f"| {model} | {where} | {grammar} | " + " | ".join(cells)
              + f" | {tc['succeeded']}/{tc['runs']} | {tr['succeeded']}/{tr['runs']} |")

print("\n<details><summary>Success per task</summary>\n")
print("| task | kind | " + " | ".join(names) + " |")
print("|---|---|" + "---|" * len(names))
for task in tasks:
    cells = []
    kind = ""
    for name in names:
        result = next((r for r in reports[name]["results"] if r["task"] == task), None)
        if result is None:
            cells.append("–")
            continue
        kind = result["kind"]
        cells.append("✓" if result["success"] else "✗")
    print(f"| {task} | {kind} | " + " | ".join(cells) + " |")
print("\n</details>")

if not plot:
    sys.exit(0)
if not shutil.which("gnuplot"):
    if os.geteuid() == 0 and shutil.which("apt-get"):
        subprocess.run(["apt-get", "install", "-y", "-qq", "gnuplot-nox"], stdout=subprocess.DEVNULL, check=False)
    if not shutil.which("gnuplot"):
        print("eval_tables: no gnuplot, no plot", file=sys.stderr)
        sys.exit(0)

# One data row per task: tokens and success for each compact/raw pair.
data = os.path.join(out, "plot.dat")
with open(data, "w") as f:
    for i, task in enumerate(tasks):
        row = [str(i), task]
        for compact, raw in pairs:
            for name in (compact, raw):
                result = next((r for r in reports[name]["results"] if r["task"] == task), None)
                row += [str(tokens(result)) if result else "NaN", "1" if result and result["success"] else "0"]
        f.write(" ".join(row) + "\n")
series_tokens, series_success = [], []
for k, (compact, raw) in enumerate(pairs):
    model, where, _, grammar = label(compact)
    if grammar == "off":
        continue  # the plot shows the configurations as they ship
    title = {"scripted": "the transcripts", "local": model}.get(where, f"{model} (server)")
    base = 3 + 4 * k
    series_tokens.append(f'"{data}" using 1:{base} with linespoints lc {k + 1} pt 7 title "{title}, compact"')
    series_tokens.append(f'"{data}" using 1:{base + 2} with linespoints lc {k + 1} pt 6 dt 2 title "{title}, raw"')
    series_success.append(f'"{data}" using 1:($' + str(base + 1) + f'+{0.04 * k:.2f}) with points lc {k + 1} pt 7 title "{title}, compact"')
    series_success.append(f'"{data}" using 1:($' + str(base + 3) + f'-0.3+{0.04 * k:.2f}) with points lc {k + 1} pt 6 title "{title}, raw"')
os.makedirs(os.path.dirname(os.path.abspath(plot)), exist_ok=True)
script = f"""
set terminal pngcairo size 1400,900 font ',9'
set output '{os.path.abspath(plot)}'
set multiplot layout 2,1 title 'nu-agent eval: {len(tasks)} tasks, compact vs raw observations ({first['date']})'
set key outside right
set xrange [-1:{len(tasks)}]
set xtics rotate by 60 right ({', '.join(f'"{t}" {i}' for i, t in enumerate(tasks))})
set ylabel 'tokens (prompt + completion)'
set logscale y
plot {', '.join(series_tokens)}
unset logscale y
set ylabel 'success (raw drawn 0.3 lower)'
set yrange [-0.5:1.5]
set ytics ("failed" 0, "solved" 1)
plot {', '.join(series_success)}
unset multiplot
"""
subprocess.run(["gnuplot"], input=script, text=True, check=True)
print(f"eval_tables: plot in {plot}", file=sys.stderr)
# The tables go into docs/benchmarks.md: the image's path is relative to docs/.
docs = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs")
link = os.path.relpath(os.path.abspath(plot), docs)
print(f"\n![Tokens and success per task, compact vs raw observations]({link})")
