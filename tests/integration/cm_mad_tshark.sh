#!/bin/sh
# SPDX-License-Identifier: MIT
# Our IB CM MADs as a real peer reads them: cm-mad-vectors encodes a REQ
# (RoCEv2 fields, the RDMA CM IP header in its private data), REP, RTU,
# REJ, DREQ, DREP, a ClassPortInfo GetResp and XRC's REQ and REP with
# our codec; they go into RoCEv2 UD packets to QP1 and Wireshark's
# InfiniBand dissector (tshark) decodes them; every field it shows must
# be the value we put.
# Not compared: the REQ's primary flow label and packet rate, which
# Wireshark 4.0 reads from a 3-byte window (it shows 0xabc for 0xabcde);
# the unit test pins those bytes to the kernel's layout (IBA_FIELD32_LOC
# 88, 20 and IBA_FIELD_BLOC 91, 2, 6).
. "$PV_ROOT/tests/lib/topo.sh"

need_cmd tshark python3
VEC=$PV_BUILD/tests/bin/cm-mad-vectors
[ -x "$VEC" ] || skip "cm-mad-vectors not built"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/cm-mad-tshark.XXXXXX") || fail "mktemp"
trap 'rm -rf "$TMP"' EXIT
"$VEC" "$TMP" || fail "cm-mad-vectors failed"
python3 "$PV_ROOT/tests/integration/cm/cm_pcap.py" "$TMP/cm.pcap" \
	"$TMP/req.mad" "$TMP/rep.mad" "$TMP/rtu.mad" "$TMP/rej.mad" \
	"$TMP/dreq.mad" "$TMP/drep.mad" "$TMP/cpi_resp.mad" \
	"$TMP/req_xrc.mad" "$TMP/rep_xrc.mad" || fail "pcap"

