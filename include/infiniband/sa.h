/* SPDX-License-Identifier: MIT */
/*
 * infiniband/sa.h — subnet administration records as librdmacm's public
 * headers use them (struct rdma_route points at an ibv_sa_path_rec).
 * Layout-identical to rdma-core 44's header of the same name; written
 * from the InfiniBand Architecture Specification vol. 1, 15.2.5 (the
 * PathRecord, MCMemberRecord and ServiceRecord attributes) and checked by
 * tests/abi/rdmacm_layout.sh against Debian's libibverbs-dev.
 */
#ifndef INFINIBAND_SA_H
#define INFINIBAND_SA_H

#include <infiniband/verbs.h>
#include <linux/types.h>

/* A path record in host form (host-order fields, except the __be ones). */
struct ibv_sa_path_rec {
	union ibv_gid dgid;
	union ibv_gid sgid;
	__be16 dlid;
	__be16 slid;
	int raw_traffic;
	__be32 flow_label;
	uint8_t hop_limit;
	uint8_t traffic_class;
	int reversible;
	uint8_t numb_path;
	__be16 pkey;
	uint8_t sl;
	uint8_t mtu_selector;
	uint8_t mtu;
	uint8_t rate_selector;
	uint8_t rate;
	uint8_t packet_life_time_selector;
	uint8_t packet_life_time;
	uint8_t preference;
};

struct ibv_sa_mcmember_rec {
	union ibv_gid mgid;
	union ibv_gid port_gid;
	uint32_t qkey;
	uint16_t mlid;
	uint8_t mtu_selector;
	uint8_t mtu;
	uint8_t traffic_class;
	uint16_t pkey;
	uint8_t rate_selector;
	uint8_t rate;
	uint8_t packet_life_time_selector;
	uint8_t packet_life_time;
	uint8_t sl;
	uint32_t flow_label;
	uint8_t hop_limit;
	uint8_t scope;
	uint8_t join_state;
	int proxy_join;
};

struct ibv_sa_service_rec {
	uint64_t id;
	union ibv_gid gid;
	uint16_t pkey;
	uint32_t lease;
	uint8_t key[16];
	uint8_t name[64];
	uint8_t data8[16];
	uint16_t data16[8];
	uint32_t data32[4];
	uint64_t data64[2];
};

#define IBV_PATH_RECORD_REVERSIBLE 0x80

/* A path record in wire form (IBA 15.2.5.16: 64 bytes, network order). */
struct ibv_path_record {
	__be64 service_id;
	union ibv_gid dgid;
	union ibv_gid sgid;
	__be16 dlid;
	__be16 slid;
	__be32 flowlabel_hoplimit;	/* reserved:4 flow label:20 hop limit:8 */
	uint8_t tclass;
	uint8_t reversible_numpath;	/* reversible:1 numb path:7 */
	__be16 pkey;
	__be16 qosclass_sl;		/* QoS class:12 SL:4 */
	uint8_t mtu;			/* selector:2 MTU:6 */
	uint8_t rate;			/* selector:2 rate:6 */
	uint8_t packetlifetime;		/* selector:2 life time:6 */
	uint8_t preference;
	uint8_t reserved[6];
};

#define IBV_PATH_FLAG_GMP		(1 << 0)
#define IBV_PATH_FLAG_PRIMARY		(1 << 1)
#define IBV_PATH_FLAG_ALTERNATE		(1 << 2)
#define IBV_PATH_FLAG_OUTBOUND		(1 << 3)
#define IBV_PATH_FLAG_INBOUND		(1 << 4)
#define IBV_PATH_FLAG_INBOUND_REVERSE	(1 << 5)
#define IBV_PATH_FLAG_BIDIRECTIONAL \
	(IBV_PATH_FLAG_OUTBOUND | IBV_PATH_FLAG_INBOUND_REVERSE)

/* What RDMA_OPTION_IB_PATH takes: flags and one wire-form record. */
struct ibv_path_data {
	uint32_t flags;
	uint32_t reserved;
	struct ibv_path_record path;
};

#endif /* INFINIBAND_SA_H */
