/**
 * @file version.h
 * @brief Library version.
 */
#ifndef CLEFRUN_VERSION_H
#define CLEFRUN_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif

#define CR_VERSION_MAJOR 0
#define CR_VERSION_MINOR 1
#define CR_VERSION_PATCH 0
#define CR_VERSION_STRING "0.1.0"

/** The library's version string, CR_VERSION_STRING of the build. */
const char *cr_version(void);

#ifdef __cplusplus
}
#endif
#endif