# field=expected, one packet per block; tshark prints them in this order.
check() {
	_pkt=$1
	shift
	_args=""
	_want=""
	for _fv in "$@"; do
		_args="$_args -e ${_fv%%=*}"
		_want="$_want|${_fv#*=}"
	done
	# shellcheck disable=SC2086
	_got=$(tshark -r "$TMP/cm.pcap" -Y "frame.number == $_pkt" -T fields \
		-E separator='|' -E occurrence=f $_args 2>/dev/null)
	[ "|$_got" = "$_want" ] || fail "packet $_pkt: tshark shows
  ${_got}
want
  ${_want#|}"
	echo "ok   packet $_pkt: $# fields as encoded"
}

check 1 infiniband.bth.destqp=0x000001 infiniband.mad.baseversion=0x01 \
	infiniband.mad.mgmtclass=0x07 infiniband.mad.classversion=0x02 \
	infiniband.mad.method=0x03 infiniband.mad.attributeid=0x0010 \
	infiniband.mad.transactionid=0x1122334455667788 \
	infiniband.cm.req.serviceid.prefix=0000000001 \
	infiniband.cm.req.serviceid.protocol=0x06 \
	infiniband.cm.req.serviceid.dport=0x4e21 \
	infiniband.cm.req.localcaguid=0x0202c9fffe000001 \
	infiniband.cm.req.localqkey=0x00000000 \
	infiniband.cm.req.localqpn=0x000123 infiniband.cm.req.responderres=0x04 \
	infiniband.cm.req.initdepth=0x02 infiniband.cm.req.remoteresptout=0x14 \
	infiniband.cm.req.transpsvctype=0x00 infiniband.cm.req.e2eflowctrl=0x00 \
	infiniband.cm.req.startpsn=0xabcdef infiniband.cm.req.localresptout=0x13 \
	infiniband.cm.req.retrcount=0x07 infiniband.cm.req.pkey=0xffff \
	infiniband.cm.req.pppmtu=0x05 infiniband.cm.req.rdcexist=0x00 \
	infiniband.cm.req.rnrretrcount=0x06 infiniband.cm.req.maxcmretr=0x0f \
	infiniband.cm.req.srq=0x00 infiniband.cm.req.prim_locallid=65535 \
	infiniband.cm.req.prim_remotelid=65535 \
	infiniband.cm.req.prim_localgid_ipv4=10.0.0.1 \
	infiniband.cm.req.prim_remotegid_ipv4=10.0.0.2 \
	infiniband.cm.req.prim_tfcclass=0x68 infiniband.cm.req.prim_hoplim=0x40 \
	infiniband.cm.req.prim_sl=0x00 infiniband.cm.req.prim_subnetlocal=0x00 \
	infiniband.cm.req.prim_localacktout=0x12 \
	infiniband.cm.req.ip_cm.majv=0x00 infiniband.cm.req.ip_cm.ipv=0x04 \
	infiniband.cm.req.ip_cm.sport=0x9c41 \
	infiniband.cm.req.ip_cm.sip4=10.0.0.1 infiniband.cm.req.ip_cm.dip4=10.0.0.2
check 2 infiniband.mad.attributeid=0x0013 \
	infiniband.cm.rep.remotecommid=0xa1b2c3d4 \
	infiniband.cm.rep.localqpn=0xfedcba infiniband.cm.rep.startpsn=0x123456 \
	infiniband.cm.rep.respres=0x02 infiniband.cm.rep.initdepth=0x04 \
	infiniband.cm.rep.tgtackdelay=0x11 infiniband.cm.rep.failoveracc=0x03 \
	infiniband.cm.rep.e2eflowctrl=0x01 infiniband.cm.rep.rnrretrcount=0x05 \
	infiniband.cm.rep.srq=0x01 infiniband.cm.rep.localcaguid=0x0102030405060708
check 3 infiniband.mad.attributeid=0x0014 \
	infiniband.cm.rtu.localcommid=0xa1b2c3d4 \
	infiniband.cm.rtu.remotecommid=0x11223344
check 4 infiniband.mad.attributeid=0x0012 \
	infiniband.cm.rej.localcommid=0x11223344 \
	infiniband.cm.rej.remotecommid=0xa1b2c3d4 infiniband.cm.rej.msgrej=0x00 \
	infiniband.cm.rej.rejinfolen=0x04 infiniband.cm.rej.reason=0x001c
check 5 infiniband.mad.attributeid=0x0015 \
	infiniband.cm.dreq.localcommid=0xa1b2c3d4 \
	infiniband.cm.dreq.remotecommid=0x11223344 \
	infiniband.cm.req.remoteqpneecn=0xfedcba
check 6 infiniband.mad.attributeid=0x0016 \
	infiniband.cm.drsp.localcommid=0x11223344 \
	infiniband.cm.drsp.remotecommid=0xa1b2c3d4
check 7 infiniband.mad.method=0x81 infiniband.mad.attributeid=0x0001 \
	infiniband.mad.status=0x0000 infiniband.mad.transactionid=0x0000000000000006
# XRC (rdmacm_static.sh's rdma_xserver/rdma_xclient -c x across nodes).
check 8 infiniband.mad.attributeid=0x0010 \
	infiniband.cm.req.serviceid.prefix=0000000001 \
	infiniband.cm.req.serviceid.protocol=0x3f \
	infiniband.cm.req.serviceid.dport=0x1d2f \
	infiniband.cm.req.localqpn=0x000123 infiniband.cm.req.responderres=0x00 \
	infiniband.cm.req.transpsvctype=0x03 infiniband.cm.req.retrcount=0x00 \
	infiniband.cm.req.rnrretrcount=0x00 infiniband.cm.req.srq=0x00 \
	infiniband.cm.req.ext_transport=0x01
check 9 infiniband.mad.attributeid=0x0013 \
	infiniband.cm.rep.localqpn=0x000000 infiniband.cm.rep.localeecn=0xfedcba \
	infiniband.cm.rep.srq=0x01
echo "PASS: tshark decodes our REQ/REP/RTU/REJ/DREQ/DREP/ClassPortInfo and XRC's REQ/REP as encoded"
