#!/usr/bin/env python3
"""Writes the seed corpora of fuzz_ipc and fuzz_wqe (tests/fuzz/corpus/).
fuzz_ipc (tests/fuzz/corpus/fuzz_ipc/): request
sequences in fuzz_ipc.c's record format that open a context, create every
kind of object, use them and tear them down, plus one record per op.
fuzz_wqe: WQEs of every opcode on RC, UC and UD (see fuzz_wqe.c's
format), and hostile ring counters.  Layouts follow providers/soft/pv-soft-abi.h (its _Static_asserts pin the
sizes used here).  Run from the repository root."""
import os
import struct

OUT = 'tests/fuzz/corpus/fuzz_ipc'
OP = dict(HELLO=1, DEV_LIST=2, DEV_QUERY=3, PORT_QUERY=4, GID_QUERY=5,
          PKEY_QUERY=6, CTX_OPEN=7, CHANNEL_CREATE=8, CHANNEL_DESTROY=9,
          PD_ALLOC=16, PD_DEALLOC=17, MR_REG=18, MR_DEREG=19, CQ_CREATE=20,
          CQ_RESIZE=21, CQ_DESTROY=22, CQ_REQ_NOTIFY=23, QP_CREATE=24,
          QP_MODIFY=25, QP_QUERY=26, QP_DESTROY=27, SRQ_CREATE=28,
          SRQ_MODIFY=29, SRQ_QUERY=30, SRQ_DESTROY=31, AH_CREATE=32,
          AH_DESTROY=33, MW_ALLOC=37, MW_DEALLOC=38, XRCD=44, QP_OPEN=45,
          CTX_MAP=40, QP_MAP=41, CQ_MAP=42, SRQ_MAP=43,
          ADM_DEV_ADD=128, ADM_DEV_DEL=129, ADM_DEV_LIST=130,
          ADM_OBJ_LIST=131, ADM_STATS=132)
FIT, MEMFD, PIPE, RUN = 2, 4, 8, 64


def T(k):
    """Token: handle of the k-th latest create (k = 0: device id)."""
    return 0xffffff00 + k


def N(k):
    """Token: second word of the k-th latest create's reply (QP number)."""
    return 0xffffff10 + k


def rec(op, payload=b'', flags=FIT):
    return struct.pack('<BBH', OP[op], flags, len(payload)) + payload


def u32s(*v):
    return struct.pack('<%dI' % len(v), *v)


def handle(k):
    return u32s(T(k), 0)


def dev_ref(port=1, index=0):
    return struct.pack('<IB3xI4x', T(0), port, index)


GID = bytes(10) + b'\xff\xff' + bytes([10, 0, 0, 1])


def ah_attr(port=1):
    # dgid, flow_label, sgid_index, hop_limit, tclass, is_global, dlid, sl,
    # src_path_bits, static_rate, port_num, 2 + 8 reserved
    return GID + struct.pack('<IBBBBHBBBB2x8x', 0, 0, 64, 0, 1, 0, 0, 0, 0,
                             port)


def qp_create(qpt, srq=0):
    # pd, send cq, recv cq, srq, type, sig_all, cap (send_wr, recv_wr,
    # send_sge, recv_sge, inline), reserved
    return u32s(T(2), T(1), T(1), srq, qpt, 0, 4, 4, 2, 2, 64, 0) + bytes(16)


def qp_modify(mask, state, dest_qpn=0, **kw):
    attr = bytearray(176)
    struct.pack_into('<IIIIIIIII', attr, 0, state, 0, kw.get('mtu', 3), 0,
                     kw.get('qkey', 0x11111111), 0, 0, dest_qpn, 0xf)
    attr[64:104] = ah_attr()
    # max_rd_atomic, max_dest_rd_atomic, min_rnr_timer, port, timeout,
    # retry_cnt, rnr_retry
    attr[146:153] = bytes([1, 1, 12, 1, 14, 7, 7])
    return u32s(T(1), mask) + bytes(attr)


M_STATE, M_ACCESS, M_PKEY, M_PORT, M_QKEY, M_AV, M_MTU = 1, 8, 16, 32, 64, 128, 256
M_TIMEOUT, M_RETRY, M_RNR_RETRY, M_RQ_PSN = 512, 1024, 2048, 4096
M_MAX_RD, M_MIN_RNR, M_SQ_PSN, M_MAX_DEST_RD, M_DEST_QPN = 8192, 32768, 65536, 131072, 1 << 20
INIT_RC = M_STATE | M_PKEY | M_PORT | M_ACCESS
RTR_RC = M_STATE | M_AV | M_MTU | M_DEST_QPN | M_RQ_PSN | M_MAX_DEST_RD | M_MIN_RNR
RTS_RC = M_STATE | M_TIMEOUT | M_RETRY | M_RNR_RETRY | M_SQ_PSN | M_MAX_RD


def mr_reg(length=4096):
    return struct.pack('<IIQQQ16x', T(1), 0xf, 0x10000, length, 0x10000)


