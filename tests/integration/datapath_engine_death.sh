#!/bin/sh
# SPDX-License-Identifier: MIT
# Finding 8 (issue 8): the engine SIGKILLed under a poll-mode and an
# event-mode client; within 1 s each sees its outstanding WRs flushed
# (IBV_WC_WR_FLUSH_ERR), IBV_EVENT_DEVICE_FATAL, and posts failing.
# (tests/integration/datapath/dpt_engine_death.c)
. "$PV_ROOT/tests/lib/pods.sh"
pods_up
dpt_run dpt_engine_death || fail "dpt_engine_death"
echo PASS
