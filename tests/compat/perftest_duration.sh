#!/bin/sh
# SPDX-License-Identifier: MIT
# Debian's perftest bandwidth tools in duration mode (-D 2, 64 KiB), three
# times each, as the benchmark runs them: a full send queue kept full for
# seconds must never make ibv_post_send fail ("Couldn't post send" was seen
# when a polled completion's slot was not yet retired in the SQ ring).
. "$PV_ROOT/tests/compat/perftest_common.inc"
need_cmd ib_write_bw ib_send_bw ib_read_bw
# Cross-node (pt_cross) once per tool: -D 2 runs as long whatever the wire.
reps="1 2 3"
pt_cross && reps=1
for i in $reps; do
	for t in ib_write_bw ib_send_bw ib_read_bw; do
		pt_case $t "${t#ib_}-D-$i" 1 -s 65536 -D 2 --report_gbits
	done
done
pairs_done
