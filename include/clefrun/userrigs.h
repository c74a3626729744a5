/**
 * @file userrigs.h
 * @brief Saved rigs: the user's own machines, kept in
 * $XDG_CONFIG_HOME/clefrun/rigs.json (default ~/.config/clefrun/rigs.json).
 *
 * The file holds rig objects in exactly the data/rigs.json format
 * (docs/catalog.md) under its own schema:
 *
 *   { "schema": "clefrun.user-rigs/1",
 *     "rigs": [ { "id": "my-box", "name": "...", "reference": false,
 *                 "status": "released", "devices": [ ... ],
 *                 "notes": "...", "sources": ["clefrun rig add"] } ] }
 *
 * Loading validates every field as the catalog loader does; the first
 * problem is reported with the path and the JSON path
 * ("~/.config/clefrun/rigs.json: rigs[1].devices[0].bandwidth_gbs: ...").
 * On top of the catalog rules a saved rig must have "reference": false, an
 * id other than "local" (the detected machine) and, when a catalog is given,
 * an id that is not a catalog rig id: a saved rig never shadows one.
 * An empty "rigs" list is valid (every rig removed).
 *
 * cr_userrigs_save writes atomically: the JSON goes to a temporary file in
 * the same directory, is fsync'ed, renamed over the old file, and the
 * directory is fsync'ed, so a crash or kill leaves either the old or the new
 * file, never a mix. A failed save leaves the old file as it was. The set
 * in memory is only written by an explicit save; callers that must not
 * overwrite a broken file simply do not save after a failed load.
 *
 * Two processes editing the file at once (two `clefrun rig add`) would each
 * load, edit and save, and the later save would drop the other's edit.
 * Editors take cr_userrigs_lock around load-modify-save; readers need no
 * lock (they see the old or the new file).
 *
 * A path that is a symbolic link is written through (the link stays, its
 * target changes); a link to a file that does not exist is refused by
 * cr_userrigs_save and cr_userrigs_lock, naming both.
 */
#ifndef CLEFRUN_USERRIGS_H
#define CLEFRUN_USERRIGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "clefrun/catalog.h"
#include "clefrun/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The schema string of the saved-rigs file. */
#define CR_USERRIGS_SCHEMA "clefrun.user-rigs/1"
/** The id reserved for the detected machine (clefrun detect, --rig local). */
#define CR_USERRIGS_LOCAL_ID "local"
/** Most rigs a file may hold. */
#define CR_USERRIGS_MAX 256

/** A set of saved rigs. Opaque; free with cr_userrigs_free. */
typedef struct cr_user_rigs cr_user_rigs;

/**
 * The saved-rigs path: XDG_CONFIG_HOME/clefrun/rigs.json when
 * @p xdg_config_home is a non-empty absolute path (the XDG spec ignores
 * relative ones), else HOME/.config/clefrun/rigs.json.
 * The caller passes the environment's values (the library reads none).
 * @return 0; CR_ERR_INVALID when neither is usable or @p cap is too small.
 */
int cr_userrigs_path(const char *xdg_config_home, const char *home, char *buf, size_t cap,
		     cr_error *err);

/** An empty set. @p out is freed with cr_userrigs_free. */
int cr_userrigs_new(cr_user_rigs **out, cr_error *err);

/**
 * Load and validate @p path. A missing file gives an empty set (and
 * @p exists, if non-NULL, false).
 * @param cat when non-NULL, a saved id equal to one of its rig ids is an error.
 * @return 0; CR_ERR_IO (unreadable), CR_ERR_PARSE (bad JSON, with byte,
 *   line and column) or CR_ERR_INVALID (a wrong field, with the JSON path).
 */
int cr_userrigs_load(const char *path, const cr_catalog *cat, cr_user_rigs **out,
		     bool *exists, cr_error *err);

/** Load from memory; @p name is used in messages. The buffer is not kept. */
int cr_userrigs_load_buffer(const char *buf, size_t len, const char *name,
			    const cr_catalog *cat, cr_user_rigs **out, cr_error *err);

/** Free a set; NULL is a no-op. Rigs obtained from it die with it. */
void cr_userrigs_free(cr_user_rigs *set);

/** Count and indexed access (NULL past the end); owned by the set. */
size_t cr_userrigs_count(const cr_user_rigs *set);
const cr_rig *cr_userrigs_at(const cr_user_rigs *set, size_t i);
/** Look up by id, case-insensitive; NULL if absent. Owned by the set. */
const cr_rig *cr_userrigs_find(const cr_user_rigs *set, const char *id);

/**
 * Check that @p id may name a saved rig: the id syntax of the catalog
 * ([a-z0-9][a-z0-9.+_-]*, at most 47 characters), not "local", not a rig id
 * of @p cat (may be NULL). The message suggests a free name
 * ("rtx4090 is a catalog rig id; pick another name, e.g. rtx4090-2").
 */
int cr_userrigs_check_id(const cr_user_rigs *set, const char *id, const cr_catalog *cat,
			 cr_error *err);

/**
 * Add a copy of @p rig (its id must pass cr_userrigs_check_id; its devices
 * are validated as a catalog rig's). An id already saved is an error
 * (CR_ERR_INVALID) unless @p replace.
 */
int cr_userrigs_add(cr_user_rigs *set, const cr_rig *rig, const cr_catalog *cat, bool replace,
		    cr_error *err);

