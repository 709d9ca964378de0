/* SPDX-License-Identifier: MIT */
/*
 * Static rate conversions.  "mult" is a multiple of the 2.5 Gb/s SDR 1x
 * lane, defined only for the rates that are such multiples in the classic
 * IB table (plus the later 28/50/400/600 entries); "mbps" is the data rate
 * after line encoding (64b/66b for FDR and faster).
 */
#include "libverbs/lv_core.h"

struct rate_row {
	enum ibv_rate rate;
	int mult;		/* 0: no multiplier defined */
	int mbps;
};

static const struct rate_row rate_table[] = {
	{ IBV_RATE_2_5_GBPS, 1, 2500 },
	{ IBV_RATE_5_GBPS, 2, 5000 },
	{ IBV_RATE_10_GBPS, 4, 10000 },
	{ IBV_RATE_20_GBPS, 8, 20000 },
	{ IBV_RATE_30_GBPS, 12, 30000 },
	{ IBV_RATE_40_GBPS, 16, 40000 },
	{ IBV_RATE_60_GBPS, 24, 60000 },
	{ IBV_RATE_80_GBPS, 32, 80000 },
	{ IBV_RATE_120_GBPS, 48, 120000 },
	{ IBV_RATE_14_GBPS, 0, 14062 },
	{ IBV_RATE_56_GBPS, 0, 56250 },
	{ IBV_RATE_112_GBPS, 0, 112500 },
	{ IBV_RATE_168_GBPS, 0, 168750 },
	{ IBV_RATE_25_GBPS, 0, 25781 },
	{ IBV_RATE_100_GBPS, 0, 103125 },
	{ IBV_RATE_200_GBPS, 0, 206250 },
	{ IBV_RATE_300_GBPS, 0, 309375 },
	{ IBV_RATE_28_GBPS, 11, 28125 },
	{ IBV_RATE_50_GBPS, 20, 53125 },
	{ IBV_RATE_400_GBPS, 160, 425000 },
	{ IBV_RATE_600_GBPS, 240, 637500 },
};

#define N_RATES (sizeof(rate_table) / sizeof(rate_table[0]))

LV_EXPORT int ibv_rate_to_mult(enum ibv_rate rate)
{
	for (size_t i = 0; i < N_RATES; i++)
		if (rate_table[i].rate == rate && rate_table[i].mult)
			return rate_table[i].mult;
	return -1;
}

LV_EXPORT enum ibv_rate mult_to_ibv_rate(int mult)
{
	for (size_t i = 0; i < N_RATES; i++)
		if (mult > 0 && rate_table[i].mult == mult)
			return rate_table[i].rate;
	return IBV_RATE_MAX;
}

LV_EXPORT int ibv_rate_to_mbps(enum ibv_rate rate)
{
	for (size_t i = 0; i < N_RATES; i++)
		if (rate_table[i].rate == rate)
			return rate_table[i].mbps;
	return -1;
}

LV_EXPORT enum ibv_rate mbps_to_ibv_rate(int mbps)
{
	for (size_t i = 0; i < N_RATES; i++)
		if (mbps > 0 && rate_table[i].mbps == mbps)
			return rate_table[i].rate;
	return IBV_RATE_MAX;
}
