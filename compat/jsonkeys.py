#!/usr/bin/env python3
"""Prints the sorted key paths of the JSON document on standard input ("jobs[].job_id"), or why it
cannot: the compatibility check compares the shape of --json outputs, not their values."""
import json
import sys


MAX_DEPTH = 2  # "jobs[].job_id", not the fields inside each job's nested objects


def walk(value, path, out, depth=0):
    if depth >= MAX_DEPTH:
        return
    if isinstance(value, dict):
        for k, v in value.items():
            p = f"{path}.{k}" if path else k
            out.add(p)
            walk(v, p, out, depth + 1)
    elif isinstance(value, list):
        for v in value:
            walk(v, path + "[]", out, depth)


try:
    doc = json.load(sys.stdin)
except ValueError as e:
    print(f"not JSON: {e}")
    sys.exit(1)
keys = set()
walk(doc, "", keys)
print("\n".join(sorted(keys)))
