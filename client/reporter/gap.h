/* Kernel records the ring buffer lost before the watcher read them, looked
 * up in the journal (cgroup-feedback-report --journal-gap): the watcher
 * links no journal code, so its report writer, which runs without
 * capability, reads them for it and hands them back as /dev/kmsg lines. */
#ifndef CGFB_GAP_H
#define CGFB_GAP_H

/* spec is BOOT:FROM:TO: the boot id (32 hex digits, dashes allowed) and
 * the kernel's own times in microseconds since that boot. Prints each
 * kernel record of that boot in (FROM, TO) on stdout as a /dev/kmsg line
 * ("PRI,SEQNUM,USEC,-;TEXT" with the journal's sequence number, bytes
 * that are not printable ASCII as \xNN).
 * journal_dir NULL: the system journal. Returns 0, or -errno after
 * logging why. */
int cgfb_journal_gap(const char *spec, const char *journal_dir);

#endif
