/* SPDX-License-Identifier: MIT */
/*
 * Memory-registration reports (issue 15, item 4): who registered how much
 * memory, per client and per device (= per pod), its peak and growth, the
 * MRs that are not page-aligned, and what a client still had registered
 * when it went away.  Tallies: eng_mr_tally.h; the admin request
 * ADM_MR_REPORT: pv-soft-abi.h; the operator's view: `pvctl mr`.
 */
#ifndef ENG_MR_REPORT_H
#define ENG_MR_REPORT_H

struct eng_conn;
struct eng_mr;
struct eng_req;

/* mr (of c) was mapped / is being unmapped (eng_dp_mem.c). */
void eng_mr_report_reg(struct eng_conn *c, const struct eng_mr *mr);
void eng_mr_report_dereg(struct eng_conn *c, const struct eng_mr *mr);
/* c's device is going away: c's MRs leave the device's tally. */
void eng_mr_report_dev_lost(struct eng_conn *c);
/* c is closing, its objects not yet freed: logs what it still holds. */
void eng_mr_report_exit(const struct eng_conn *c);

int eng_op_adm_mr_report(struct eng_req *r);

#endif /* ENG_MR_REPORT_H */
