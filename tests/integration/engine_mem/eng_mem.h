/* SPDX-License-Identifier: MIT */
/* Shared by the engine memory attack tests (engine_mr_attack.sh). */
#ifndef ENG_MEM_H
#define ENG_MEM_H

/* Where the victim keeps its secret and the attacker registers its MR:
 * a page no process of ours maps by itself. */
#define ENG_MEM_ADDR		0x5e0000000000ull
#define ENG_MEM_LEN		4096u
#define ENG_MEM_SECRET_MAX	64

#endif /* ENG_MEM_H */
