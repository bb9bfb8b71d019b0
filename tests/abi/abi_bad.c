/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/abi/abi_bad.c: a shared library that leaks an internal name and an unversioned one,
 * to show that abi_symbols.sh rejects them. */
int rv_leaked_internal(void);
int rv_leaked_internal(void) { return 1; }
int gex_Client_Init;
