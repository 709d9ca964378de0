#!/bin/sh
# SPDX-License-Identifier: MIT
# A client SIGKILLed mid-transfer between two pods: its peer's RC QP ends
# in IBV_WC_RETRY_EXC_ERR and ERR (tests/integration/datapath/dpt_kill.c);
# while the survivor still holds its objects, `pvctl obj list` shows none
# of the killed client's, and once the survivor exits, none at all.
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_kill "echo \$DPT_KILLED_PID >$TMP/killed.pid; echo \$PPID >$TMP/survivor.pid;
	'$PV_BUILD/bin/pvctl' --socket '$ENGINE_SOCK' obj list >$TMP/objs.txt 2>&1" ||
	fail "dpt_kill"
killed=$(cat "$TMP/killed.pid")
survivor=$(cat "$TMP/survivor.pid")
echo "objects while the survivor ($survivor) runs, after killing $killed:"
cat "$TMP/objs.txt"
awk -v p="$killed" '$3 == p { found = 1 } END { exit !found }' "$TMP/objs.txt" &&
	fail "objects of the killed client $killed are still listed"
awk -v p="$survivor" '$3 == p { found = 1 } END { exit !found }' "$TMP/objs.txt" ||
	fail "the survivor's objects ($survivor) are not listed (check is blind)"
no_objects() {
	[ "$(pvctl obj list | awk 'NR > 1 && NF' | wc -l)" = 0 ]
}
wait_until 5 no_objects || { pvctl obj list; fail "objects left after both exited"; }
echo PASS