def opening():
    return (rec('HELLO', u32s(1)) + rec('CTX_OPEN', dev_ref()) +
            rec('PD_ALLOC'))


def lifecycle(qpt):
    s = opening()
    s += rec('CQ_CREATE', u32s(16, 0, 0, 0) + bytes(16))      # T1 cq, T2 pd
    s += rec('QP_CREATE', qp_create(qpt))                     # T1 qp
    s += rec('QP_QUERY', u32s(T(1), 0) + bytes(176))
    s += rec('QP_MODIFY', qp_modify(INIT_RC if qpt == 2 else
                                    M_STATE | M_PKEY | M_PORT |
                                    (M_QKEY if qpt == 4 else M_ACCESS), 1))
    s += rec('QP_MODIFY', qp_modify(RTR_RC if qpt == 2 else
                                    M_STATE | (0 if qpt == 4 else
                                               M_AV | M_MTU | M_DEST_QPN | M_RQ_PSN),
                                    2, dest_qpn=N(1)))
    s += rec('QP_MODIFY', qp_modify(RTS_RC if qpt == 2 else M_STATE | M_SQ_PSN, 3))
    s += rec('CTX_MAP', flags=FIT | RUN)
    s += rec('QP_MAP', handle(1), flags=FIT | RUN)
    s += rec('CQ_MAP', handle(2))
    s += rec('CQ_REQ_NOTIFY', u32s(T(2), 0))
    s += rec('CQ_RESIZE', u32s(64, 0, 0, T(2)) + bytes(16))
    s += rec('QP_DESTROY', handle(1), flags=FIT | RUN)
    s += rec('CQ_DESTROY', handle(2))
    s += rec('PD_DEALLOC', handle(3))
    return s


def objects():
    s = opening()
    s += rec('MR_REG', mr_reg() + struct.pack('<QI4x', 0, 1),
             flags=MEMFD)                                     # T1 mr, T2 pd
    s += rec('MR_REG', mr_reg(1 << 20))                       # no memfd: fails
    s += rec('SRQ_CREATE', u32s(T(2), 0, 8, 1, 0, 0, 0, 0))   # T1 srq
    s += rec('SRQ_MAP', handle(1))
    s += rec('SRQ_MODIFY', u32s(0, T(1), 16, 1, 4, 3, 0, 0))
    s += rec('SRQ_QUERY', handle(1))
    s += rec('AH_CREATE', u32s(T(3), 0) + ah_attr())          # T1 ah
    s += rec('CHANNEL_CREATE')                                # T1 channel
    s += rec('CQ_CREATE', u32s(8, T(1), 0, 0) + bytes(16))    # T1 cq
    s += rec('CQ_DESTROY', handle(1))
    s += rec('CHANNEL_DESTROY', handle(2))
    s += rec('AH_DESTROY', handle(3))
    s += rec('SRQ_DESTROY', handle(4))
    s += rec('MR_DEREG', handle(5))
    s += rec('PD_DEALLOC', handle(6))
    return s


def xrc():
    """An XRC domain of no file, an XRC SRQ on it, an XRC_RECV QP in it,
    a second handle on the QP by number (QP_OPEN), modified and destroyed
    apart from the creator's (ibv_open_qp), then the domain closed."""
    s = opening()
    s += rec('CQ_CREATE', u32s(16, 0, 0, 0) + bytes(16))      # T1 cq, T2 pd
    s += rec('XRCD', u32s(1, 0, 0x40, 0))                     # T1 xrcd
    s += rec('SRQ_CREATE', u32s(T(3), 0, 8, 1, 0, 0, T(1), T(2)))  # T1 srq
    s += rec('QP_CREATE', u32s(0, 0, 0, 0, 10, 0, 0, 0, 0, 0, 0, 0, T(2),
                               0, 0, 0))                      # T1 qp
    s += rec('QP_OPEN', u32s(T(3), N(1), 10, 0))              # T1 opened
    s += rec('QP_OPEN', u32s(T(4), N(2), 2, 0))               # wrong type
    s += rec('QP_MODIFY', qp_modify(INIT_RC, 1))
    s += rec('QP_QUERY', u32s(T(1), 0) + bytes(176))
    s += rec('QP_DESTROY', handle(2))                         # the creator's
    s += rec('QP_DESTROY', handle(1))                         # the last one
    s += rec('SRQ_DESTROY', handle(3))
    s += rec('XRCD', u32s(2, T(4), 0, 0))
    return s


def queries():
    s = rec('HELLO', u32s(1)) + rec('DEV_LIST')
    for op in ('DEV_QUERY', 'PORT_QUERY', 'GID_QUERY', 'PKEY_QUERY'):
        s += rec(op, dev_ref())
    for op in ('ADM_DEV_LIST', 'ADM_STATS'):
        s += rec(op)
    s += rec('ADM_OBJ_LIST', dev_ref())
    s += rec('ADM_DEV_DEL', u32s(T(0)))
    return s


