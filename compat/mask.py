#!/usr/bin/env python3
"""Masks what legitimately differs between two runs of compat/run.sh: job ids, times, dates, pids,
ports, host names and the run's directories. Usage: mask.py RAWDIR OUTDIR CASES_FILE

Job ids (50000-59999 on both clusters) become <job1>, <job2>, ... in the order of their first
appearance in each file, so that the same sequence of submissions reads the same whatever the
absolute ids, and an id one cluster spent elsewhere (a job the other refused) shifts nothing."""
import json
import os
import re
import sys

raw, out, cases = sys.argv[1], sys.argv[2], sys.argv[3]
names = re.findall(r"^c (\S+)", open(cases).read(), re.M)
var = json.load(open(os.path.join(raw, ".vars.json")))

literal = []  # (text, replacement), longest first
for key, repl in (("work", "<work>"), ("cluster_dir", "<cluster>"), ("peer", "<peer>"), ("build", "<build>")):
    if var.get(key):
        literal.append((var[key], repl))
literal.sort(key=lambda p: -len(p[0]))

host_words = {h for h in (var.get("host"), var.get("host_short"), "vm") if h}
host_re = re.compile(r"\b(" + "|".join(map(re.escape, sorted(host_words, key=len, reverse=True))) + r")\b")

rules = [
    # dates and times of day
    (re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\b"), "<time>"),
    (re.compile(r"\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ \d]\d \d\d:\d\d:\d\d \d{4}\b"), "<date>"),
    # elapsed times under a minute (squeue TIME, sacct Elapsed, RunTime=)
    (re.compile(r"(?<![\d:])0:\d\d(?![\d:])"), "0:SS"),
    (re.compile(r"\b00:00:\d\d\b"), "00:00:SS"),
    # pids, ports and other per-run numbers in environment dumps and scontrol
    (re.compile(r"\b(SLURM_TASK_PID|SLURM_SRUN_COMM_PORT|SLURM_STEP_LAUNCHER_PORT)=\d+"), r"\1=<n>"),
    (re.compile(r"\bSLURM_WORKING_CLUSTER=\S+"), "SLURM_WORKING_CLUSTER=<c>"),
    (re.compile(r"\bAllocNode:Sid=(\S+?):\d+"), r"AllocNode:Sid=\1:<sid>"),
    (re.compile(r"\b(LastBusyTime|BootTime|SlurmdStartTime|SubmitTime|EligibleTime|AccrueTime|StartTime|EndTime|Deadline|SuspendTime|LastSchedEval|PreemptEligibleTime|PreemptTime|ResizeTime)=\S+"), r"\1=<t>"),
    (re.compile(r"\bPriority=\d+"), "Priority=<p>"),
    (re.compile(r"\bCPULoad=\S+"), "CPULoad=<l>"),
    (re.compile(r"\bFreeMem=\S+"), "FreeMem=<m>"),
]
id_re = re.compile(r"(?<![\d.])5\d{4}(?!\d)")

ids = {}


def job(m):
    v = m.group(0)
    if v not in ids:
        ids[v] = f"<job{len(ids) + 1}>"
    return ids[v]


os.makedirs(out, exist_ok=True)
for name in names:
    path = os.path.join(raw, name + ".txt")
    text = open(path, errors="replace").read() if os.path.exists(path) else "(not run)\n"
    for lit, repl in literal:
        text = text.replace(lit, repl)
    text = host_re.sub("<host>", text)
    for rx, repl in rules:
        text = rx.sub(repl, text)
    ids.clear()
    text = id_re.sub(job, text)
    with open(os.path.join(out, name + ".txt"), "w") as f:
        f.write(text)
