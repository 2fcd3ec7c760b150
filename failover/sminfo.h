/*
 * The SMInfo requests other SMs send us: Get answered, Set checked and
 * obeyed or refused (see sminfo.c).  A part of the SM (sm/part.h) beside
 * the role, attached after it.
 */
#ifndef IBSMD_SMINFO_H
#define IBSMD_SMINFO_H

#include <stddef.h>

struct sm;

/*
 * Register the SMInfo Get/Set and TrapRepress dispatch rows.  0, -EINVAL
 * (the role, failover/smstate.h, is not attached) or -ENOMEM, with err.
 */
int sminfo_attach(struct sm *sm, char *err, size_t err_len);

#endif
