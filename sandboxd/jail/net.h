/* Network layer: the job's network namespace has a loopback and nothing else. */
#ifndef SBX_NET_H
#define SBX_NET_H

/* Brings "lo" up inside the job's fresh network namespace (async-signal-safe). */
int net_apply(void);

#endif
