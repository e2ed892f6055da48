/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one list of pdm's targets.  Everything that names them reads it:
 * the parser (pdm-table.c), the module's objects (Kbuild), the unit and
 * fuzz builds, pdmsetup's help and its man page (scripts/pdm-targets.sh).
 * Each line is
 *	PDM_TARGET(name, " <its arguments>", "what it does")
 * for a file pdm-<name>.c that defines pdm_<name>_target (pdm-target.h).
 * Keep an entry on one line: the build reads this file with sed.  No
 * include guard: each reader defines PDM_TARGET, includes this file and
 * undefines it.
 */
PDM_TARGET(linear, " <dev> <offset>", "maps onto one device, sector for sector")
PDM_TARGET(striped, " <nr> <chunk_sectors> <dev> <offset>...", "maps chunks onto nr devices in turn")
PDM_TARGET(error, "", "reads, writes and discards fail with EIO; flushes succeed")
PDM_TARGET(zero, "", "reads return zeroes; writes and discards are dropped")
