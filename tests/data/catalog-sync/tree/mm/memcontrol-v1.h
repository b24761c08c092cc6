/* catalog-sync fixture: no pr_fmt here, memcontrol-v1.c prints bare. */
#define MEMCG_FROB 1
