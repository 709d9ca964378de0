#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# The device set an engine's state records: PATH (the file written whole)
# with PATH.journal (one JSON line per change since) replayed over it, as
# the engine does at start-up (eng_state.h): an add replaces the entry of
# its id, a delete drops it, a last line without its newline is ignored.
# Prints {"nextId": N, "devices": [...]} as JSON; exits 1 when the file
# is not whole JSON (a torn write) or a complete journal line is not.
import json
import os
import sys


def state(path):
    with open(path) as f:
        doc = json.load(f)
    devs = {d["id"]: d for d in doc["devices"]}
    next_id = doc.get("nextId", 0)
    jpath = path + ".journal"
    text = open(jpath).read() if os.path.exists(jpath) else ""
    for line in text.split("\n")[:-1]:
        op = json.loads(line)
        next_id = op.get("nextId", next_id)
        if "del" in op:
            devs.pop(op["del"], None)
        else:
            devs[op["add"]["id"]] = op["add"]
    return {"nextId": next_id, "devices": list(devs.values())}


if __name__ == "__main__":
    try:
        print(json.dumps(state(sys.argv[1])))
    except (OSError, ValueError, KeyError) as e:
        print(f"{sys.argv[1]}: {e}", file=sys.stderr)
        sys.exit(1)
