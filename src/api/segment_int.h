/* SPDX-License-Identifier: BSD-3-Clause */
/* core/segment_int.h: core-private entry points of segment.c. */
#ifndef RV_SEGMENT_INT_H
#define RV_SEGMENT_INT_H

/* Computes the local and global maximum segment sizes (collective). */
void rv_segment_init_limits(void);

#endif /* RV_SEGMENT_INT_H */
