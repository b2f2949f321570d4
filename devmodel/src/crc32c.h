/* SPDX-License-Identifier: GPL-2.0 */
#ifndef DM_CRC32C_H
#define DM_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/*
 * CRC-32C (Castagnoli): reflected polynomial 0x82F63B78, initial value and
 * final XOR 0xFFFFFFFF. crc32c(0, ...) starts a new CRC; pass the previous
 * result to continue one over several buffers.
 */
uint32_t crc32c(uint32_t crc, const void *buf, size_t len);

#endif
