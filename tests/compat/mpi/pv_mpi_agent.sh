#!/bin/sh
# SPDX-License-Identifier: MIT
# pv_mpi_agent.sh HOST CMD...: Open MPI's remote launch agent for pods that
# have no sshd (tests/compat/mpi_ucx.sh passes it as `--mca plm_rsh_agent`).
# mpirun calls its agent the way it calls ssh: the host name from the
# hostfile, then the orted command line as words for a shell.  Here the
# host is a pod's IP, looked up in $PV_MPI_MAP (lines "HOST NETNS ENGINE
# HOSTNAME": the pod's network namespace, the engine socket its devices
# belong to, the host name it gets), and the command runs in that
# namespace with our libibverbs and that engine, in a UTS namespace of its
# own named HOSTNAME (pods have their own host names; Open MPI tells nodes
# apart by theirs).  The orted's ranks inherit that environment.
set -eu
[ $# -ge 2 ] || { echo "pv_mpi_agent: usage: HOST CMD..." >&2; exit 2; }
host=$1
shift
line=$(awk -v h="$host" '$1 == h { print; exit }' "${PV_MPI_MAP:?}")
[ -n "$line" ] || { echo "pv_mpi_agent: $host is not in $PV_MPI_MAP" >&2; exit 2; }
set -- $line "$*"
exec ip netns exec "$2" env PODVERBS_ENGINE="$3" LD_LIBRARY_PATH="${PV_MPI_LIB:?}" \
	unshare --uts sh -c 'hostname "$0" && exec sh -c "$1"' "$4" "$5"
