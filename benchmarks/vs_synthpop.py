"""synthguard against R's synthpop, whole processes: the table of issue 35, re-measured.

Each task runs as its own process in both tools (start-up, imports, reading the CSV files and
the call), on the same inputs: Adult complete cases (30,162 x 15) and synthpop's own default
release of it (``synthpop_releases/`` of the shared data), and diamonds (53,940 x 10).

| task | synthpop (benchmarks/reference/synthpop_bench.R) | synthguard |
| --- | --- | --- |
| syn_adult | ``syn(d, seed = 1, m = 1)`` | ``synthguard synthesize conf.csv --seed 1`` |
| syn_diamonds | the same on diamonds | the same on diamonds |
| gen_logit | ``utility.gen(method = "logit", maxorder = 0, resamp.method = "perm", nperms = 50)`` | ``pmse(conf, syn, "logistic", null="permutation", n_permutations=50)`` |
| gen_cart | ``utility.gen(method = "cart", resamp.method = "perm", nperms = 50)`` | ``pmse(conf, syn, "cart", null="permutation", n_permutations=50)`` |
| tables | ``utility.tables(tables = "twoway")`` (105 tables) | ``utility_tables(conf, syn, orders=[2])`` |
| disclosure | ``disclosure(keys = age, sex, race, marital_status; target = income)`` | ``disclosure(conf, syn, keys=..., targets="income")`` |

synthpop's figures are read from ``benchmarks/reference/synthpop.json`` (the R and synthpop
versions, the machine, its load and the script that made them are stored there). With
``--run-r`` the R processes are run again in this run (R with synthpop in the private library
``.rlib``: ``bash benchmarks/reference/install_synthpop.sh``) and, with ``--save``, the file is
rewritten. Every line prints wall and CPU seconds of both tools, the ratios (synthpop /
synthguard) and the 1-minute load average before the task; CPU seconds (user + system of the
process and its children) depend much less on the load of this shared 2-core machine.

Goals (issue 35): syn_adult >= 12x in CPU seconds; gen_logit, gen_cart and tables >= 10x
whole process; disclosure >= 4x whole process.

Measured (issue 35, 2026-11-28, one run each, load 9-29 on the shared 2-core machine; wall
times at such loads say more about the other users than about the tools, CPU seconds less):

| task | synthpop wall / CPU s | synthguard wall / CPU s | ratio wall / CPU |
| --- | --- | --- | --- |
| syn_adult | 221 / 39.1 (load 9) | 66 / 4.37 (load 23) | - / 8.9x |
| syn_diamonds | 611 / 78.4 (load 11) | 68 / 4.18 (load 26) | - / 18.8x |
| gen_logit | 3477 / 290 (load 16-29) | 352 / 20.1 (load 26) | 9.9x / 14.4x |
| gen_cart | 1039 / 224 (load 22) | 236 / 11.7 (load 29) | 4.4x / 19.1x |
| tables | 49 / 10.6 (load 20; 266 / 13.0 at load 29) | 51 / 1.97 (load 29) | - / 5.4x |
| disclosure | 13 / 2.87 (load 19) | 43 / 1.84 (load 27) | - / 1.6x |

In the calls themselves (CPU s): pmse's logistic permutations 0.53 -> 0.20 a permutation
(fixed-Hessian refits, benchmarks/pmse_null.py), utility_tables 1.3 -> 0.22, disclosure 0.03; what is left of
the short tasks is start-up (importing pandas, scipy.stats and scikit-learn: about 1.5-2 CPU s).

Run: ``.venv/bin/python benchmarks/vs_synthpop.py [--tasks ...] [--repeat 3] [--run-r [--save]]``
(``--quick``: the short tasks only, for ``make bench``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("SYNTHGUARD_SHARED_DATA", ROOT.parents[1] / "shared" / "data"))
REFERENCE = ROOT / "benchmarks" / "reference" / "synthpop.json"
R_SCRIPT = ROOT / "benchmarks" / "reference" / "synthpop_bench.R"
SYNTHGUARD = Path(sys.executable).with_name("synthguard")
TASKS = ("syn_adult", "syn_diamonds", "gen_logit", "gen_cart", "tables", "disclosure")
QUICK = ("syn_adult", "tables", "disclosure")
GOALS = {"syn_adult": 12.0, "syn_diamonds": 10.0, "gen_logit": 10.0, "gen_cart": 10.0,
         "tables": 10.0, "disclosure": 4.0}

_READ = ("import pandas as pd\n"
         "rel = {rel!r}\n"
         "conf = pd.read_csv(rel + '/adult_complete_cases.csv')\n"
         "syn = pd.read_csv(rel + '/adult_syn_default_seed1.csv')\n")
PYTHON = {
    "gen_logit": "from synthguard.utility import pmse\n"
                 "r = pmse(conf, syn, 'logistic', null='permutation', n_permutations=50,"
                 " random_state=1)\nprint('pMSE', repr(r.pmse), 'S_pMSE', repr(r.S_pMSE))\n",
    "gen_cart": "from synthguard.utility import pmse\n"
                "r = pmse(conf, syn, 'cart', null='permutation', n_permutations=50,"
                " random_state=1)\nprint('pMSE', repr(r.pmse), 'S_pMSE', repr(r.S_pMSE))\n",
    "tables": "from synthguard.utility import utility_tables\n"
              "r = utility_tables(conf, syn, orders=[2])\nprint('tables', len(r.tables))\n",
    "disclosure": "from synthguard.risk import disclosure\n"
                  "r = disclosure(conf, syn, keys=['age', 'sex', 'race', 'marital_status'],"
                  " targets='income')\nprint('disclosure done')\n",
}


def run(cmd: list[str], env: dict[str, str] | None = None) -> dict[str, float]:
    """Wall and CPU seconds (user + system, the process and its children) and peak RSS of a
    whole process; raises if it fails."""
    load = os.getloadavg()[0]
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[:3]} failed ({p.returncode}):\n{p.stderr[-2000:]}")
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    out = {"wall_s": wall, "cpu_s": cpu, "load": load, "peak_mib": r1.ru_maxrss / 1024}
    for line in p.stdout.splitlines():
        if line.startswith("call_s"):
            _, w, c = line.split()
            out["call_wall_s"], out["call_cpu_s"] = float(w), float(c)
    return out


def synthguard_cmd(task: str, tmp: Path) -> list[str]:
    rel = str(SHARED / "synthpop_releases")
    if task.startswith("syn_"):
        src = (SHARED / "synthpop_releases" / "adult_complete_cases.csv" if task == "syn_adult"
               else SHARED / "diamonds" / "diamonds.csv")
        return [str(SYNTHGUARD), "synthesize", str(src), "--out", str(tmp / task), "--seed", "1",
                "--force"]
    return [sys.executable, "-c", _READ.format(rel=rel) + PYTHON[task]]


def r_cmd(task: str) -> list[str]:
    return ["Rscript", str(R_SCRIPT), task, str(SHARED)]


def r_env() -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("R_LIBS_USER", str(ROOT / ".rlib"))
    return env


def median_of(runs: list[dict[str, float]]) -> dict[str, float]:
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def r_versions() -> dict[str, str]:
    p = subprocess.run(
        ["Rscript", "-e", 'cat(R.version.string, "\\n"); cat(as.character('
         'packageVersion("synthpop")), "\\n")'], capture_output=True, text=True, env=r_env())
    lines = p.stdout.splitlines()
    return {"R": lines[0].strip() if lines else "?",
            "synthpop": lines[1].strip() if len(lines) > 1 else "?"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tasks", nargs="+", choices=TASKS, default=None)
    ap.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}")
    ap.add_argument("--repeat", type=int, default=1, help="medians of this many runs")
    ap.add_argument("--run-r", action="store_true", help="run synthpop too (needs R + .rlib)")
    ap.add_argument("--save", action="store_true", help="with --run-r: rewrite the reference")
    ap.add_argument("--no-synthguard", action="store_true", help="with --run-r: R only")
    args = ap.parse_args()
    tasks = args.tasks or (list(QUICK) if args.quick else list(TASKS))
    ref = json.loads(REFERENCE.read_text()) if REFERENCE.exists() else {"tasks": {}}
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; peer figures: "
          f"{'this run' if args.run_r else REFERENCE.relative_to(ROOT)} "
          f"({ref.get('R', '?')}, synthpop {ref.get('synthpop', '?')}, measured "
          f"{ref.get('date', '?')} at load {ref.get('load', '?')})")
    head = (f"{'task':<13}{'R wall':>8}{'R cpu':>8}{'sg wall':>9}{'sg cpu':>8}"
            f"{'x wall':>8}{'x cpu':>8}{'goal':>6}{'load':>6}")
    print(head)
    new_ref: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for task in tasks:
            rr: list[dict[str, float]] = []
            sg: list[dict[str, float]] = []
            for _ in range(args.repeat):  # interleaved, so both see the same load
                if args.run_r:
                    rr.append(run(r_cmd(task), r_env()))
                if not args.no_synthguard:
                    sg.append(run(synthguard_cmd(task, Path(tmp))))
            peer = median_of(rr) if rr else ref["tasks"].get(task)
            if rr:
                new_ref[task] = {k: round(v, 3) for k, v in peer.items()}  # type: ignore[union-attr]
            if not sg:
                print(f"{task:<13}{peer['wall_s']:>8.2f}{peer['cpu_s']:>8.2f}")
                continue
            me = median_of(sg)
            if peer is None:
                print(f"{task:<13}{'-':>8}{'-':>8}{me['wall_s']:>9.2f}{me['cpu_s']:>8.2f}"
                      f"{'':>16}{GOALS[task]:>6.0f}{me['load']:>6.1f}  (no synthpop figure: "
                      "--run-r)", flush=True)
                continue
            print(f"{task:<13}{peer['wall_s']:>8.2f}{peer['cpu_s']:>8.2f}{me['wall_s']:>9.2f}"
                  f"{me['cpu_s']:>8.2f}{peer['wall_s'] / me['wall_s']:>8.1f}"
                  f"{peer['cpu_s'] / me['cpu_s']:>8.1f}{GOALS[task]:>6.0f}{me['load']:>6.1f}",
                  flush=True)
    if args.run_r and args.save:
        # merge with the file as it is now (another run may have written tasks meanwhile)
        old = json.loads(REFERENCE.read_text())["tasks"] if REFERENCE.exists() else {}
        old.update(new_ref)
        loads = [v["load"] for v in new_ref.values()]
        out = {
            **r_versions(),
            "script": str(R_SCRIPT.relative_to(ROOT)),
            "install": "benchmarks/reference/install_synthpop.sh",
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, shared",
            "load": f"{min(loads):.1f}-{max(loads):.1f}" if loads else "?",
            "repeat": args.repeat,
            "note": "whole processes (Rscript start-up, loading synthpop, reading the CSV, the "
                    "call); wall_s/cpu_s/peak_mib are medians; call_* are R's own timing of "
                    "the call; load is the 1-minute load average before the task",
            "tasks": old,
        }
        REFERENCE.write_text(json.dumps(out, indent=1) + "\n")
        print(f"wrote {REFERENCE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
