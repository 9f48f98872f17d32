#!/usr/bin/env python3
"""A slurmrestd request for the compatibility check, printed so that two clusters' answers diff:
"[http N]", then the JSON body with sorted keys and the values that differ legitimately masked
(times, load, host names, versions), or its key paths (--keys), or chosen fields of each record of
the answer's list (--fields). Non-JSON bodies are printed as they are.

    rest.py METHOD PATH [--body JSON] [--noauth] [--keys] [--fields a,b,...]

$REST is the server ("http://127.0.0.1:16880"), $RTOK the JWT (scontrol token), sent as root's."""
import argparse
import json
import os
import sys
import urllib.error
import urllib.request

MASKED = {
    "accrue_time", "boot_time", "eligible_time", "end_time", "last_busy", "last_sched_evaluation",
    "preempt_time", "req_time", "req_time_start", "job_states_ts", "slurmd_start_time", "start_time",
    "submit_time", "suspend_time", "reason_changed_at", "cpu_load", "free_memory", "hostname",
    "operating_system", "slurmd_version", "priority", "address", "port", "server_thread_count",
    "elapsed", "eligible", "submission", "start", "end", "bf_when_last_cycle", "gettimeofday_latency",
}


def mask(v, key=""):
    if isinstance(v, dict):
        return {k: mask(x, k) for k, x in v.items()}
    if isinstance(v, list):
        return [mask(x, key) for x in v]
    if key in MASKED and v not in (None, 0, ""):
        return "<v>"
    return v


def paths(v, path, out):
    if isinstance(v, dict):
        for k, x in v.items():
            p = f"{path}.{k}" if path else k
            out.add(p)
            paths(x, p, out)
    elif isinstance(v, list):
        for x in v:
            paths(x, path + "[]", out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("method")
    ap.add_argument("path")
    ap.add_argument("--body")
    ap.add_argument("--noauth", action="store_true")
    ap.add_argument("--keys", action="store_true")
    ap.add_argument("--fields")
    a = ap.parse_args()
    headers = {} if a.noauth else {"X-SLURM-USER-NAME": "root", "X-SLURM-USER-TOKEN": os.environ.get("RTOK", "")}
    data = None
    if a.body is not None:
        data = a.body.encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(os.environ["REST"] + a.path, data=data, method=a.method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            code, body = r.status, r.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        code, body = e.code, e.read().decode(errors="replace")
    print(f"[http {code}]")
    try:
        doc = json.loads(body)
    except ValueError:
        print(body)
        return
    if a.keys:
        out = set()
        paths(doc, "", out)
        print("\n".join(sorted(out)))
        return
    doc = mask(doc)
    if a.fields:
        fields = a.fields.split(",")
        lists = [k for k, v in doc.items() if k not in ("meta", "errors") and isinstance(v, list)]
        print(json.dumps({"errors": doc.get("errors")}, sort_keys=True))
        for k in lists:
            for rec in doc[k]:
                print(json.dumps({f: rec.get(f, "<absent>") for f in fields}, sort_keys=True))
        return
    print(json.dumps(doc, sort_keys=True, indent=1))


if __name__ == "__main__":
    sys.exit(main())