/** Remove @p id; CR_ERR_NOTFOUND when it is not saved. */
int cr_userrigs_remove(cr_user_rigs *set, const char *id, cr_error *err);

/**
 * The file's text (pretty JSON, newline-terminated), NUL-terminated.
 * @param out receives a buffer the caller frees with free().
 */
int cr_userrigs_serialize(const cr_user_rigs *set, char **out, size_t *len, cr_error *err);

/**
 * One rig as a data/rigs.json rig object (compact JSON), NUL-terminated;
 * the caller frees @p out with free().
 */
int cr_userrigs_rig_json(const cr_rig *rig, char **out, cr_error *err);

/**
 * Write the set to @p path atomically (file comment), creating missing
 * parent directories with mode 0700 as the XDG spec asks.
 * @return 0, or CR_ERR_IO naming the path and the failing step (a link to
 *   a missing file: "PATH: a symbolic link to TARGET, which does not
 *   exist; ...").
 */
int cr_userrigs_save(const cr_user_rigs *set, const char *path, cr_error *err);

/** The lock of a saved-rigs file, held between cr_userrigs_lock and
 * cr_userrigs_unlock. Opaque. */
typedef struct cr_user_rigs_lock cr_user_rigs_lock;

/**
 * Take the exclusive lock of the saved-rigs file @p path, for one
 * load-modify-save: flock(2) on TARGET.lock, where TARGET is the file
 * @p path names after its symbolic links. The lock file is created (0600,
 * empty, with the missing directories as cr_userrigs_save makes them) and
 * never removed: removing it would race with a process that has just
 * opened it. Waits up to 10 s for another holder; the lock goes with the
 * process, so a killed holder never leaves it taken.
 * @param out receives the lock; release it with cr_userrigs_unlock.
 * @return 0; CR_ERR_IO naming the path (a link to a missing file, a lock
 *   file that is not a regular file, held for more than 10 s, ...).
 */
int cr_userrigs_lock(const char *path, cr_user_rigs_lock **out, cr_error *err);

/** Release and free @p lock; NULL is a no-op. */
void cr_userrigs_unlock(cr_user_rigs_lock *lock);

/**
 * Ids closest to @p name among @p cat's rigs and the saved ones (either may
 * be NULL), best first, as cr_catalog_suggest ranks them. Writes up to
 * @p max (at most 8) pointers owned by the catalog or the set.
 */
size_t cr_userrigs_suggest(const cr_user_rigs *set, const cr_catalog *cat, const char *name,
			   const char **out, size_t max);

/** The figures of a rig given on the command line (clefrun rig add). */
typedef struct cr_rig_figures {
	const char *id;        /**< the saved name (required) */
	const char *name;      /**< display name; NULL = generated from the figures */
	const char *device_name; /**< NULL = "GPU", "Unified memory" or "System RAM" by kind */
	double mem_gib;        /**< memory of ONE device, GiB (required) */
	double bw_gbs;         /**< bandwidth of ONE device, GB/s (required) */
	uint32_t devices;      /**< how many (1) */
	double tflops;         /**< dense FP16 TFLOPS of one device (0 = unknown) */
	cr_backend backend;    /**< used when backend_set */
	bool backend_set;
	cr_mem_kind kind;      /**< used when kind_set */
	bool kind_set;
	double ram_gib;        /**< > 0: add a system-RAM group (partial offload) */
	double ram_bw_gbs;     /**< its bandwidth, required with ram_gib */
	double usable_gib;     /**< > 0: memory the runtime may use on ONE device, GiB (at most mem_gib);
				    0 = the platform's default (docs/methodology.md "Usable memory") */
	const char *notes;     /**< NULL = none */
	const char *source;    /**< sources[0]; NULL = "clefrun rig add" */
} cr_rig_figures;

/* Defaults: everything unset (0 / NULL / false) but one device, and the
 * backend and kind a "custom:" spec assumes (cuda, discrete), used only when
 * backend_set / kind_set say so. */
#define CR_RIG_FIGURES_INIT                                                          \
	{ .id = NULL, .name = NULL, .device_name = NULL, .mem_gib = 0, .bw_gbs = 0,   \
	  .devices = 1, .tflops = 0, .backend = CR_BACKEND_CUDA, .backend_set = false, \
	  .kind = CR_MEM_DISCRETE, .kind_set = false, .ram_gib = 0, .ram_bw_gbs = 0,   \
	  .usable_gib = 0, .notes = NULL, .source = NULL }

/**
 * Build a rig from @p f with the defaults of a "custom:" spec (rig.h):
 * backend cuda, kind discrete; backend cpu implies kind system, backend
 * metal kind unified; kind system implies backend cpu. The RAM group
 * (ram_gib) needs an accelerator as the main device. The figures are
 * checked by the spec's own validator, with the bounds of rig.h (CR_RIG_*),
 * so a spec and `rig add` accept the same values and say the same. Text
 * longer than its field (name and device_name 127 bytes, notes 1023,
 * source 511) is refused, not cut. Messages name the fields as a spec
 * spells them (mem_gb, bw_gbs, ...).
 */
int cr_userrigs_build(const cr_rig_figures *f, cr_rig *out, cr_error *err);

#ifdef __cplusplus
}
#endif
#endif
