/* dlopen_jail.h: confines a test process's dlopen of bare library names to one directory, so the
 * GPU plugins' driver searches meet the test's stub libraries and never the machine's own drivers
 * (ld.so's cache and default directories would find those whatever LD_LIBRARY_PATH says). */
#ifndef TG_TESTS_PLUGINS_DLOPEN_JAIL_H_
#define TG_TESTS_PLUGINS_DLOPEN_JAIL_H_

#ifdef __cplusplus
extern "C" {
#endif

/* From now on dlopen("libfoo.so.1") opens "<dir>/libfoo.so.1" (which may not exist: the usual
 * "cannot open shared object file" error); a name with a '/' opens as given. |dir| must outlive the
 * process. Call before the plugin looks for its driver: plugins search once per process. */
void tg_dlopen_jail(const char* dir);

#ifdef __cplusplus
}
#endif

#endif /* TG_TESTS_PLUGINS_DLOPEN_JAIL_H_ */