def malformed():
    s = rec('HELLO', b'\x50\x49\x56\x50\x01\x00', flags=1)   # short header
    s += rec('HELLO', u32s(1), flags=FIT | 16)               # bad version
    s += rec('HELLO', u32s(1), flags=FIT | 32)               # len mismatch
    s += rec('PD_ALLOC', u32s(1))                            # no context
    s += rec('CTX_OPEN', dev_ref(), flags=FIT | PIPE)        # stray fd
    s += struct.pack('<BBH', 200, 0, 0)                      # unknown op
    return s


WQE_OUT = 'tests/fuzz/corpus/fuzz_wqe'
ADDR = 0xfffffffe00000000          # the MR's address (+ low 16 bits)
LKEY, RKEY, AH, QPN_B, QPN_A, QKEY = (0xffffff00 + k for k in range(1, 7))


def sge(off, length, key=LKEY):
    return struct.pack('<QII', ADDR + off, length, key)


def send_wqe(opcode, sges=(), flags=2, raddr=0, rkey=RKEY, inline=b'',
             ud=False, cmp=0, swap=0, wr_id=1):
    w = struct.pack('<QIIIIQIIQQIII4x', wr_id, opcode, flags | (8 if inline else 0),
                    0x12345678, len(sges), raddr, rkey, len(inline), cmp,
                    swap, AH if ud else 0, QPN_B if ud else 0,
                    QKEY if ud else 0)
    return w + (inline if inline else b''.join(sges))


def recv_wqe(sges, wr_id=7):
    return struct.pack('<QI4x', wr_id, len(sges)) + b''.join(sges)


def step(op, payload=b''):
    if op <= 3:
        return bytes([op, len(payload)]) + payload
    return bytes([op]) + payload


PASS = step(5)


def wqe_seeds():
    recv = step(1, recv_wqe([sge(0x8000, 4096)]))
    seeds = {}
    for t, name in ((0, 'rc'), (1, 'uc'), (2, 'ud')):
        ud = t == 2
        seeds['send_' + name] = bytes([t]) + recv + step(
            0, send_wqe(2, [sge(0, 256)], ud=ud)) + PASS
        seeds['send_inline_' + name] = bytes([t]) + recv + step(
            0, send_wqe(3, inline=b'hello, engine!', ud=ud)) + PASS
        seeds['send_2sge_' + name] = bytes([t]) + step(
            1, recv_wqe([sge(0x8000, 64), sge(0x9000, 4096)])) + step(
            0, send_wqe(2, [sge(0, 100), sge(0x200, 100)], ud=ud)) + PASS
    for t, name in ((0, 'rc'), (1, 'uc')):
        seeds['write_' + name] = bytes([t]) + step(
            0, send_wqe(0, [sge(0, 512)], raddr=ADDR + 0x4000)) + PASS
        seeds['write_imm_' + name] = bytes([t]) + recv + step(
            0, send_wqe(1, [sge(0, 512)], raddr=ADDR + 0x4000)) + PASS
    seeds['read_rc'] = bytes([0]) + step(
        0, send_wqe(4, [sge(0, 512)], raddr=ADDR + 0x4000)) + PASS
    seeds['cas_rc'] = bytes([0]) + step(
        0, send_wqe(5, [sge(0, 8)], raddr=ADDR + 0x4000, cmp=0, swap=9)) + PASS
    seeds['faa_rc'] = bytes([0]) + step(
        0, send_wqe(6, [sge(0, 8)], raddr=ADDR + 0x4008, cmp=5)) + PASS
    seeds['rnr_rc'] = bytes([0]) + step(0, send_wqe(2, [sge(0, 64)])) + PASS + PASS
    seeds['bad_prod_rc'] = bytes([0]) + step(4, struct.pack('<I', 1000)) + PASS
    seeds['ring_hdr_rc'] = bytes([0]) + step(6, struct.pack('<HI', 8, 0x40000)) + step(
        0, send_wqe(2, [sge(0, 64)])) + PASS
    seeds['cq_cons_rc'] = bytes([0]) + step(7, struct.pack('<I', 0x7fffffff)) + recv + step(
        0, send_wqe(2, [sge(0, 64)])) + PASS
    seeds['many_rc'] = bytes([0]) + recv * 4 + step(
        0, send_wqe(2, [sge(0, 64)])) * 4 + step(3, send_wqe(0, [sge(0, 64)], raddr=ADDR)) + PASS
    return seeds


def main():
    os.makedirs(WQE_OUT, exist_ok=True)
    for name, data in wqe_seeds().items():
        with open(os.path.join(WQE_OUT, name), 'wb') as f:
            f.write(data)
    os.makedirs(OUT, exist_ok=True)
    seeds = {'lifecycle_rc': lifecycle(2), 'lifecycle_uc': lifecycle(3),
             'lifecycle_ud': lifecycle(4), 'objects': objects(),
             'queries': queries(), 'malformed': malformed(), 'xrc': xrc()}
    for op in OP:
        seeds['op_' + op.lower()] = opening() + rec(op, handle(1))
    for name, data in seeds.items():
        with open(os.path.join(OUT, name), 'wb') as f:
            f.write(data)


if __name__ == '__main__':
    main()
