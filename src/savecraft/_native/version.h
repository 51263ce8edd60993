/*
 * The one interface version of every savecraft._native module. Each module
 * exports it as VERSION; savecraft.compiled runs native code only when every
 * module is present with this very number (a stale or partial build would
 * otherwise run a silent mix of old and new code). Bump it with any change of
 * a function's signature or behaviour in any module, and VERSION in
 * savecraft/compiled.py with it.
 */
#ifndef SAVECRAFT_NATIVE_VERSION_H
#define SAVECRAFT_NATIVE_VERSION_H
#define SAVECRAFT_NATIVE_VERSION 3
#endif
