/* SPDX-License-Identifier: BSD-3-Clause */
/* api/segment_int.h: the entry points of segment.c that client.c calls. */
#ifndef RV_SEGMENT_INT_H
#define RV_SEGMENT_INT_H

/* Computes the local and global maximum segment sizes (collective). */
void rv_segment_init_limits(void);

#endif /* RV_SEGMENT_INT_H */
