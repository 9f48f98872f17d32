#!/usr/bin/env python3
"""Where a job's milliseconds go, stage by stage: the driver of bench/launch_budget.sh.

Submits NJOBS trivial batch jobs to a running local cluster one at a time (each after the one
before has ended) and times each stage from the clocks that see it, all on this machine's wall
clock:
  submit   sbatch called                    -> the controller logs "submitted" (after the commit)
  pass     submitted                        -> the controller logs "started on" (chosen, start saved)
  launch   started on                       -> the script's first line ($EPOCHREALTIME in bash): the
           launch order to the agent, the run's files, the shepherd, the job's cgroups and exec;
           in five parts, from the times the agent logs with "started as pid" (agent/shepherd.h,
           ShepherdTimes, microseconds):
    order    started on                     -> the launch order reached the agent (the first end is
                                               the controller's log stamp: whole milliseconds)
    agent    the order                      -> the agent spawned the shepherd (script, cgroup, run files)
    shepherd spawned                        -> the shepherd's main began (exec of muster-shepherd)
    spec     its main                       -> it began to start the script (spec, pid file)
    exec     began                          -> the script's first line (fork, cgroup join, execve,
                                               bash's own start)
"""
import json
import os
import re
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone

STAGES = ["submit", "pass", "launch", "order", "agent", "shepherd", "spec", "exec", "exit", "end", "total"]
LINE = re.compile(r"^(\S+Z) (\S+) \w+: JobId=(\d+): (.*)$")
START = re.compile(r"launch order at (\d\d:\d\d:\d\d\.\d{6}), then agent ([\d.]+) ms, "
                   r"shepherd start ([\d.]+) ms, shepherd ([\d.]+) ms to the script's fork")


def stamp(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc).timestamp()


class Follower:
    """Reads the lines appended to the daemons' logs, keeping per job the first time of each event."""

    def __init__(self, log_dir):
        self.log_dir = log_dir
        self.offsets = {}
        self.events = {}  # job id -> {event: time}

    def poll(self):
        for name in os.listdir(self.log_dir):
            if not name.endswith(".log"):
                continue
            path = os.path.join(self.log_dir, name)
            with open(path, "rb") as f:
                f.seek(self.offsets.get(path, 0))
                data = f.read()
            end = data.rfind(b"\n") + 1  # whole lines only
            self.offsets[path] = self.offsets.get(path, 0) + end
            for raw in data[:end].decode("utf-8", "replace").splitlines():
                m = LINE.match(raw)
                if not m:
                    continue
                when, who, job, what = stamp(m.group(1)), m.group(2), int(m.group(3)), m.group(4)
                ev = self.events.setdefault(job, {})
                if who == "musterctld" and what.startswith("submitted"):
                    ev.setdefault("submitted", when)
                elif who == "musterctld" and what.startswith("started on"):
                    ev.setdefault("started", when)
                elif who == "musterctld" and what.startswith("ended:"):
                    ev.setdefault("ended", when)
                elif who.startswith("musterd") and re.match(r"run \d+ ended", what):
                    ev.setdefault("agent_ended", when)
                elif who.startswith("musterd") and (t := START.search(what)):
                    # The order's time of day (UTC, microseconds) on the day of the line's stamp.
                    day = datetime.fromtimestamp(when, timezone.utc).strftime("%Y-%m-%d")
                    order = stamp(f"{day}T{t.group(1)}Z")
                    if order > when + 3600:
                        order -= 86400  # logged just after midnight
                    ev.setdefault("order", order)
                    ev.setdefault("spawn", order + float(t.group(2)) / 1000)
                    ev.setdefault("main", ev["spawn"] + float(t.group(3)) / 1000)
                    ev.setdefault("fork", ev["main"] + float(t.group(4)) / 1000)


def cpu_seconds(cluster):
    """CPU time of the controller and of the agents, in seconds: each with its reaped children, and
    the agents with their live children too (the shepherds' spawner, which reaps the shepherds
    and, through them, the jobs)."""
    tick = os.sysconf("SC_CLK_TCK")

    def used(pid):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0, None
        return sum(int(x) for x in fields[11:15]) / tick, fields[1]  # utime stime cutime cstime; ppid

    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            _, ppid = used(name)
            if ppid is not None:
                parents.setdefault(ppid, []).append(name)
    out = {"controller": 0.0, "agents": 0.0}
    for name in os.listdir(cluster):
        if not (name.startswith("musterctld") or name.startswith("musterd")) or not name.endswith(".pid"):
            continue
        pid = open(os.path.join(cluster, name)).read().split()[0]
        total = used(pid)[0]
        if name.startswith("musterd"):
            total += sum(used(child)[0] for child in parents.get(pid, []))
        out["controller" if name.startswith("musterctld") else "agents"] += total
    return out


