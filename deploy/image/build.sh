#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds the podverbs node image (deploy/image/Containerfile).
#
#   build.sh [--stage-only] [--stage DIR] [--tag NAME] [--build DIR]
#
# 1. Stages the build context in DIR (default BUILD/image-context):
#      DIR/root/  `make install DESTDIR=DIR/root PREFIX=/usr/local
#                  CNIBINDIR=/usr/local/libexec/podverbs/cni`
#      DIR/cni/   deploy/cni/install-cni.sh and 10-podverbs.conflist
#      DIR/Containerfile
# 2. Unless --stage-only: podman (or docker) build -t TAG DIR.
#
# The CNI binary goes to a libexec folder, not /opt/cni/bin: the init
# container mounts the host's /opt/cni/bin there and copies the plugin in.
# Building needs the debian:bookworm-slim base image (a registry, or
# `podman load` of a saved copy); the stage step needs neither.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build
stage=""
tag=podverbs:latest
only=0
while [ $# -gt 0 ]; do
	case $1 in
	--stage-only) only=1 ;;
	--stage) stage=$2; shift ;;
	--tag) tag=$2; shift ;;
	--build) build=$2; shift ;;
	-h|--help) sed -n '3,18p' "$0"; exit 0 ;;
	*) echo "build.sh: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$stage" ] || stage=$build/image-context
rm -rf "$stage/root" "$stage/cni"
mkdir -p "$stage/root" "$stage/cni"
stage=$(cd "$stage" && pwd)
make -s -C "$root" install BUILD="$build" DESTDIR="$stage/root" \
	PREFIX=/usr/local CNIBINDIR=/usr/local/libexec/podverbs/cni
cp "$root/deploy/cni/install-cni.sh" "$root/deploy/cni/10-podverbs.conflist" \
	"$stage/cni/"
cp "$here/Containerfile" "$stage/Containerfile"
echo "build.sh: context staged in $stage"
[ "$only" = 1 ] && exit 0
if command -v podman >/dev/null 2>&1; then
	tool=podman
elif command -v docker >/dev/null 2>&1; then
	tool=docker
else
	echo "build.sh: neither podman nor docker found" >&2
	exit 1
fi
exec "$tool" build -t "$tag" -f "$stage/Containerfile" "$stage"
