/* Capability layer: the job keeps no capability in any set (caps.c). */
#ifndef SBX_CAPS_H
#define SBX_CAPS_H

/* Once per process (the daemon at start, the job's init after its exec):
 * learns how many capabilities the kernel knows. */
int caps_init(void);
/* Before the uid change: empties the bounding and ambient sets (needs
 * CAP_SETPCAP, so it must run while still root). */
int caps_drop_bounding(void);
/* Clears effective/permitted/inheritable and sets PR_SET_NO_NEW_PRIVS so no
 * execve (setuid binaries, file capabilities) can regain any. */
int caps_drop_all(void);

#endif