def main():
    cluster, njobs, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    require_stages = os.environ.get("REQUIRE_STAGES", "1") != "0"
    work = os.path.join(cluster, "budget")
    os.makedirs(work, exist_ok=True)
    # bash, for $EPOCHREALTIME (no process of its own to read the clock); --wrap would be sh.
    script_path = os.path.join(work, "job.sh")
    with open(script_path, "w") as f:
        f.write("#!/bin/bash\necho $EPOCHREALTIME > \"$1\"\necho $EPOCHREALTIME >> \"$1\"\n")
    os.chmod(script_path, 0o755)
    follow = Follower(os.path.join(cluster, "log"))
    follow.poll()
    cpu0 = cpu_seconds(cluster)
    rows = []
    for i in range(njobs):
        marks = os.path.join(work, f"marks.{i}")
        t0 = time.time()
        res = subprocess.run(["sbatch", "--parsable", "-n1", "-o", "/dev/null", script_path, marks],
                             capture_output=True, text=True, cwd=work)
        if res.returncode != 0:
            sys.exit(f"sbatch failed: {res.stderr.strip()}")
        job = int(res.stdout.strip().split(";")[0])
        deadline = time.time() + 60
        while True:
            follow.poll()
            ev = follow.events.get(job, {})
            # (The agent logs the start's times before the run's end, in the same file.)
            if "ended" in ev and "agent_ended" in ev:
                break
            if time.time() > deadline:
                sys.exit(f"job {job} did not end within 60 s: {ev}")
            time.sleep(0.001)
        with open(marks) as f:
            first, last = (float(x) for x in f.read().split())
        os.unlink(marks)
        if "fork" not in ev and require_stages:
            sys.exit(f"job {job}: the agent's log has no start times ('launch order at ...'); "
                     "REQUIRE_STAGES=0 for a build older than them")
        ms = lambda a, b: round((b - a) * 1000, 3) if a is not None and b is not None else None
        ev = {k: ev.get(k) for k in ("submitted", "started", "order", "spawn", "main", "fork", "agent_ended", "ended")}
        rows.append({
            "job": job,
            "submit": ms(t0, ev["submitted"]),
            "pass": ms(ev["submitted"], ev["started"]),
            "launch": ms(ev["started"], first),
            "order": ms(ev["started"], ev["order"]),
            "agent": ms(ev["order"], ev["spawn"]),
            "shepherd": ms(ev["spawn"], ev["main"]),
            "spec": ms(ev["main"], ev["fork"]),
            "exec": ms(ev["fork"], first),
            "exit": ms(last, ev["agent_ended"]),
            "end": ms(ev["agent_ended"], ev["ended"]),
            "total": ms(t0, ev["ended"]),
        })
    cpu1 = cpu_seconds(cluster)
    cpu = {k: round((cpu1[k] - cpu0[k]) * 1000 / njobs, 3) for k in cpu0}
    print("job      " + " ".join(f"{s:>8}" for s in STAGES) + "   (ms)")
    for r in rows:
        print(f"{r['job']:<8} " + " ".join(f"{r[s]:8.2f}" if r[s] is not None else f"{'-':>8}" for s in STAGES))
    summary = {}
    for s in STAGES:
        v = sorted(r[s] for r in rows if r[s] is not None)
        if not v:
            summary[s] = {"median": None, "mean": None, "p90": None, "n": 0}
            continue
        summary[s] = {"median": statistics.median(v), "mean": round(statistics.mean(v), 3),
                      "p90": v[min(len(v) - 1, int(0.9 * len(v)))], "n": len(v)}
    for stat in ("median", "mean", "p90"):
        print(f"{stat:<8} " + " ".join(f"{summary[s][stat]:8.2f}" if summary[s]["n"] else f"{'-':>8}" for s in STAGES))
    print(f"CPU per job: controller {cpu['controller']:.2f} ms, agents with their spawners, shepherds and jobs {cpu['agents']:.2f} ms")
    with open(out, "w") as f:
        json.dump({"stages": summary, "cpu_ms_per_job": cpu, "jobs": rows}, f, indent=1)


if __name__ == "__main__":
    main()
